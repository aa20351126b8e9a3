"""Round 26: "every 3 days at 9am" was refused with the generic message.

People keep habits every other day or every few days (watering plants,
a run, a pill), and the parser had no such schedule: it said the phrase
was not a schedule and listed others.  A daily schedule may now skip days,
counted from the day of its first run (typed, or the first day its time
is still to come), and stored, described and read back as such."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from desktop.core.db.schedules import Daily, ScheduleError, from_spec, to_spec
from desktop.core.tasks.schedules import check_upcoming, describe, next_run, parse_schedule
from desktop.ui.tasks.views import habit_words

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2027, 3, 26, 10, 0, tzinfo=BERLIN)
"""A Friday morning, two days before the clocks go forward (28 March 2027)."""


@pytest.mark.parametrize(
    ("typed", "schedule"),
    [
        ("every 3 days at 9am", Daily(time(9), 3, date(2027, 3, 27))),  # 9am today has passed
        ("every 3 days at 11", Daily(time(11), 3, date(2027, 3, 26))),
        ("Every other day at 8:30 pm", Daily(time(20, 30), 2, date(2027, 3, 26))),
        ("every 2 days starting tomorrow at 7", Daily(time(7), 2, date(2027, 3, 27))),
        ("every 10 days from 2027-04-01 at 06:15", Daily(time(6, 15), 10, date(2027, 4, 1))),
        ("every 1 days at 9", Daily(time(9))),
    ],
)
def test_a_schedule_skipping_days_is_read_stored_and_described(typed: str, schedule: Daily) -> None:
    read = parse_schedule(typed, NOW)

    assert read == schedule
    assert from_spec(*to_spec(read)) == read
    assert parse_schedule(describe(read)) == read


def test_it_runs_every_so_many_days_at_the_same_wall_clock_time_across_a_clock_change() -> None:
    schedule = Daily(time(2, 30), 2, date(2027, 3, 26))
    runs = []
    after = NOW
    for _ in range(4):
        run = next_run(schedule, after, BERLIN)
        assert run is not None
        runs.append(run)
        after = run

    assert [run.date() for run in runs] == [
        date(2027, 3, 28),  # 02:30 is skipped that night: it runs as 03:30 then
        date(2027, 3, 30),
        date(2027, 4, 1),
        date(2027, 4, 3),
    ]
    assert [run.strftime("%H:%M") for run in runs] == ["03:30", "02:30", "02:30", "02:30"]


def test_it_runs_first_on_its_first_day_however_far_ahead() -> None:
    schedule = Daily(time(9), 5, date(2027, 12, 24))

    assert next_run(schedule, NOW, BERLIN) == datetime(2027, 12, 24, 9, tzinfo=BERLIN)


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("every 0 days at 9", "Every 0 days is not a schedule: it runs every 1 to 31 days"),
        ("every 40 days at 9", "Every 40 days is not a schedule: it runs every 1 to 31 days"),
        ("every 9999999999 days at 9", "it runs every 1 to 31 days"),
        ("every 3 days", "'every 3 days' needs a time of day: write e.g. 'every 3 days at 9am'."),
        ("every 3 days from 2027-02-30 at 9", "'2027-02-30' is not a date"),
    ],
)
def test_what_cannot_run_is_refused_with_what_would(typed: str, said: str) -> None:
    with pytest.raises(ScheduleError, match=said.replace("(", r"\(").replace(")", r"\)")):
        parse_schedule(typed, NOW)


def test_without_today_known_the_first_day_must_be_written() -> None:
    with pytest.raises(ScheduleError, match="write the day of the first run") as refused:
        parse_schedule("every 3 days at 9am")

    example = str(refused.value).split("e.g. ")[1].strip("'.")
    assert parse_schedule(example) == Daily(time(9), 3, date(2026, 12, 1))


def test_a_first_day_past_a_century_is_refused() -> None:
    with pytest.raises(ScheduleError, match="too far ahead"):
        check_upcoming(Daily(time(9), 3, date(9999, 12, 31)), NOW.astimezone(UTC), BERLIN)


@pytest.mark.parametrize(
    "spec",
    [
        {"at": "09:00", "every": 3},
        {"at": "09:00", "every": 0, "since": "2027-01-01"},
        {"at": "09:00", "every": "3", "since": "2027-01-01"},
        {"at": "09:00", "every": 3, "since": "the first"},
    ],
)
def test_a_damaged_stored_schedule_skipping_days_is_an_error(spec: dict[str, object]) -> None:
    with pytest.raises(ScheduleError):
        from_spec("daily", spec)


def test_the_tasks_window_says_how_often() -> None:
    assert habit_words(Daily(time(9), 3, date(2027, 3, 27))) == "every 3 days at 09:00"
