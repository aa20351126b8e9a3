"""Tests of tidying tasks while dreaming: the model's actions on numbered
tasks, applied in the pass's transaction, undoable; old completed tasks purged."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.control import DreamControl
from desktop.core.tasks import TaskService
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import DAY, Dreaming


@pytest.fixture
def dreaming(make_dreaming: Callable[..., Dreaming], tasks: TaskService) -> Dreaming:
    return make_dreaming(tasks=tasks)


def _actions(*actions: dict[str, object]) -> str:
    return json.dumps({"actions": list(actions)})


def _log(dreaming: Dreaming, run_id: int) -> str:
    [entry] = [e for e in dreaming.dreamer.dreams.log_entries(run_id) if e.pass_name == "tasks"]
    return entry.message


def test_tasks_the_model_finds_done_or_changed_are_completed_and_updated(
    dreaming: Dreaming, tasks: TaskService, model: ScriptedChatModel, database: Database
) -> None:
    conversation = ConversationStore(database, clock=dreaming.clock).create("c")
    plants = tasks.add("Water the plants", conversation_id=conversation.id)
    taxes = tasks.add("File the taxes", conversation_id=conversation.id, priority=5)
    said = ConversationStore(database)
    said.add_message(conversation.id, "user", "I watered the plants.")
    said.add_message(conversation.id, "user", "The taxes are filed, finally.")
    model.queue(
        _actions(
            {"task": 1, "action": "update", "priority": 2},
            {"task": 2, "action": "complete", "evidence": "the taxes are filed"},
        )
    )

    dreaming.dreamer.run("manual", DreamControl())

    prompt = next(r[0][-1].content for r in model.requests if "The tasks:" in r[0][-1].content)
    assert "[1] (P5) Water the plants\n[2] (P5) File the taxes" in prompt
    assert "[1] I watered the plants." in prompt
    assert [t.id for t in tasks.list(("completed",))] == [taxes.id]
    assert tasks.get(plants.id).priority == 2  # type: ignore[union-attr]


def test_a_task_named_twice_or_unknown_rolls_the_pass_back(
    dreaming: Dreaming, tasks: TaskService, model: ScriptedChatModel
) -> None:
    chore = tasks.add("Water the plants", conversation_id=None)
    model.queue(_actions({"task": 1, "action": "complete"}, {"task": 1, "action": "keep"}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert tasks.get(chore.id).status == "active"  # type: ignore[union-attr]
    assert "one task two actions" in _log(dreaming, report.run.id)


def test_old_completed_tasks_are_purged_restorably_and_undone_with_the_dream(
    dreaming: Dreaming, tasks: TaskService, model: ScriptedChatModel
) -> None:
    old = tasks.add("Buy a lamp", conversation_id=None)
    tasks.complete(old.id)
    dreaming.clock.advance(31 * DAY)
    recent = tasks.add("Buy a chair", conversation_id=None)
    tasks.complete(recent.id)
    model.queue(_actions())

    report = dreaming.dreamer.run("manual", DreamControl())

    assert tasks.get(old.id).status == "deleted"  # type: ignore[union-attr]
    assert tasks.get(recent.id).status == "completed"  # type: ignore[union-attr]
    dreaming.dreamer.book.revert_run(report.run.id)
    assert tasks.get(old.id).status == "completed"  # type: ignore[union-attr]


def test_undoing_a_completion_brings_the_task_back(
    dreaming: Dreaming, tasks: TaskService, model: ScriptedChatModel, database: Database
) -> None:
    chore = tasks.add("Water the plants", conversation_id=None)
    store = ConversationStore(database)
    store.add_message(store.create("c").id, "user", "Watered the plants just now")
    model.queue(_actions({"task": 1, "action": "complete", "evidence": "watered the plants"}))
    report = dreaming.dreamer.run("manual", DreamControl())
    [change] = [c for c in dreaming.dreamer.dreams.changes(report.run.id) if c.pass_name == "tasks"]

    dreaming.dreamer.book.revert(change.id)

    assert tasks.get(chore.id).status == "active"  # type: ignore[union-attr]


def test_without_changes_or_new_messages_the_model_is_not_asked_about_tasks(
    dreaming: Dreaming, tasks: TaskService, model: ScriptedChatModel
) -> None:
    tasks.add("Water the plants", conversation_id=None)
    model.queue(_actions())
    dreaming.dreamer.run("manual", DreamControl())
    asked = len(model.requests)
    dreaming.clock.advance(60)

    dreaming.dreamer.run("manual", DreamControl())

    assert len(model.requests) == asked


def test_an_update_with_the_same_words_and_priority_is_no_change(
    dreaming: Dreaming, tasks: TaskService, model: ScriptedChatModel
) -> None:
    chore = tasks.add("Water the plants", conversation_id=None, priority=4)
    model.queue(
        _actions({"task": 1, "action": "update", "text": "water the plants.", "priority": 4})
    )

    report = dreaming.dreamer.run("manual", DreamControl())

    assert dreaming.dreamer.dreams.changes(report.run.id) == []
    assert _log(dreaming, report.run.id) == "Nothing to change."
    assert tasks.get(chore.id).text == "Water the plants"  # type: ignore[union-attr]
