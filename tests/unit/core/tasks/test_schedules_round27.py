"""Round 27: "every 1 days from 2027-04-01 at 9" ran from today.

A schedule counting days from a first day dropped that day when the count
was one: the phrase was read as "daily at 09:00", so a habit meant to start
in April ran the next morning.  A daily schedule may now have a first day
too; it is stored, described and read back with it, and "every day from"
and "daily starting tomorrow" say the same."""

from __future__ import annotations

import re
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from desktop.core.db.schedules import Daily, ScheduleError, from_spec, to_spec
from desktop.core.tasks.schedules import SCHEDULE_PATTERN, describe, next_run, parse_schedule
from desktop.ui.tasks.views import habit_words

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2027, 3, 26, 10, 0, tzinfo=BERLIN)


@pytest.mark.parametrize(
    ("typed", "first"),
    [
        ("every 1 days from 2027-04-01 at 9", date(2027, 4, 1)),
        ("every 1 day starting tomorrow at 7", date(2027, 3, 27)),
        ("every day from 2027-04-01 at 9", date(2027, 4, 1)),
        ("daily starting 2027-05-02 at 9", date(2027, 5, 2)),
    ],
)
def test_a_daily_schedule_from_a_day_first_runs_on_that_day(typed: str, first: date) -> None:
    schedule = parse_schedule(typed, NOW)

    assert schedule is not None
    run = next_run(schedule, NOW, BERLIN)
    assert run is not None
    assert run.date() == first
    assert from_spec(*to_spec(schedule)) == schedule
    assert parse_schedule(describe(schedule)) == schedule
    assert re.fullmatch(SCHEDULE_PATTERN, describe(schedule)), describe(schedule)


def test_it_runs_every_day_once_started() -> None:
    schedule = Daily(time(9), 1, date(2027, 4, 1))
    runs = []
    after = NOW
    for _ in range(3):
        run = next_run(schedule, after, BERLIN)
        assert run is not None
        runs.append(run.date())
        after = run

    assert runs == [date(2027, 4, 1), date(2027, 4, 2), date(2027, 4, 3)]
    assert habit_words(schedule) == "every day at 09:00"


def test_every_day_without_a_first_day_is_still_plain_daily() -> None:
    assert parse_schedule("every 1 days at 9", NOW) == Daily(time(9))
    assert to_spec(Daily(time(9))) == ("daily", {"at": "09:00"})


def test_skipping_days_still_needs_a_first_day() -> None:
    with pytest.raises(ScheduleError, match="counts them from the day of its first run"):
        Daily(time(9), 3)
    with pytest.raises(ScheduleError, match="damaged"):
        from_spec("daily", {"at": "09:00", "every": 3})
