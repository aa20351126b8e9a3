"""Round 12 tests of desktop.core.tasks.service: the time zone in use changes.

A task's next run is an instant, computed in the zone of the time it was
set.  Nothing computed it again when the zone changed (``tasks.time_zone``,
or the system's zone that the empty setting follows), so "daily at 09:00"
made in Berlin ran at 03:00 once after a move to New York.  The service now
reads every open task's schedule again in the zone it is built with (at
every start); in an unchanged zone nothing moves, which the property test
holds against runs made, missed and taken back, on days the clocks change.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ModelSettings
from desktop.core.db import ConversationStore, Database
from desktop.core.db.errors import DiskFull
from desktop.core.db.schedules import Daily, Interval, Monthly, Once, Schedule, TimeWindow, Weekly
from desktop.core.db.tasks import Task, TaskStore
from desktop.core.tasks.routines import KIND, RoutineRunner
from desktop.core.tasks.schedules import realigned
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


class Clock:
    """An aware clock that moves only when told to."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def at(text: str, zone: tzinfo) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=zone)


def _service(database: Database, clock: Clock, zone: tzinfo) -> TaskService:
    """The service as the app builds it at a start, in *zone*."""
    return TaskService(TaskStore(database, clock=lambda: clock().timestamp()), zone, clock=clock)


def _next(tasks: TaskService, task: Task, zone: tzinfo) -> str | None:
    stored = tasks.get(task.id)
    assert stored is not None
    if stored.next_run_at is None:
        return None
    return f"{datetime.fromtimestamp(stored.next_run_at, zone):%Y-%m-%d %H:%M}"


def _reminders(store: ConversationStore, conversation_id: int) -> list[str]:
    return [
        m.content
        for m in store.messages(conversation_id)
        if (m.metadata or {}).get(KIND) == "reminder"
    ]


def test_a_daily_reminder_made_in_berlin_runs_at_nine_in_new_york_after_a_move(
    database: Database,
    store: ConversationStore,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> None:
    clock = Clock(at("2026-11-20 20:00", BERLIN))
    conversation = store.create("pills").id
    task = _service(database, clock, BERLIN).add(
        "Take the pill", conversation_id=conversation, schedule=Daily(time(9))
    )
    clock.now = at("2026-11-21 02:30", NEW_YORK)  # started again after the flight

    tasks = _service(database, clock, NEW_YORK)

    assert _next(tasks, task, NEW_YORK) == "2026-11-21 09:00"
    runner = RoutineRunner(tasks, store, broker, prompts, ModelSettings())
    clock.now = at("2026-11-21 03:00:30", NEW_YORK)  # when 09:00 Berlin time comes
    assert runner.run_due() == [] and _reminders(store, conversation) == []
    clock.now = at("2026-11-21 09:00", NEW_YORK)
    [run] = runner.run_due()
    assert run.ok and _reminders(store, conversation) == ["Reminder: Take the pill"]


def test_a_move_east_keeps_todays_run_when_it_is_still_to_come(database: Database) -> None:
    clock = Clock(at("2026-11-20 20:00", NEW_YORK))
    made = _service(database, clock, NEW_YORK)
    task = made.add("Stretch", conversation_id=None, schedule=Daily(time(9)))
    assert _next(made, task, BERLIN) == "2026-11-21 15:00"
    clock.now = at("2026-11-21 07:00", BERLIN)

    tasks = _service(database, clock, BERLIN)

    assert _next(tasks, task, BERLIN) == "2026-11-21 09:00"
    assert tasks.zone is BERLIN


def test_a_once_reminder_whose_time_passed_in_the_new_zone_stays_due_not_dropped(
    database: Database,
) -> None:
    clock = Clock(at("2026-11-20 20:00", NEW_YORK))
    task = _service(database, clock, NEW_YORK).add(
        "Call the bank", conversation_id=None, schedule=Once(datetime(2026, 11, 21, 9))
    )
    clock.now = at("2026-11-21 12:00", BERLIN)  # 09:00 has passed in Berlin, not in New York

    tasks = _service(database, clock, BERLIN)

    assert _next(tasks, task, BERLIN) == "2026-11-21 09:00"
    assert [t.id for t in tasks.due()] == [task.id]  # said now, as late


def test_a_missed_run_moved_west_waits_for_its_time_in_the_new_zone(
    database: Database,
) -> None:
    clock = Clock(at("2026-11-20 20:00", BERLIN))
    task = _service(database, clock, BERLIN).add(
        "Stretch", conversation_id=None, schedule=Weekly((5,), time(9))
    )
    clock.now = at("2026-11-21 05:00", NEW_YORK)  # 09:00 Berlin (03:00 here) was missed

    tasks = _service(database, clock, NEW_YORK)

    assert _next(tasks, task, NEW_YORK) == "2026-11-21 09:00"
    assert tasks.due() == []


def test_paused_done_and_unscheduled_tasks_are_left_as_they_are(database: Database) -> None:
    clock = Clock(at("2026-11-20 20:00", BERLIN))
    made = _service(database, clock, BERLIN)
    paused = made.pause(made.add("Flute", conversation_id=None, schedule=Daily(time(9))).id)
    done = made.complete(made.add("Stamps", conversation_id=None, schedule=Daily(time(9))).id)
    plain = made.add("Rent", conversation_id=None)
    clock.now = at("2026-11-21 02:30", NEW_YORK)

    tasks = _service(database, clock, NEW_YORK)

    # A paused task's run is shown in the new zone; it is computed from now when resumed.
    assert _next(tasks, paused, NEW_YORK) == "2026-11-21 09:00"
    assert tasks.get(done.id) == done and tasks.get(plain.id) == plain


class FullDiskStore(TaskStore):
    """A store whose disk is full when runs are moved."""

    def move_runs(self, moves: Sequence[tuple[Task, float]]) -> int:
        raise DiskFull("The disk holding the database is full.", hint="Free some disk space.")


def test_runs_that_cannot_be_moved_leave_the_app_starting_and_say_why(
    database: Database,
) -> None:
    clock = Clock(at("2026-11-20 20:00", BERLIN))
    task = _service(database, clock, BERLIN).add(
        "Stretch", conversation_id=None, schedule=Daily(time(9))
    )
    clock.now = at("2026-11-21 02:30", NEW_YORK)

    tasks = TaskService(
        FullDiskStore(database, clock=lambda: clock().timestamp()), NEW_YORK, clock=clock
    )

    assert tasks.zone is NEW_YORK
    assert tasks.problem is not None
    assert "America/New_York" in tasks.problem and "Free some disk space." in tasks.problem
    assert _next(tasks, task, NEW_YORK) == "2026-11-21 03:00"  # kept until the next start


# -- an unchanged zone moves nothing -----------------------------------------------------

ZONES = (BERLIN, NEW_YORK, ZoneInfo("Australia/Lord_Howe"), ZoneInfo("Asia/Kolkata"))
"""Lord Howe moves its clocks by half an hour; Kolkata has a half-hour offset."""
DST_DAYS = (date(2026, 3, 8), date(2026, 3, 29), date(2026, 10, 25), date(2026, 11, 1))

times = st.builds(time, st.integers(0, 23), st.sampled_from([0, 15, 30, 59]))
schedules: st.SearchStrategy[Schedule] = st.one_of(
    st.builds(Daily, times),
    st.builds(
        Weekly,
        st.sets(st.integers(0, 6), min_size=1, max_size=6).map(lambda days: tuple(sorted(days))),
        times,
    ),
    st.builds(Monthly, st.integers(1, 31), times),
    st.builds(
        Interval,
        st.sampled_from([7, 30, 45, 90, 24 * 60]),
        st.one_of(
            st.none(),
            st.tuples(times, times)
            .filter(lambda ends: ends[0] != ends[1])
            .map(lambda ends: TimeWindow(*ends)),
        ),
    ),
)
Step = tuple[str, int]
"""What happens next: ("run" | "sleep" | "start again", minutes passing before it)."""
steps = st.lists(
    st.tuples(st.sampled_from(["run", "sleep", "start again"]), st.integers(0, 3 * 24 * 60)),
    min_size=1,
    max_size=8,
)


def _checked_restart(database: Database, clock: Clock, zone: tzinfo, task_id: int) -> None:
    before = TaskStore(database).get(task_id)
    assert before is not None
    _service(database, clock, zone)
    assert TaskStore(database).get(task_id) == before, (
        f"starting again in the same zone moved the run at {clock.now} from "
        f"{datetime.fromtimestamp(before.next_run_at or 0, zone)}"
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    zone=st.sampled_from(ZONES),
    day=st.sampled_from(DST_DAYS),
    start_minute=st.integers(0, 24 * 60 - 1),
    schedule=schedules,
    story=steps,
)
def test_starting_again_in_the_same_zone_never_moves_a_run(
    tmp_path_factory: pytest.TempPathFactory,
    zone: ZoneInfo,
    day: date,
    start_minute: int,
    schedule: Schedule,
    story: list[Step],
) -> None:
    from desktop.core.db import open_database

    with open_database(tmp_path_factory.mktemp("tz") / "r.sqlite3") as database:
        start = datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)
        clock = Clock((start + timedelta(minutes=start_minute - 24 * 60)).astimezone(zone))
        tasks = _service(database, clock, zone)
        task = tasks.add("Stretch", conversation_id=None, schedule=schedule)
        for what, minutes in story:
            clock.now = (clock.now.astimezone(UTC) + timedelta(minutes=minutes)).astimezone(zone)
            if what == "run":
                for due in tasks.due():
                    tasks.mark_run(due.id, due_at=due.next_run_at)
            _checked_restart(database, clock, zone, task.id)


def test_a_run_moved_past_the_skipped_hour_stays_when_its_time_comes(database: Database) -> None:
    """Daily at 02:00 runs at 03:00 on the night Berlin skips 02:00-03:00;
    starting again at 03:00 moved it to the next day: a second before 03:00
    was reckoned on the wall (02:59:59, an hour that never comes)."""
    clock = Clock(at("2026-03-28 02:00", BERLIN))
    tasks = _service(database, clock, BERLIN)
    task = tasks.add("Stretch", conversation_id=None, schedule=Daily(time(2)))
    for due in tasks.due():
        tasks.mark_run(due.id, due_at=due.next_run_at)
    assert _next(tasks, task, BERLIN) == "2026-03-29 03:00"
    clock.now = at("2026-03-29 03:00", BERLIN)
    _checked_restart(database, clock, BERLIN, task.id)


ONCE = Once(datetime(2026, 3, 8, 2, 30))  # a time New York's clocks skip


@pytest.mark.parametrize(
    ("schedule", "stored", "now", "expected"),
    [
        # Same zone: a missed run stays, a run to come stays.
        (Daily(time(9)), "2026-11-21 09:00", "2026-11-22 10:00", "2026-11-21 09:00"),
        (Daily(time(9)), "2026-11-22 09:00", "2026-11-21 09:00", "2026-11-22 09:00"),
        (ONCE, "2026-03-08 03:30", "2026-03-01 00:00", "2026-03-08 03:30"),
        # Another zone's instants.
        (Daily(time(9)), "2026-11-21 03:00", "2026-11-21 02:30", "2026-11-21 09:00"),
        (Daily(time(9)), "2026-11-21 03:00", "2026-11-21 05:00", "2026-11-21 09:00"),
        (Daily(time(9)), "2026-11-21 15:00", "2026-11-21 07:00", "2026-11-21 09:00"),
        (Daily(time(9)), "2026-11-21 15:00", "2026-11-21 12:00", "2026-11-22 09:00"),
        (ONCE, "2026-03-08 09:30", "2026-03-09 00:00", "2026-03-08 03:30"),
    ],
)
def test_realigned_reads_a_stored_run_again_in_the_zone(
    schedule: Schedule, stored: str, now: str, expected: str
) -> None:
    run = realigned(schedule, at(stored, NEW_YORK), at(now, NEW_YORK), NEW_YORK)

    assert f"{run:%Y-%m-%d %H:%M}" == expected
