"""Tests of task schedules: the words, the storage, and when each kind runs
next (missed runs, windows, time zones, daylight-saving changes, month ends).

Every "now" is a fixed datetime passed in: ``next_run`` reads no clock.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from apscheduler.triggers.base import BaseTrigger
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.core.db.schedules import (
    Daily,
    Interval,
    Monthly,
    Once,
    Schedule,
    ScheduleError,
    TimeWindow,
    Weekly,
    from_spec,
    to_spec,
)
from desktop.core.tasks.schedules import (
    SCHEDULE_PATTERN,
    ScheduleInPast,
    check_upcoming,
    describe,
    next_run,
    parse_schedule,
)

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
TOKYO = ZoneInfo("Asia/Tokyo")
LORD_HOWE = ZoneInfo("Australia/Lord_Howe")  # moves its clocks by half an hour


def at(text: str, zone: tzinfo = BERLIN) -> datetime:
    """A wall-clock time in *zone* (``2026-11-23 09:00``), aware."""
    return datetime.fromisoformat(text).replace(tzinfo=zone)


def runs(schedule: Schedule, after: datetime, count: int, zone: tzinfo = BERLIN) -> list[str]:
    """The next *count* runs, as local ``MM-DD HH:MM`` with the zone's abbreviation."""
    found = []
    for _ in range(count):
        upcoming = next_run(schedule, after, zone)
        assert upcoming is not None
        found.append(f"{upcoming:%m-%d %H:%M %Z}")
        after = upcoming
    return found


# -- words -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "schedule", "described"),
    [
        ("daily at 09:00", Daily(time(9)), "daily at 09:00"),
        ("Every day 7:05", Daily(time(7, 5)), "daily at 07:05"),
        ("weekly on Monday at 09:00", Weekly((0,), time(9)), "weekly on Monday at 09:00"),
        ("every fri 18:30", Weekly((4,), time(18, 30)), "weekly on Friday at 18:30"),
        (
            "weekly on Monday, Wednesday and Friday at 09:00",
            Weekly((0, 2, 4), time(9)),
            "weekly on Monday, Wednesday and Friday at 09:00",
        ),
        ("weekdays at 08:30", Weekly((0, 1, 2, 3, 4), time(8, 30)), "weekdays at 08:30"),
        ("weekends at 10:00", Weekly((5, 6), time(10)), "weekends at 10:00"),
        ("monthly on day 31 at 09:00", Monthly(31, time(9)), "monthly on day 31 at 09:00"),
        ("monthly on the 1st at 8:00", Monthly(1, time(8)), "monthly on day 1 at 08:00"),
        (
            "once on 2026-12-01 09:00",
            Once(datetime(2026, 12, 1, 9)),
            "once on 2026-12-01 09:00",
        ),
        ("2026-12-01T09:00", Once(datetime(2026, 12, 1, 9)), "once on 2026-12-01 09:00"),
        ("every 30 minutes", Interval(30), "every 30 minutes"),
        ("every minute", Interval(1), "every minute"),
        ("every 2 hours", Interval(120), "every 120 minutes"),
        (
            "every 30 minutes 08:00-20:00",
            Interval(30, TimeWindow(time(8), time(20))),
            "every 30 minutes 08:00-20:00",
        ),
        (
            "every 15 min from 8:00 to 20:00",
            Interval(15, TimeWindow(time(8), time(20))),
            "every 15 minutes 08:00-20:00",
        ),
        (
            "every 30 minutes 22:00-06:00",
            Interval(30, TimeWindow(time(22), time(6))),
            "every 30 minutes 22:00-06:00",
        ),
    ],
)
def test_schedules_are_read_from_words_and_described_in_the_prompts_words(
    written: str, schedule: Schedule, described: str
) -> None:
    assert parse_schedule(written) == schedule
    assert describe(schedule) == described
    assert parse_schedule(described) == schedule


@pytest.mark.parametrize("written", ["none", "", "  None "])
def test_none_is_no_schedule(written: str) -> None:
    assert parse_schedule(written) is None


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("daily at 25:00", "'25:00' is not a time of day; write it as HH:MM on a 24-hour clock"),
        ("daily at 13pm", "'13pm' is not a time of day: with am or pm the hour is 1 to 12"),
        ("daily at 12:60", "'12:60' is not a time of day"),
        ("every 0 minutes", "Every 0 minutes is not a schedule: the interval is 1 to 1440"),
        ("every 2000 minutes", "Every 2000 minutes is not a schedule"),
        (
            "every 30 minutes 08:00-08:00",
            "The time window 08:00-08:00 is empty: it closes the minute it opens",
        ),
        ("every 30 minutes 8-20", "'8' is not a time of day"),
        ("weekly on Funday at 09:00", "'funday' is not a weekday; write one of Monday, Tuesday"),
        ("monthly on day 32 at 09:00", "32 is not a day of the month (1 to 31)"),
        ("monthly on day 0 at 09:00", "0 is not a day of the month"),
        ("once on 2026-02-30 09:00", "'2026-02-30' is not a date; write it as YYYY-MM-DD"),
        ("sometimes", "'sometimes' is not a schedule Reverie understands; write 'once on"),
        ("every 30 minutes until I say stop", "is not a schedule Reverie understands"),
    ],
)
def test_a_bad_schedule_is_refused_with_a_clear_message(written: str, message: str) -> None:
    with pytest.raises(ScheduleError) as refused:
        parse_schedule(written)

    assert message in str(refused.value)


def test_a_schedule_runs_on_whole_wall_clock_minutes() -> None:
    with pytest.raises(ScheduleError, match="whole minutes"):
        Daily(time(9, 0, 30))
    with pytest.raises(ScheduleError, match="without a time zone"):
        Once(datetime(2026, 12, 1, 9, tzinfo=UTC))
    with pytest.raises(ScheduleError, match="not a weekday"):
        Weekly((7,), time(9))
    with pytest.raises(ScheduleError, match="one to six days"):
        Weekly((), time(9))
    with pytest.raises(ScheduleError, match="every day is daily"):
        Weekly(tuple(range(7)), time(9))
    assert Weekly((3, 0, 3), time(9)) == Weekly((0, 3), time(9))


def test_the_grammar_pattern_admits_what_describe_writes() -> None:
    pattern = re.compile(SCHEDULE_PATTERN)
    for schedule in (
        Daily(time(9)),
        Daily(time(9), 3, date(2026, 12, 1)),
        Daily(time(23, 59), 31, date(2099, 2, 28)),
        Weekly((6,), time(23, 59)),
        Weekly((0, 3), time(18)),
        Weekly((0, 2, 4, 6), time(7, 5)),
        Weekly((0, 1, 2, 3, 4), time(8, 30)),
        Weekly((5, 6), time(10)),
        Monthly(31, time(0)),
        Once(datetime(2026, 12, 1, 9)),
        Interval(1),
        Interval(30),
        Interval(45, TimeWindow(time(8), time(20))),
    ):
        assert pattern.fullmatch(describe(schedule)), describe(schedule)


# -- storage -----------------------------------------------------------------

_TIMES = st.builds(time, st.integers(0, 23), st.integers(0, 59))
_SCHEDULES: st.SearchStrategy[Schedule] = st.one_of(
    st.builds(
        Once,
        st.datetimes(datetime(2000, 1, 1), datetime(2100, 1, 1)).map(
            lambda moment: moment.replace(second=0, microsecond=0)
        ),
    ),
    st.builds(Daily, _TIMES),
    st.builds(Daily, _TIMES, st.integers(2, 31), st.dates(date(2000, 1, 1), date(2099, 12, 31))),
    st.builds(Weekly, st.sets(st.integers(0, 6), min_size=1, max_size=6).map(tuple), _TIMES),
    st.builds(Monthly, st.integers(1, 31), _TIMES),
    st.builds(Interval, st.integers(1, 1440)),
    st.tuples(st.integers(1, 1440), _TIMES, _TIMES)
    .filter(lambda t: t[1] != t[2])
    .map(lambda t: Interval(t[0], TimeWindow(t[1], t[2]))),
)


@given(_SCHEDULES)
def test_every_schedule_survives_storage_and_words(schedule: Schedule) -> None:
    kind, spec = to_spec(schedule)

    assert from_spec(kind, spec) == schedule
    assert parse_schedule(describe(schedule)) == schedule


@pytest.mark.parametrize(
    ("kind", "spec"),
    [
        ("daily", {}),
        ("daily", {"at": "9 o'clock"}),
        ("weekly", {"weekday": "someday", "at": "09:00"}),
        ("weekly", {"weekdays": "monday", "at": "09:00"}),
        ("weekly", {"weekdays": [], "at": "09:00"}),
        ("monthly", {"day": "31", "at": "09:00"}),
        ("interval", {"minutes": 0}),
        ("interval", {"minutes": 5, "window": {"start": "08:00", "end": "08:00"}}),
        ("interval", None),
        ("hourly", {"at": "09:00"}),
    ],
)
def test_a_damaged_stored_schedule_is_an_error(kind: str, spec: Any) -> None:
    with pytest.raises(ScheduleError):
        from_spec(kind, spec)


# -- when ------------------------------------------------------------------


def test_daily_runs_at_the_time_and_strictly_after_the_time_given() -> None:
    daily = Daily(time(9))

    assert runs(daily, at("2026-11-23 08:59"), 1) == ["11-23 09:00 CET"]
    assert runs(daily, at("2026-11-23 09:00"), 2) == ["11-24 09:00 CET", "11-25 09:00 CET"]


def test_missed_runs_are_not_returned_the_next_run_to_come_is() -> None:
    # The computer slept for a week past three runs of each.
    woke = at("2026-11-30 10:15")

    assert runs(Daily(time(9)), woke, 1) == ["12-01 09:00 CET"]
    assert runs(Weekly((0,), time(9)), woke, 1) == ["12-07 09:00 CET"]
    assert runs(Interval(30), woke, 1) == ["11-30 10:30 CET"]


def test_weekly_runs_on_its_weekday() -> None:
    # 2026-11-22 is a Sunday.
    assert runs(Weekly((0,), time(9)), at("2026-11-22 12:00"), 3) == [
        "11-23 09:00 CET",
        "11-30 09:00 CET",
        "12-07 09:00 CET",
    ]
    assert runs(Weekly((6,), time(13)), at("2026-11-22 12:00"), 1) == ["11-22 13:00 CET"]


def test_weekly_on_several_days_runs_on_each_in_turn() -> None:
    assert runs(Weekly((0, 3), time(18)), at("2026-11-22 12:00"), 4) == [
        "11-23 18:00 CET",
        "11-26 18:00 CET",
        "11-30 18:00 CET",
        "12-03 18:00 CET",
    ]


def test_one_weekday_is_stored_as_before_several_as_a_list() -> None:
    assert to_spec(Weekly((0,), time(9))) == ("weekly", {"weekday": "monday", "at": "09:00"})
    assert to_spec(Weekly((0, 3), time(9))) == (
        "weekly",
        {"weekdays": ["monday", "thursday"], "at": "09:00"},
    )
    assert from_spec("weekly", {"weekday": "monday", "at": "09:00"}) == Weekly((0,), time(9))


def test_monthly_on_a_day_a_month_lacks_runs_on_its_last_day() -> None:
    assert runs(Monthly(31, time(9)), at("2026-10-31 10:00"), 5) == [
        "11-30 09:00 CET",
        "12-31 09:00 CET",
        "01-31 09:00 CET",
        "02-28 09:00 CET",
        "03-31 09:00 CEST",
    ]
    assert runs(Monthly(30, time(9)), at("2028-02-01 00:00"), 1) == ["02-29 09:00 CET"]  # leap


def test_once_runs_once_and_then_never() -> None:
    once = Once(datetime(2026, 12, 1, 9))

    assert runs(once, at("2026-11-22 12:00"), 1) == ["12-01 09:00 CET"]
    assert next_run(once, at("2026-12-01 09:00"), BERLIN) is None


def test_a_schedule_in_the_past_is_refused_with_the_time_now() -> None:
    with pytest.raises(ScheduleInPast) as refused:
        check_upcoming(Once(datetime(2020, 1, 1, 9)), at("2026-11-22 12:00"), BERLIN)

    assert str(refused.value) == (
        "Once on 2020-01-01 09:00 is in the past (it is now 2026-11-22 12:00); "
        "give a time still to come."
    )
    assert check_upcoming(Daily(time(9)), at("2026-11-22 12:00"), BERLIN) == at("2026-11-23 09:00")


def test_intervals_count_from_midnight_without_a_window() -> None:
    assert runs(Interval(30), at("2026-11-22 13:07"), 2) == ["11-22 13:30 CET", "11-22 14:00 CET"]
    # Seven does not divide a day: the count starts again at midnight.
    assert runs(Interval(7), at("2026-11-22 23:50"), 3) == [
        "11-22 23:55 CET",
        "11-23 00:00 CET",
        "11-23 00:07 CET",
    ]


def test_intervals_keep_to_their_window_both_ends_included() -> None:
    daytime = Interval(30, TimeWindow(time(8), time(20)))

    assert runs(daytime, at("2026-11-22 06:00"), 2) == ["11-22 08:00 CET", "11-22 08:30 CET"]
    assert runs(daytime, at("2026-11-22 19:45"), 2) == ["11-22 20:00 CET", "11-23 08:00 CET"]
    # An interval longer than the window runs once, when it opens.
    assert runs(Interval(90, TimeWindow(time(8), time(9))), at("2026-11-22 08:00"), 1) == [
        "11-23 08:00 CET"
    ]


def test_a_window_may_run_past_midnight() -> None:
    night = Interval(30, TimeWindow(time(22), time(6)))

    assert runs(night, at("2026-11-22 12:00"), 1) == ["11-22 22:00 CET"]
    assert runs(night, at("2026-11-23 01:10"), 1) == ["11-23 01:30 CET"]
    assert runs(night, at("2026-11-23 05:45"), 2) == ["11-23 06:00 CET", "11-23 22:00 CET"]


def test_schedules_are_read_in_the_zone_given() -> None:
    after = datetime(2026, 11, 22, 12, tzinfo=UTC)
    daily = Daily(time(9))

    tokyo = next_run(daily, after, TOKYO)
    new_york = next_run(daily, after, NEW_YORK)

    assert tokyo == datetime(2026, 11, 23, 0, tzinfo=UTC)  # 09:00 JST
    assert new_york == datetime(2026, 11, 22, 14, tzinfo=UTC)  # 09:00 EST, the same day
    assert new_york is not None and new_york.tzinfo is NEW_YORK


def test_a_time_of_day_stays_put_across_a_daylight_saving_change() -> None:
    # Berlin springs forward on 2026-03-29 and falls back on 2026-10-25.
    assert runs(Daily(time(9)), at("2026-03-28 10:00"), 2) == [
        "03-29 09:00 CEST",
        "03-30 09:00 CEST",
    ]
    assert runs(Daily(time(9)), at("2026-10-24 10:00"), 1) == ["10-25 09:00 CET"]


def test_a_time_the_clock_skips_runs_after_the_jump() -> None:
    # 02:00 becomes 03:00: 02:30 that day is half an hour after the jump.
    assert runs(Daily(time(2, 30)), at("2026-03-28 12:00"), 2) == [
        "03-29 03:30 CEST",
        "03-30 02:30 CEST",
    ]


def test_a_time_that_happens_twice_runs_once() -> None:
    # 03:00 becomes 02:00 again: 02:30 comes twice, and runs the first time.
    assert runs(Daily(time(2, 30)), at("2026-10-24 12:00"), 2) == [
        "10-25 02:30 CEST",
        "10-26 02:30 CET",
    ]


def test_intervals_count_real_minutes_across_daylight_saving_changes() -> None:
    every_half_hour = Interval(30)

    assert runs(every_half_hour, at("2026-10-25 01:45"), 5) == [
        "10-25 02:00 CEST",
        "10-25 02:30 CEST",
        "10-25 02:00 CET",
        "10-25 02:30 CET",
        "10-25 03:00 CET",
    ]
    assert runs(every_half_hour, at("2026-03-29 01:15"), 2) == [
        "03-29 01:30 CET",
        "03-29 03:00 CEST",
    ]


def test_next_run_needs_an_aware_time() -> None:
    with pytest.raises(ValueError, match="aware"):
        next_run(Daily(time(9)), datetime(2026, 11, 22, 12), BERLIN)


_ZONES = st.sampled_from(
    [BERLIN, NEW_YORK, TOKYO, LORD_HOWE, ZoneInfo("Asia/Kolkata"), ZoneInfo("UTC")]
)
_MOMENTS = st.datetimes(datetime(2025, 1, 1), datetime(2029, 1, 1), timezones=st.just(UTC))
_RECURRING = _SCHEDULES.filter(lambda schedule: not isinstance(schedule, Once))


@settings(max_examples=300, deadline=None)
@given(schedule=_RECURRING, after=_MOMENTS, zone=_ZONES)
def test_the_next_run_is_a_run_after_the_time_given_and_nothing_comes_between(
    schedule: Schedule, after: datetime, zone: tzinfo
) -> None:
    upcoming = next_run(schedule, after, zone)

    assert upcoming is not None and upcoming > after
    assert upcoming.utcoffset() is not None
    # It is a run time (asked just before it, it is the answer), and asking
    # from anywhere between the two gives it too.
    assert next_run(schedule, upcoming - timedelta(microseconds=1), zone) == upcoming
    middle = after + (upcoming - after) / 2
    assert next_run(schedule, middle, zone) == upcoming


class _ScheduleTrigger(BaseTrigger):  # type: ignore[misc]  # APScheduler ships no types
    """How the UI's scheduler can wrap ``next_run`` (the one source of truth)."""

    def __init__(self, schedule: Schedule, zone: tzinfo) -> None:
        self.schedule = schedule
        self.zone = zone

    def get_next_fire_time(
        self, previous_fire_time: datetime | None, now: datetime
    ) -> datetime | None:
        if previous_fire_time is None:  # the first run: now counts
            return next_run(self.schedule, now - timedelta(microseconds=1), self.zone)
        return next_run(self.schedule, previous_fire_time, self.zone)


def test_an_apscheduler_trigger_can_wrap_next_run() -> None:
    trigger = _ScheduleTrigger(Interval(30, TimeWindow(time(8), time(20))), BERLIN)
    now = at("2026-11-22 08:00")

    first = trigger.get_next_fire_time(None, now)
    second = trigger.get_next_fire_time(first, now)

    assert (first, second) == (now, at("2026-11-22 08:30"))
