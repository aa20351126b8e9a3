"""Tests of ``TaskStore``: adding, listing, changing, the status steps, and
the run times it keeps for scheduled tasks."""

from __future__ import annotations

import json
from datetime import datetime, time

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.db.schedules import Daily, Interval, Once, ScheduleError, TimeWindow
from desktop.core.db.tasks import Task, TaskNotFound, TaskStateError, TaskStore
from tests.unit.core.db.conftest import START, FakeClock

NEXT = START + 3600.0


@pytest.fixture
def tasks(db: Database, clock: FakeClock) -> TaskStore:
    return TaskStore(db, clock=clock)


@pytest.fixture
def conversation_id(conversations: ConversationStore) -> int:
    return conversations.create("tasks").id


def test_a_new_task_is_active_and_belongs_to_its_conversation(
    tasks: TaskStore, conversation_id: int
) -> None:
    task = tasks.add("Water the plants", conversation_id=conversation_id, priority=2)

    assert task == Task(
        id=task.id,
        conversation_id=conversation_id,
        text="Water the plants",
        priority=2,
        status="active",
        schedule=None,
        ai_prompt=None,
        created_at=START,
        updated_at=START,
        completed_at=None,
        last_run_at=None,
        next_run_at=None,
    )
    assert tasks.get(task.id) == task
    assert not task.is_routine


def test_a_schedule_is_stored_as_its_kind_and_json(
    tasks: TaskStore, db: Database, conversation_id: int
) -> None:
    window = Interval(30, TimeWindow(time(8), time(20)))

    task = tasks.add("Stretch", conversation_id=conversation_id, schedule=window, next_run_at=NEXT)

    row = db.fetch_one("SELECT schedule_kind, schedule_spec FROM tasks WHERE id = ?", (task.id,))
    assert row is not None
    assert row[0] == "interval"
    assert json.loads(row[1]) == {"minutes": 30, "window": {"start": "08:00", "end": "20:00"}}
    assert (task.schedule, task.next_run_at) == (window, NEXT)


def test_tasks_are_listed_most_urgent_first_by_status_and_conversation(
    tasks: TaskStore, conversations: ConversationStore
) -> None:
    first = conversations.create("first").id
    second = conversations.create("second").id
    low = tasks.add("Sort the photos", conversation_id=first, priority=9)
    urgent = tasks.add("Pay the rent", conversation_id=second, priority=1)
    paused = tasks.pause(tasks.add("Learn the flute", conversation_id=first).id)
    done = tasks.complete(tasks.add("Buy stamps", conversation_id=first).id)

    assert [t.id for t in tasks.list()] == [urgent.id, paused.id, low.id]
    assert [t.id for t in tasks.list(("active",))] == [urgent.id, low.id]
    assert [t.id for t in tasks.list(("completed",))] == [done.id]
    assert [t.id for t in tasks.list(conversation_id=first)] == [paused.id, low.id]
    assert tasks.list(()) == []


def test_update_changes_only_what_is_given(
    tasks: TaskStore, clock: FakeClock, conversation_id: int
) -> None:
    task = tasks.add("Call Ana", conversation_id=conversation_id, priority=4)
    clock.advance(60)

    renamed = tasks.update(task.id, text="Call Ana back")
    scheduled = tasks.update(task.id, priority=2, schedule=Daily(time(9)), next_run_at=NEXT)
    unscheduled = tasks.update(task.id, schedule=None, next_run_at=None)

    assert (renamed.text, renamed.priority, renamed.updated_at) == ("Call Ana back", 4, START + 60)
    assert (scheduled.text, scheduled.priority) == ("Call Ana back", 2)
    assert (scheduled.schedule, scheduled.next_run_at) == (Daily(time(9)), NEXT)
    assert (unscheduled.schedule, unscheduled.next_run_at, unscheduled.priority) == (None, None, 2)


def test_update_gives_and_takes_a_routines_prompt(tasks: TaskStore, conversation_id: int) -> None:
    task = tasks.add("Stretch", conversation_id=conversation_id)

    routine = tasks.update(task.id, ai_prompt="Suggest a stretch.")
    renamed = tasks.update(task.id, text="Stretch break")
    plain = tasks.update(task.id, ai_prompt=None)

    assert (routine.ai_prompt, renamed.ai_prompt, plain.ai_prompt) == (
        "Suggest a stretch.",
        "Suggest a stretch.",
        None,
    )
    assert routine.is_routine and not plain.is_routine


@pytest.mark.parametrize(
    "change",
    [
        {"text": "  "},
        {"priority": 0},
        {"priority": 11},
        {"schedule": Daily(time(9))},  # without its next run
        {"schedule": None, "next_run_at": NEXT},
    ],
)
def test_a_bad_change_is_refused_and_changes_nothing(
    tasks: TaskStore, conversation_id: int, change: dict[str, object]
) -> None:
    task = tasks.add("Call Ana", conversation_id=conversation_id)

    with pytest.raises(ValueError):
        tasks.update(task.id, **change)  # type: ignore[arg-type]  # each a wrong argument

    assert tasks.get(task.id) == task


def test_the_status_steps(tasks: TaskStore, clock: FakeClock, conversation_id: int) -> None:
    task = tasks.add(
        "Daily walk", conversation_id=conversation_id, schedule=Daily(time(9)), next_run_at=NEXT
    )

    paused = tasks.pause(task.id)
    resumed = tasks.resume(task.id, next_run_at=NEXT + 86400)
    clock.advance(10)
    completed = tasks.complete(task.id)
    deleted = tasks.delete(task.id)
    restored = tasks.restore(task.id, next_run_at=NEXT)

    assert paused.status == "paused" and paused.next_run_at == NEXT
    assert resumed.status == "active" and resumed.next_run_at == NEXT + 86400
    assert completed.status == "completed" and completed.completed_at == START + 10
    assert completed.next_run_at is None
    assert deleted.status == "deleted" and deleted.text == "Daily walk"
    # A completed task comes back completed, with no run to come.
    assert restored.status == "completed" and restored.next_run_at is None


def test_a_deleted_open_task_comes_back_active(tasks: TaskStore, conversation_id: int) -> None:
    task = tasks.pause(tasks.add("Read a book", conversation_id=conversation_id).id)

    tasks.delete(task.id)
    restored = tasks.restore(task.id, next_run_at=NEXT)

    assert restored.status == "active"
    assert restored.next_run_at is None  # an unscheduled task never has one


@pytest.mark.parametrize(
    ("setup", "step", "message"),
    [
        ("complete", "pause", "Task #1 is completed; only active tasks can be paused."),
        ("none", "resume", "Task #1 is active; only paused tasks can be resumed."),
        ("delete", "complete", "Task #1 is deleted; only active or paused tasks can be completed."),
        ("delete", "delete", "Task #1 is deleted; only active or paused or completed tasks"),
        ("none", "restore", "Task #1 is active; only deleted tasks can be restored."),
        ("delete", "update", "Task #1 is deleted; only active or paused or completed tasks can be"),
    ],
)
def test_a_step_the_status_does_not_allow_is_refused_with_why(
    tasks: TaskStore, conversation_id: int, setup: str, step: str, message: str
) -> None:
    task = tasks.add("Read a book", conversation_id=conversation_id)
    if setup == "complete":
        tasks.complete(task.id)
    elif setup == "delete":
        tasks.delete(task.id)
    before = tasks.get(task.id)

    with pytest.raises(TaskStateError) as refused:
        if step in ("resume", "restore"):
            getattr(tasks, step)(task.id, None)
        elif step == "update":
            tasks.update(task.id, text="Read two books")
        else:
            getattr(tasks, step)(task.id)

    assert message in str(refused.value)
    assert tasks.get(task.id) == before


def test_a_missing_task_is_named(tasks: TaskStore) -> None:
    with pytest.raises(TaskNotFound, match=r"There is no task #42\."):
        tasks.complete(42)
    with pytest.raises(TaskNotFound):
        tasks.update(42, text="anything")
    with pytest.raises(TaskNotFound):
        tasks.record_run(42, ran_at=START, next_run_at=None)
    assert tasks.get(42) is None


def test_due_lists_active_tasks_whose_run_has_come(tasks: TaskStore, conversation_id: int) -> None:
    daily = Daily(time(9))
    later = tasks.add("later", conversation_id=conversation_id, schedule=daily, next_run_at=NEXT)
    now = tasks.add("now", conversation_id=conversation_id, schedule=daily, next_run_at=START)
    overdue = tasks.add(
        "overdue", conversation_id=conversation_id, schedule=daily, next_run_at=START - 60
    )
    paused = tasks.add(
        "paused", conversation_id=conversation_id, schedule=daily, next_run_at=START - 120
    )
    tasks.pause(paused.id)
    tasks.add("unscheduled", conversation_id=conversation_id)

    assert [t.id for t in tasks.due(START)] == [overdue.id, now.id]
    assert [t.id for t in tasks.due(NEXT)] == [overdue.id, now.id, later.id]
    assert tasks.next_due_at() == START - 60


def test_a_run_is_recorded_with_the_next(tasks: TaskStore, conversation_id: int) -> None:
    task = tasks.add(
        "Remind me",
        conversation_id=conversation_id,
        schedule=Once(datetime(2026, 12, 1, 9)),
        next_run_at=START,
    )

    ran = tasks.record_run(task.id, ran_at=START + 5, next_run_at=None)

    assert (ran.last_run_at, ran.next_run_at, ran.status) == (START + 5, None, "active")
    assert tasks.due(NEXT) == []
    assert tasks.next_due_at() is None


def test_a_completed_task_given_a_schedule_still_never_runs(
    tasks: TaskStore, conversation_id: int
) -> None:
    task = tasks.add("Done already", conversation_id=conversation_id)
    tasks.complete(task.id)

    changed = tasks.update(task.id, schedule=Daily(time(9)), next_run_at=NEXT)

    assert (changed.status, changed.schedule, changed.next_run_at) == (
        "completed",
        Daily(time(9)),
        None,
    )
    assert tasks.due(NEXT) == [] and tasks.next_due_at() is None


def test_an_unscheduled_task_never_runs(tasks: TaskStore, conversation_id: int) -> None:
    task = tasks.add("No schedule", conversation_id=conversation_id)

    with pytest.raises(TaskStateError, match="has no schedule"):
        tasks.record_run(task.id, ran_at=START, next_run_at=NEXT)
    with pytest.raises(ValueError):
        tasks.add("Not scheduled", conversation_id=conversation_id, next_run_at=NEXT)


def test_completed_tasks_are_purged_after_a_while(
    tasks: TaskStore, clock: FakeClock, conversation_id: int
) -> None:
    old = tasks.complete(tasks.add("old", conversation_id=conversation_id).id)
    clock.advance(100)
    recent = tasks.complete(tasks.add("recent", conversation_id=conversation_id).id)
    open_task = tasks.add("open", conversation_id=conversation_id)

    assert tasks.purge_completed(START + 50) == 1

    assert tasks.get(old.id) is None
    assert tasks.get(recent.id) == recent and tasks.get(open_task.id) == open_task


def test_a_task_outlives_its_conversation(
    tasks: TaskStore, db: Database, conversation_id: int
) -> None:
    task = tasks.add("Keep me", conversation_id=conversation_id)

    with db.transaction() as tx:
        tx.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    kept = tasks.get(task.id)
    assert kept is not None and kept.conversation_id is None and kept.text == "Keep me"


def test_a_damaged_stored_schedule_is_an_error_not_a_guess(
    tasks: TaskStore, db: Database, conversation_id: int
) -> None:
    task = tasks.add(
        "Walk", conversation_id=conversation_id, schedule=Daily(time(9)), next_run_at=NEXT
    )
    with db.transaction() as tx:
        tx.execute('UPDATE tasks SET schedule_spec = \'{"at": "noon"}\' WHERE id = ?', (task.id,))

    with pytest.raises(ScheduleError, match="The stored daily schedule"):
        tasks.get(task.id)
