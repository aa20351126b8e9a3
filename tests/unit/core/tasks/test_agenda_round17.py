"""Round 17 of the attacks on the agenda review (F2): a fact it notes about
the user must be said by the user's words, not only share a word with
them.  One 4-letter stem in common kept facts the user denied ("I'm not
allergic to anything"), only asked about, or said otherwise."""

from __future__ import annotations

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import ConversationStore
from desktop.core.memory.service import MemoryService
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel
from tests.unit.core.tasks.test_agenda_round16 import _conversation, _noting, _reviewer


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("I'm not allergic to anything, luckily", "User is allergic to penicillin"),
        ("Is penicillin dangerous for kids?", "User is allergic to penicillin"),
        ("My sister Maria called me today", "User's sister Maria died last year"),
        ("I stopped taking warfarin last month", "User takes warfarin every day"),
        ("I prefer tea in the morning", "User prefers that memories are never kept"),
    ],
)
def test_a_fact_the_user_s_words_do_not_say_is_dropped(
    task_service: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    said: str,
    fact: str,
) -> None:
    conversation = _conversation(store, task_service, ("user", said), ("assistant", "OK."))
    _noting(model, fact)

    review = _reviewer(task_service, store, memories, broker, prompts).review(conversation)

    assert memories.store.listed() == []
    [(_, reason)] = review.refused
    assert "facts about you come from your own words" in reason
