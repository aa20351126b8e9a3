"""Applying a dream's task changes: a new text goes through the task
service, so the handler itself keeps it as every task text is kept, with
the app's redactor, whatever payload it is given."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from desktop.core.db import Database, MemoryStore
from desktop.core.db.tasks import TaskStore
from desktop.core.dreaming.proposals import Applying, Proposal
from desktop.core.dreaming.task_changes import TaskChanges
from desktop.core.privacy.redaction import Redactor
from desktop.core.tasks.service import TaskRefused, TaskService

CAUGHT = "Zq8!said1"
"""A value redaction catches only where a credential word names it."""


@pytest.fixture
def redactor() -> Redactor:
    redactor = Redactor()
    redactor.text(f"the router password is {CAUGHT}")  # caught once, in chat
    return redactor


@pytest.fixture
def tasks(database: Database, redactor: Redactor) -> TaskService:
    return TaskService(TaskStore(database), ZoneInfo("UTC"), redactor=redactor)


def _apply(database: Database, tasks: TaskService, payload: dict[str, object]) -> None:
    with tasks.store.transaction() as tx:
        at = Applying(tx, MemoryStore(database), "dream:tasks", 1, tasks=tasks)
        TaskChanges().apply(at, Proposal("task_update", "Updated a task", payload))


def test_an_update_is_stored_as_the_task_service_keeps_it(
    database: Database, tasks: TaskService
) -> None:
    task = tasks.add("Check the router", conversation_id=None)

    _apply(database, tasks, {"task": task.id, "text": f"Check\u202e the router\ntakes {CAUGHT}"})

    assert tasks.get(task.id).text == "Check the router takes [redacted password]"  # type: ignore[union-attr]


@pytest.mark.parametrize("text", ["\u200b\u2060", "[redacted password]", CAUGHT])
def test_an_update_no_task_could_have_is_refused_and_changes_nothing(
    database: Database, tasks: TaskService, text: str
) -> None:
    task = tasks.add("Check the router", conversation_id=None, priority=5)

    with pytest.raises(TaskRefused):
        _apply(database, tasks, {"task": task.id, "text": text, "priority": 1})

    assert tasks.get(task.id) == task
