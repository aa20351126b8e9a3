"""Round 23 tests of desktop.core.tasks.service: a reminder set in the hour
the clocks turn back.

At 01:10 on the night New York's clocks go from 02:00 back to 01:00, "in
an hour" is the second 01:10 (EST).  Its first run was right, but a
``once`` was stored as its wall-clock time alone, which reads back as the
first 01:10 (EDT), an hour earlier: starting the app again made the
reminder due at once, 50 minutes early, and pausing and resuming it left
it with no run at all.  The stored schedule now keeps which 01:10 it is.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from desktop.core.db import Database
from desktop.core.db.schedules import Once, ScheduleError, from_spec, to_spec
from desktop.core.db.tasks import TaskStore
from desktop.core.tasks.schedules import parse_schedule
from desktop.core.tasks.service import TaskService
from tests.unit.core.tasks.test_tasks_round12 import NEW_YORK, Clock, _next, _service

LONDON = ZoneInfo("Europe/London")
DAILY = parse_schedule("daily at 9am")


def _bread(tasks: TaskService, clock: Clock) -> int:
    schedule = parse_schedule("in 1 hour", clock())
    return tasks.add("Take the bread out", conversation_id=None, schedule=schedule).id


def _run_at(database: Database, task_id: int) -> float | None:
    task = TaskStore(database).get(task_id)
    assert task is not None
    return task.next_run_at


def test_a_reminder_in_the_repeated_hour_keeps_its_time_when_the_app_starts_again(
    database: Database,
) -> None:
    clock = Clock(datetime(2026, 11, 1, 1, 10, tzinfo=NEW_YORK))  # the first 01:10 (EDT)
    task_id = _bread(_service(database, clock, NEW_YORK), clock)
    an_hour_on = clock().timestamp() + 3600
    assert _run_at(database, task_id) == an_hour_on

    clock.now = datetime(2026, 11, 1, 1, 20, tzinfo=NEW_YORK)
    restarted = _service(database, clock, NEW_YORK)

    assert _run_at(database, task_id) == an_hour_on
    assert restarted.due() == []  # not due 50 minutes early


def test_a_reminder_in_the_repeated_hour_paused_and_resumed_still_runs(
    database: Database,
) -> None:
    clock = Clock(datetime(2026, 11, 1, 1, 10, tzinfo=NEW_YORK))
    tasks = _service(database, clock, NEW_YORK)
    task_id = _bread(tasks, clock)
    an_hour_on = clock().timestamp() + 3600

    clock.now = datetime(2026, 11, 1, 1, 20, tzinfo=NEW_YORK)
    tasks.pause(task_id)
    tasks.resume(task_id)

    assert _run_at(database, task_id) == an_hour_on


def test_such_a_reminder_moved_to_another_zone_runs_at_its_wall_clock_time(
    database: Database,
) -> None:
    clock = Clock(datetime(2026, 11, 1, 1, 10, tzinfo=NEW_YORK))
    task_id = _bread(_service(database, clock, NEW_YORK), clock)

    moved = _service(database, clock, LONDON)

    task = moved.get(task_id)
    assert task is not None and _next(moved, task, LONDON) == "2026-11-01 01:10"


def test_the_fold_is_stored_only_when_it_is_the_second_and_a_damaged_one_is_refused() -> None:
    first = Once(datetime(2026, 11, 1, 1, 10))
    second = Once(datetime(2026, 11, 1, 1, 10, fold=1))

    assert to_spec(first) == ("once", {"at": "2026-11-01T01:10"})  # as older copies wrote
    for once in (first, second):
        read = from_spec(*to_spec(once))
        assert isinstance(read, Once) and read.at.fold == once.at.fold
    for damaged in (2, -1, "1", True, None):
        with pytest.raises(ScheduleError, match="damaged"):
            from_spec("once", {"at": "2026-11-01T01:10", "fold": damaged})


# -- the clock set back while Reverie runs -------------------------------------
#
# A computer whose clock ran months ahead (set by hand, a wrong time server)
# made a daily reminder's next run a day after that wrong "now"; when the
# clock was put right, the reminder stayed silent for months, until the app
# happened to start again (where ``use_zone`` reads every run again).


def test_a_daily_reminder_speaks_the_next_morning_after_the_clock_is_set_back(
    database: Database,
) -> None:
    clock = Clock(datetime(2027, 6, 1, 9, 0, tzinfo=LONDON))  # months ahead
    tasks = _service(database, clock, LONDON)
    task = tasks.add("Water the plants", conversation_id=None, schedule=DAILY)
    assert tasks.due() == [] and _next(tasks, task, LONDON) == "2027-06-02 09:00"

    clock.now = datetime(2026, 11, 30, 8, 0, tzinfo=LONDON)  # put right, the app still running
    assert tasks.due() == []
    clock.now = datetime(2026, 11, 30, 9, 0, tzinfo=LONDON)

    assert [due.id for due in tasks.due()] == [task.id]
    assert _next(tasks, task, LONDON) == "2026-11-30 09:00"


def test_a_run_still_to_come_is_not_moved_by_looking_for_due_tasks(database: Database) -> None:
    clock = Clock(datetime(2026, 11, 30, 8, 0, tzinfo=LONDON))
    tasks = _service(database, clock, LONDON)
    task = tasks.add("Water the plants", conversation_id=None, schedule=DAILY)
    before = TaskStore(database).get(task.id)

    for minute in range(0, 60, 7):
        clock.now = datetime(2026, 11, 30, 8, minute, tzinfo=LONDON)
        assert tasks.due() == []

    assert TaskStore(database).get(task.id) == before  # nothing rewritten, not even updated_at


# -- a date past the last instant, stored by an older version ------------------


def test_a_once_in_year_9999_stored_in_utc_neither_stops_a_start_nor_the_due_tasks(
    database: Database,
) -> None:
    """Before dates were held to a century, "once on 9999-12-31 23:59" could
    be saved in UTC; behind UTC its instant is past the last one Python
    counts, and reading it there raised ``OverflowError`` at every start."""
    utc = ZoneInfo("UTC")
    clock = Clock(datetime(2026, 11, 30, 9, 0, tzinfo=utc))
    store = TaskStore(database, clock=lambda: clock().timestamp())
    last = datetime(9999, 12, 31, 23, 59, tzinfo=utc)
    far = store.add(
        "Far",
        conversation_id=None,
        schedule=Once(last.replace(tzinfo=None)),
        next_run_at=last.timestamp(),
    )
    honolulu = ZoneInfo("Pacific/Honolulu")
    clock.now = clock.now.astimezone(honolulu)

    tasks = _service(database, clock, honolulu)

    assert tasks.problem is None and tasks.due() == []
    assert _run_at(database, far.id) == last.timestamp()  # left where it was
