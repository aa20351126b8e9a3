"""Round 5 of the attacks on the agenda review: a refused action is logged
by its kind and the kind of refusal only, never with the words it quotes
(the log outlives an erasure of the conversation)."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import ConversationStore, Database
from desktop.core.db.tasks import TaskStore
from desktop.core.memory.service import MemoryService
from desktop.core.tasks.agenda import AgendaReviewer
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel
from tests.reviewers import reviewer_for

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 22, 12, tzinfo=BERLIN)
PRIVATE = ("Dana", "Ridgeway", "chemo", "Call the plumber")
"""Words of the conversation the refused actions quote."""


@pytest.fixture
def tasks(database: Database) -> TaskService:
    return TaskService(TaskStore(database, clock=NOW.timestamp), BERLIN, clock=lambda: NOW)


@pytest.fixture
def reviewer(
    tasks: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> AgendaReviewer:
    return reviewer_for(tasks, store, memories, broker, prompts)


@pytest.fixture
def conversation_id(tasks: TaskService, store: ConversationStore) -> int:
    conversation = store.create("Dana")
    store.add_message(conversation.id, "user", "Dana starts chemo at the Ridgeway clinic.")
    tasks.add("Call the plumber", conversation_id=conversation.id)
    return conversation.id


def _logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(record.getMessage() for record in caplog.records)


def test_a_refused_action_is_logged_without_the_words_it_quotes(
    reviewer: AgendaReviewer,
    model: ScriptedChatModel,
    conversation_id: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    actions = [
        # A schedule no parser reads (the refusal quotes it back).
        {"action": "add", "text": "Visit Dana at the Ridgeway clinic", "schedule": "after chemo"},
        # A task that is already there (the refusal quotes its text).
        {"action": "add", "text": "Call the plumber"},
        # A fact the write gate turns away (too short).
        {"action": "update_memory", "fact": "Dana"},
    ]
    model.queue(json.dumps({"actions": actions}))

    with caplog.at_level(logging.DEBUG):
        review = reviewer.review(conversation_id)

    assert len(review.refused) == 3
    logged = _logged(caplog)
    assert logged.count("agenda review refused an action: add (") == 2
    assert "agenda review refused an action: update_memory (ActionRefused)" in logged
    for word in PRIVATE:
        assert word not in logged, logged


def test_an_answer_naming_a_task_it_was_not_shown_is_logged_without_its_words(
    reviewer: AgendaReviewer,
    model: ScriptedChatModel,
    conversation_id: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The grammar allows only the numbers shown; a server that ignores it may not."""
    actions = [
        {"action": "complete", "task": 7},
        {"action": "add", "text": "Visit Dana at the Ridgeway clinic"},
    ]
    model.queue(json.dumps({"actions": actions}))

    with caplog.at_level(logging.DEBUG):
        assert reviewer.review_due() == []

    logged = _logged(caplog)
    assert "the model named tasks it was not shown" in logged
    for word in PRIVATE:
        assert word not in logged, logged
