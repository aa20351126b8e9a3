"""Schedules as people type them, tested as a family: phrasings are built
from parts (the days, the time of day in its many spellings, which comes
first, "at" or not, case and spacing) and each is checked by when it runs
next, against a plain walk through the calendar.  Refusals are built the
same way and checked for a message that says what would work.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.core.db.schedules import WEEKDAYS, Daily, Interval, Once, ScheduleError, Weekly
from desktop.core.tasks.schedules import describe, next_run, parse_schedule

ZONES = [
    ZoneInfo("Europe/Berlin"),
    ZoneInfo("America/New_York"),
    ZoneInfo("Asia/Tokyo"),
    ZoneInfo("Asia/Kolkata"),
    ZoneInfo("Australia/Lord_Howe"),  # moves its clocks by half an hour
    ZoneInfo("UTC"),
]
STEADY_ZONES = [ZoneInfo("Asia/Tokyo"), ZoneInfo("Asia/Kolkata"), ZoneInfo("UTC")]
"""Zones whose clocks never change, where a wall-clock time is one instant."""
SEPARATORS = [" and ", ", ", ", and ", " & ", " , "]
BERLIN = ZoneInfo("Europe/Berlin")
TUESDAY = datetime(2026, 11, 24, 10, 17, 30, tzinfo=BERLIN)


def moments(zones: list[ZoneInfo]) -> st.SearchStrategy[datetime]:
    """Aware times, to the second, read in one of *zones* (the user's)."""
    return st.builds(
        lambda moment, zone: moment.astimezone(zone),
        st.datetimes(datetime(2025, 1, 1), datetime(2029, 1, 1), timezones=st.just(UTC)).map(
            lambda moment: moment.replace(microsecond=0)
        ),
        st.sampled_from(zones),
    )


@dataclass(frozen=True)
class Days:
    """A way of saying which days, and a plain test of a date against it."""

    words: str
    runs_on: Callable[[date], bool]
    once: bool = False


# -- the parts ---------------------------------------------------------------


def time_spellings(at: time, *, bare_hour: bool) -> list[str]:
    """Every way of writing *at* Reverie reads."""
    hour, minute = at.hour, at.minute
    twelve, half = hour % 12 or 12, "am" if hour < 12 else "pm"
    spelt = [f"{hour:02}:{minute:02}", f"{hour}:{minute:02}", f"{hour}.{minute:02}"]
    spelt += [f"{twelve}:{minute:02}{half}", f"{twelve}:{minute:02} {half}"]
    spelt += [f"{twelve}:{minute:02} {half[0]}.m."]
    if minute == 0:
        spelt += [f"{twelve}{half}", f"{twelve} {half}"] + ([str(hour)] if bare_hour else [])
    spelt += {time(12): ["noon", "midday"], time(0): ["midnight"]}.get(at, [])
    return spelt


def weekday_names(day: int, *, plural: bool) -> list[str]:
    name = WEEKDAYS[day]
    if plural:
        return [f"{name}s", f"{name.lower()}s"]
    return [name, name.lower(), name[:3].lower()]


@st.composite
def every_week(draw: st.DrawFn) -> Days:
    """Some days of every week, by name or by a word for the set."""
    fixed = {
        "every day": range(7),
        "daily": range(7),
        "each day": range(7),
        "everyday": range(7),
        "weekdays": range(5),
        "every weekday": range(5),
        "on weekdays": range(5),
        "mon-fri": range(5),
        "monday to friday": range(5),
        "weekends": (5, 6),
        "every weekend": (5, 6),
        "on weekends": (5, 6),
        "at weekends": (5, 6),
    }
    if draw(st.booleans()):
        words = draw(st.sampled_from(sorted(fixed)))
        chosen = set(fixed[words])
        return Days(words, lambda day: day.weekday() in chosen)
    days = draw(st.lists(st.integers(0, 6), min_size=1, max_size=7, unique=True))
    plural = draw(st.booleans())
    lead = draw(st.sampled_from(["", "on "] if plural else ["every ", "each ", "weekly on "]))
    names = [draw(st.sampled_from(weekday_names(day, plural=plural))) for day in days]
    listed = names[0]
    for name in names[1:]:
        listed += draw(st.sampled_from(SEPARATORS)) + name
    return Days(lead + listed, lambda day: day.weekday() in days)


def ordinal_suffix(day: int) -> str:
    if day in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


@st.composite
def every_month(draw: st.DrawFn) -> Days:
    day = draw(st.integers(1, 31))
    nth = f"{day}{ordinal_suffix(day)}"
    words = draw(
        st.sampled_from(
            [
                f"monthly on day {day}",
                f"monthly on the {nth}",
                f"every month on the {nth}",
                f"on the {nth} of every month",
            ]
        )
    )
    return Days(
        words, lambda when: when.day == min(day, calendar.monthrange(when.year, when.month)[1])
    )


@st.composite
def one_day(draw: st.DrawFn, today: date) -> Days:
    """One day, counted from *today* or named by its date."""
    choice = draw(st.sampled_from(["today", "tomorrow", "in days", "weekday", "date"]))
    if choice == "weekday":
        weekday = draw(st.integers(0, 6))
        lead = draw(st.sampled_from(["", "on ", "next ", "on next "]))
        name = draw(st.sampled_from(weekday_names(weekday, plural=False)))
        ahead = (weekday - today.weekday() - 1) % 7 + 1  # the first after today
        return Days(lead + name, lambda day: day == today + timedelta(days=ahead), once=True)
    if choice == "in days":
        count, unit, days = draw(
            st.sampled_from([(1, "day", 1), (1, "week", 7), (None, "days", 0), (None, "weeks", 0)])
        )
        if count is None:
            count = draw(st.integers(0, 40))
            days = count * (7 if unit == "weeks" else 1)
        spelt = str(count) if unit.endswith("s") else draw(st.sampled_from(["1", "a", "one"]))
        words = f"in {spelt} {unit}"
    elif choice == "date":
        days = draw(st.integers(-3, 400))
        words = draw(st.sampled_from(["", "on ", "once on "])) + str(today + timedelta(days))
    else:
        days = int(choice == "tomorrow")
        words = draw(st.sampled_from(["", "once "])) + choice
    return Days(words, lambda day: day == today + timedelta(days=days), once=True)


@st.composite
def typed(draw: st.DrawFn, parts: list[str]) -> str:
    """*parts* as a person might type them: any case, any spacing."""
    text = ""
    for part in parts:
        for word in part.split(" "):
            text += word + " " * draw(st.integers(1, 3))
    text = " " * draw(st.integers(0, 2)) + text
    shape = draw(st.sampled_from([str.lower, str.upper, str.title, str.capitalize, str.swapcase]))
    return shape(text)


@st.composite
def day_and_time(draw: st.DrawFn, days: Days, at: time) -> str:
    """*days* and the time *at*, in either order, with "at" or without."""
    clock = draw(st.sampled_from(time_spellings(at, bare_hour=True)))
    said_at = draw(st.booleans()) or (clock.isdigit() and draw(st.booleans()))
    clock = f"at {clock}" if said_at else clock
    comma = draw(st.sampled_from(["", ","]))
    parts = [days.words + comma, clock] if draw(st.booleans()) else [clock, days.words]
    return draw(typed(parts))


def first_run(days: Days, at: time, now: datetime) -> datetime | None:
    """The first time *at* on a day of *days* after *now*, walking the calendar."""
    zone = now.tzinfo
    assert zone is not None
    today = now.date()
    for offset in range(-5, 420):
        day = today + timedelta(days=offset)
        if days.runs_on(day):
            run = datetime.combine(day, at, tzinfo=zone)
            if run > now:
                return run
            if days.once:
                return None
    if days.once:
        return None
    raise AssertionError(f"{days.words} never runs")  # pragma: no cover


# -- what they mean ------------------------------------------------------------

_TIMES = st.builds(time, st.integers(0, 23), st.integers(0, 59)) | st.sampled_from(
    [time(0), time(12), time(9), time(21)]
)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), now=moments(ZONES), at=_TIMES)
def test_days_and_a_time_run_next_when_the_calendar_says(
    data: st.DataObject, now: datetime, at: time
) -> None:
    days = data.draw(st.one_of(every_week(), every_month(), one_day(now.date())), label="days")
    text = data.draw(day_and_time(days, at), label="typed")

    schedule = parse_schedule(text, now)

    assert schedule is not None
    assert isinstance(schedule, Once) == days.once
    zone = now.tzinfo
    assert zone is not None
    assert next_run(schedule, now, zone) == first_run(days, at, now)
    assert parse_schedule(describe(schedule)) == schedule  # shown and stored as it was read


@settings(max_examples=100, deadline=None)
@given(
    now=moments(STEADY_ZONES),
    amount=st.sampled_from(
        [("minute", 1), ("minutes", 0), ("min", 0), ("hour", 60), ("hours", 0), ("hrs", 0)]
    ),
    count=st.integers(1, 5000),
    spelt_one=st.sampled_from(["1", "a", "an", "one"]),
    shape=st.data(),
)
def test_in_so_long_is_once_on_the_minute_at_or_after_then(
    now: datetime, amount: tuple[str, int], count: int, spelt_one: str, shape: st.DataObject
) -> None:
    unit, each = amount
    if each:  # "in an hour": one of them
        minutes, spelt = each, spelt_one
    else:
        minutes, spelt = count * (60 if unit.startswith("h") else 1), str(count)
    text = shape.draw(typed([f"in {spelt} {unit}"]))

    schedule = parse_schedule(text, now)

    assert isinstance(schedule, Once)
    run = next_run(schedule, now, now.tzinfo or UTC)
    assert run is not None
    assert run.second == 0
    assert timedelta(minutes=minutes) <= run - now < timedelta(minutes=minutes, seconds=60)


@settings(max_examples=100, deadline=None)
@given(
    every=st.sampled_from(
        [
            ("every minute", 1),
            ("every {n} minutes", None),
            ("every {n} mins", None),
            ("every hour", 60),
            ("hourly", 60),
            ("every {n} hours", 60),
        ]
    ),
    count=st.integers(1, 24),
    window=st.none() | st.tuples(_TIMES, _TIMES).filter(lambda pair: pair[0] != pair[1]),
    data=st.data(),
)
def test_every_so_often_is_an_interval_in_any_clock_spelling(
    every: tuple[str, int | None], count: int, window: tuple[time, time] | None, data: st.DataObject
) -> None:
    words, each = every
    minutes = each * count if each == 60 and "{n}" in words else each or count
    words = words.format(n=count)
    if window is not None:
        start, end = (
            data.draw(st.sampled_from(time_spellings(moment, bare_hour=False))) for moment in window
        )
        joined = data.draw(
            st.sampled_from(["{}-{}", "from {} to {}", "between {} and {}", "{} - {}"])
        )
        words += " " + joined.format(start, end)

    schedule = parse_schedule(data.draw(typed([words])))

    assert isinstance(schedule, Interval)
    assert schedule.minutes == minutes
    assert (schedule.window and (schedule.window.start, schedule.window.end)) == window


@pytest.mark.parametrize(
    ("typed_text", "expected"),
    [
        ("every day at 9am", Daily(time(9))),
        ("daily at 9", Daily(time(9))),
        ("weekdays at 8:30", Weekly((0, 1, 2, 3, 4), time(8, 30))),
        ("weekends at 10am", Weekly((5, 6), time(10))),
        ("every monday at 7pm", Weekly((0,), time(19))),
        ("mondays and thursdays at 18:00", Weekly((0, 3), time(18))),
        ("tomorrow 9", Once(datetime(2026, 11, 25, 9))),
        ("tomorrow at 9:30am", Once(datetime(2026, 11, 25, 9, 30))),
        ("today at 5pm", Once(datetime(2026, 11, 24, 17))),
        ("in 20 minutes", Once(datetime(2026, 11, 24, 10, 38))),
        ("in 2 hours", Once(datetime(2026, 11, 24, 12, 18))),
        ("every 30 minutes", Interval(30)),
        ("every hour", Interval(60)),
        ("every day at noon", Daily(time(12))),
        ("tomorrow at midnight", Once(datetime(2026, 11, 25, 0))),
        ("every day at 12am", Daily(time(0))),
        ("every day at 12pm", Daily(time(12))),
        ("  EVERY   Day at 9:15 P.M. ", Daily(time(21, 15))),
    ],
)
def test_the_phrases_people_type_read_as_meant(typed_text: str, expected: object) -> None:
    # The examples of the issue, on a Tuesday at 10:17:30 in Berlin.
    assert parse_schedule(typed_text, TUESDAY) == expected


# -- what is refused -----------------------------------------------------------

_IMPOSSIBLE_TIMES = st.one_of(
    st.builds("{}:{:02}".format, st.integers(24, 99), st.integers(0, 59)),
    st.builds("{}:{}".format, st.integers(0, 23), st.integers(60, 99)),
    st.builds("{}{}".format, st.integers(13, 99) | st.just(0), st.sampled_from(["am", "pm"])),
)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), clock=_IMPOSSIBLE_TIMES)
def test_an_impossible_time_is_refused_saying_how_to_write_one(
    data: st.DataObject, clock: str
) -> None:
    days = data.draw(st.one_of(every_week(), every_month(), one_day(TUESDAY.date())))
    text = data.draw(typed([days.words, "at", clock]))

    with pytest.raises(ScheduleError, match="is not a time of day") as refused:
        parse_schedule(text, TUESDAY)

    assert "24-hour clock" in str(refused.value)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_days_without_a_time_are_refused_with_one_to_copy(data: st.DataObject) -> None:
    days = data.draw(st.one_of(every_week(), every_month(), one_day(TUESDAY.date())))
    if days.words.startswith("in "):
        return  # "in 3 days" alone is three days from now, to the minute
    text = data.draw(typed([days.words]))

    with pytest.raises(ScheduleError, match=r"needs a time of day: write e\.g\.") as refused:
        parse_schedule(text, TUESDAY)

    suggestion = str(refused.value).split("write e.g. ")[1].strip("'.")
    assert parse_schedule(suggestion, TUESDAY) is not None


@settings(max_examples=100, deadline=None)
@given(data=st.data(), at=_TIMES)
def test_a_time_without_a_day_is_refused_as_a_guess(data: st.DataObject, at: time) -> None:
    clock = data.draw(st.sampled_from(time_spellings(at, bare_hour=False)))
    text = data.draw(typed([data.draw(st.sampled_from(["", "at "])) + clock]))

    with pytest.raises(ScheduleError, match=r"needs a day: write e\.g\. 'today at") as refused:
        parse_schedule(text, TUESDAY)

    for suggestion in str(refused.value).split("'")[3::2]:  # each quoted phrase after the first
        assert parse_schedule(suggestion, TUESDAY) is not None


@settings(max_examples=100, deadline=None)
@given(data=st.data(), at=_TIMES)
def test_a_time_counted_from_now_is_refused_without_a_now(data: st.DataObject, at: time) -> None:
    days = data.draw(one_day(TUESDAY.date()).filter(lambda days: not days.words[-1].isdigit()))
    text = data.draw(day_and_time(days, at))

    with pytest.raises(ScheduleError, match="counts from now, which is not known here"):
        parse_schedule(text)


@pytest.mark.parametrize(
    "text",
    ["monday and thursday at 9", "on Mon, Wed and Fri at 18:00", "next tuesday & friday at 7am"],
)
def test_several_days_without_every_are_refused_as_ambiguous(text: str) -> None:
    with pytest.raises(ScheduleError, match="could mean once or every week") as refused:
        parse_schedule(text, TUESDAY)

    suggestion = str(refused.value).split("write '")[1].split("'")[0]
    assert isinstance(parse_schedule(suggestion, TUESDAY), Weekly)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("every morning at 8", "is not a schedule Reverie understands; write e.g. 'tomorrow"),
        ("every holiday at 9", "'holiday' is not a weekday"),
        ("9", "is not a schedule Reverie understands"),
        ("in 0 minutes", "is now; give a time still to come"),
        ("every 30 minutes 8-20", "'8' is not a time of day"),
        ("in 99999999 weeks", "too far ahead"),
    ],
)
def test_other_nonsense_is_refused_with_what_would_work(text: str, message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        parse_schedule(text, TUESDAY)


def test_the_zone_of_now_is_the_users() -> None:
    # 23:30 on Tuesday in New York is already Wednesday in Berlin: "tomorrow"
    # is the New Yorker's Wednesday, not Berlin's Thursday.
    now = datetime(2026, 11, 24, 23, 30, tzinfo=ZoneInfo("America/New_York"))
    zone: tzinfo = ZoneInfo("America/New_York")

    schedule = parse_schedule("tomorrow at 9am", now)

    assert schedule == Once(datetime(2026, 11, 25, 9))
    assert next_run(schedule, now, zone) == datetime(2026, 11, 25, 9, tzinfo=zone)
