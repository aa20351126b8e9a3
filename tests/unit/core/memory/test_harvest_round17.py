"""Round 17 of the attacks on the harvest (F1): a fact about the user is
stored only when the user's messages it cites say it.  A small model cites
the user's message for whatever it makes up; citing "hi, how are you?"
for "User is allergic to penicillin" was enough to store it."""

from __future__ import annotations

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import ConversationStore
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel
from tests.harvesters import Clock, harvest_answer, harvester_for, talk


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("hi, how are you?", "User is allergic to penicillin"),
        ("I'm not allergic to anything, luckily", "User is allergic to penicillin"),
        ("My sister Maria called me today", "User's sister Maria died last year"),
        ("I stopped taking warfarin last month", "User takes warfarin every day"),
    ],
)
def test_a_fact_the_cited_words_do_not_say_is_refused_and_the_rest_kept(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    said: str,
    fact: str,
) -> None:
    conversation = store.create("c")
    talk(store, conversation.id, said, "I play the cello.")
    model.queue(
        harvest_answer((fact, "personal", [1]), ("The user plays the cello.", "other", [3]))
    )

    report = harvester_for(store, memories, broker, prompts, Clock()).harvest(conversation.id)

    assert report is not None
    assert [m.content for m in report.added] == ["The user plays the cello."]
    [(text, reason)] = report.refused
    assert text == fact and "facts about you come from your own words" in reason
