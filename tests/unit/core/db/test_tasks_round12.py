"""Round 12 tests of TaskStore: a run is recorded only for the run that came due.

``record_run`` updated any scheduled task by id: a task the user paused,
completed, deleted or rescheduled after the runner read it as due had its
run recorded and its next run moved on all the same (a completed task with
a next run).  The write itself now checks the status and, given *due_at*,
that the next run is still the one read.
"""

from __future__ import annotations

from datetime import time

import pytest

from desktop.core.db import Database
from desktop.core.db.schedules import Daily
from desktop.core.db.tasks import RunOvertaken, Task, TaskNotFound, TaskStateError, TaskStore

START = 1_795_000_000.0
NEXT = START + 86_400


@pytest.fixture
def tasks(database: Database) -> TaskStore:
    return TaskStore(database, clock=lambda: START)


def _due(tasks: TaskStore) -> Task:
    return tasks.add(
        "Water the plants", conversation_id=None, schedule=Daily(time(9)), next_run_at=START
    )


@pytest.mark.parametrize("step", ["pause", "complete", "delete"])
def test_a_task_no_longer_active_has_no_run_recorded(tasks: TaskStore, step: str) -> None:
    task = _due(tasks)
    changed = getattr(tasks, step)(task.id)

    with pytest.raises(RunOvertaken, match=rf"Task #{task.id} was {changed.status} meanwhile"):
        tasks.record_run(task.id, ran_at=START, next_run_at=NEXT, due_at=START)
    with pytest.raises(RunOvertaken):
        tasks.record_run(task.id, ran_at=START, next_run_at=NEXT)

    assert tasks.get(task.id) == changed


def test_a_task_rescheduled_since_it_was_read_has_no_run_recorded(tasks: TaskStore) -> None:
    task = _due(tasks)
    moved = tasks.update(task.id, schedule=Daily(time(18)), next_run_at=START + 9 * 3600)

    with pytest.raises(RunOvertaken, match="rescheduled meanwhile"):
        tasks.record_run(task.id, ran_at=START, next_run_at=NEXT, due_at=START)

    assert tasks.get(task.id) == moved


def test_the_run_that_came_due_is_recorded(tasks: TaskStore) -> None:
    task = _due(tasks)

    ran = tasks.record_run(task.id, ran_at=START + 5, next_run_at=NEXT, due_at=START)

    assert (ran.last_run_at, ran.next_run_at, ran.status) == (START + 5, NEXT, "active")
    with pytest.raises(RunOvertaken):  # the same run is not recorded twice
        tasks.record_run(task.id, ran_at=START + 6, next_run_at=NEXT, due_at=START)


def test_a_missing_or_unscheduled_task_is_still_named_as_such(tasks: TaskStore) -> None:
    with pytest.raises(TaskNotFound):
        tasks.record_run(42, ran_at=START, next_run_at=None, due_at=START)
    plain = tasks.add("No schedule", conversation_id=None)
    with pytest.raises(TaskStateError, match="has no schedule") as refused:
        tasks.record_run(plain.id, ran_at=START, next_run_at=None, due_at=None)
    assert not isinstance(refused.value, RunOvertaken)


def test_check_running_refuses_a_task_no_longer_active(
    tasks: TaskStore, database: Database
) -> None:
    task = _due(tasks)
    with database.transaction() as tx:
        assert tasks.check_running(tx, task.id) == task
    tasks.pause(task.id)
    with pytest.raises(RunOvertaken), database.transaction() as tx:
        tasks.check_running(tx, task.id)
    with pytest.raises(RunOvertaken), database.transaction() as tx:
        tasks.check_running(tx, 42)
