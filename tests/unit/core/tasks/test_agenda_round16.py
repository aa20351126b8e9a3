"""Round 16 of the attacks on the agenda review (F6): a fact it notes about
the user rests on the user's own words, as a harvested fact does.  The
review's ``update_memory`` cites nothing, so a fact is kept only when a
message the user wrote, among those the review read, speaks of it (a
content word in common); that message is then its source.  Anything else
is the model's guess ("User is allergic to penicillin" after "hi, how are
you?"): dropped, and logged by its kind only."""

from __future__ import annotations

import json
import logging

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import TaskSettings
from desktop.core.base.tokens import TokenCounter
from desktop.core.db import ConversationStore
from desktop.core.db.conversations import MessageRole
from desktop.core.memory.service import MemoryService
from desktop.core.tasks.agenda import AgendaReviewer
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel

GUESSES = [
    "User is allergic to penicillin",
    "User wants Reverie to stop reminding them about medication",
    "User's sister Maria died last year",
    "User prefers that memories are never kept",
    "User works night shifts at the hospital",
]


def _reviewer(
    task_service: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    messages: int = 12,
) -> AgendaReviewer:
    return AgendaReviewer(
        task_service,
        store,
        memories,
        broker,
        prompts,
        TokenCounter(broker),
        context_length=4096,
        settings=TaskSettings(agenda_messages=messages),
    )


@pytest.fixture
def reviewer(
    task_service: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> AgendaReviewer:
    return _reviewer(task_service, store, memories, broker, prompts)


def _noting(model: ScriptedChatModel, fact: str) -> None:
    action = {"action": "update_memory", "fact": fact, "category": "personal"}
    model.queue(json.dumps({"actions": [action]}))


def _conversation(
    store: ConversationStore, tasks: TaskService, *said: tuple[MessageRole, str]
) -> int:
    conversation = store.create("c").id
    tasks.add("Water the plants", conversation_id=conversation)
    for role, text in said:
        store.add_message(conversation, role, text)
    return conversation


@pytest.mark.parametrize("fact", GUESSES)
def test_a_fact_nothing_the_user_said_speaks_of_is_dropped_and_logged_without_it(
    reviewer: AgendaReviewer,
    task_service: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    model: ScriptedChatModel,
    caplog: pytest.LogCaptureFixture,
    fact: str,
) -> None:
    conversation = _conversation(
        store, task_service, ("user", "hi, how are you?"), ("assistant", "Fine, thanks!")
    )
    _noting(model, fact)

    with caplog.at_level(logging.DEBUG):
        review = reviewer.review(conversation)

    assert memories.store.listed() == []
    assert review.notice is None  # nothing was done, nothing is said
    [(_, reason)] = review.refused
    assert "facts about you come from your own words" in reason
    assert "refused an action: update_memory (ActionRefused)" in caplog.text
    assert fact not in caplog.text and "penicillin" not in caplog.text


def test_reverie_s_own_words_are_no_support(
    reviewer: AgendaReviewer,
    task_service: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    conversation = _conversation(
        store,
        task_service,
        ("assistant", "Are you allergic to penicillin?"),
        ("user", "hi, how are you?"),
    )
    _noting(model, "User is allergic to penicillin")

    reviewer.review(conversation)

    assert memories.store.listed() == []


def test_a_fact_the_user_said_is_noted_with_their_message_as_its_source(
    reviewer: AgendaReviewer,
    task_service: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    conversation = _conversation(
        store,
        task_service,
        ("user", "I can't take penicillin, I'm allergic."),
        ("assistant", "Noted: no penicillin."),
        ("user", "Thanks."),
    )
    said = store.messages(conversation)
    _noting(model, "User is allergic to penicillin")

    review = reviewer.review(conversation)

    [memory] = memories.store.listed()
    assert memory.content == "User is allergic to penicillin"
    assert memories.store.sources(memory.id).message_ids == (said[0].id,)
    assert review.notice is not None and "noted: User is allergic" in review.notice.content


def test_the_users_words_must_be_among_the_messages_the_review_read(
    task_service: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    conversation = _conversation(
        store,
        task_service,
        ("user", "I'm allergic to penicillin."),
        ("user", "hi, how are you?"),
        ("assistant", "Fine, thanks!"),
    )
    _noting(model, "User is allergic to penicillin")
    reviewer = _reviewer(task_service, store, memories, broker, prompts, messages=2)

    reviewer.review(conversation)

    assert memories.store.listed() == []
