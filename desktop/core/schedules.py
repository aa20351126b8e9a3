"""Task schedules: what they are, when they next run, and how they read.

Pure and Qt-free; the one source of truth for run times (the UI's scheduler
wraps ``next_run`` in its trigger, the task service stores its answer).

A schedule is wall-clock time in the user's zone (``tasks.time_zone``):
"daily at 09:00" stays at 09:00 across daylight-saving changes, and
``next_run`` takes the zone to read it in.  On the days the clocks change:
a time the clock skips (02:30 when 02:00 jumps to 03:00) runs as many
minutes after the jump as it lay after its start (03:30); a time that
happens twice runs once, the first time.

``every N minutes`` counts real minutes from the start of each day's window
(local midnight without one), so every 30 minutes runs at :00 and :30, a
window's runs start on its opening minute and its closing minute is
included.  A window may run past midnight (22:00-06:00); one that opens and
closes at the same minute is refused as empty.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any, Literal

from desktop.core.errors import ReverieError

ScheduleKind = Literal["once", "daily", "weekly", "monthly", "interval"]
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MAX_INTERVAL_MINUTES = 24 * 60
"""Longer gaps are daily, weekly or monthly schedules."""
_LOOKAHEAD_DAYS = 64  # runs of a monthly schedule are at most 31 days apart


class ScheduleError(ReverieError):
    """A schedule that cannot be used: misspelt, impossible, or out of range."""


class ScheduleInPast(ScheduleError):
    """A schedule whose every run lies in the past (a ``once`` already gone)."""


@dataclass(frozen=True)
class Once:
    at: datetime
    """Naive wall-clock time, to the minute."""

    def __post_init__(self) -> None:
        _check_wall_clock(self.at.time(), self.at.tzinfo)


@dataclass(frozen=True)
class Daily:
    at: time

    def __post_init__(self) -> None:
        _check_wall_clock(self.at, self.at.tzinfo)


@dataclass(frozen=True)
class Weekly:
    weekday: int
    """0 is Monday, as in ``date.weekday()``."""
    at: time

    def __post_init__(self) -> None:
        _check_wall_clock(self.at, self.at.tzinfo)
        if not 0 <= self.weekday <= 6:
            raise ScheduleError(f"{self.weekday} is not a weekday (0 is Monday, 6 Sunday).")


@dataclass(frozen=True)
class Monthly:
    day: int
    """Day of the month; a month without it runs on its last day."""
    at: time

    def __post_init__(self) -> None:
        _check_wall_clock(self.at, self.at.tzinfo)
        if not 1 <= self.day <= 31:
            raise ScheduleError(f"{self.day} is not a day of the month (1 to 31).")


@dataclass(frozen=True)
class TimeWindow:
    start: time
    end: time
    """Included; before ``start`` means the window runs past midnight."""

    def __post_init__(self) -> None:
        _check_wall_clock(self.start, self.start.tzinfo)
        _check_wall_clock(self.end, self.end.tzinfo)
        if self.start == self.end:
            raise ScheduleError(
                f"The time window {_hhmm(self.start)}-{_hhmm(self.end)} is empty: it closes "
                "the minute it opens. Give a window such as 08:00-20:00."
            )

    def describe(self) -> str:
        return f"{_hhmm(self.start)}-{_hhmm(self.end)}"


@dataclass(frozen=True)
class Interval:
    minutes: int
    window: TimeWindow | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.minutes <= MAX_INTERVAL_MINUTES:
            raise ScheduleError(
                f"Every {self.minutes} minutes is not a schedule: the interval is 1 to "
                f"{MAX_INTERVAL_MINUTES} minutes (longer ones are daily, weekly or monthly)."
            )


Schedule = Once | Daily | Weekly | Monthly | Interval


def kind_of(schedule: Schedule) -> ScheduleKind:
    kinds: dict[type[Any], ScheduleKind] = {
        Once: "once",
        Daily: "daily",
        Weekly: "weekly",
        Monthly: "monthly",
        Interval: "interval",
    }
    return kinds[type(schedule)]


# -- when --------------------------------------------------------------------


def next_run(schedule: Schedule, after: datetime, zone: tzinfo) -> datetime | None:
    """The first run strictly after *after* (aware), in *zone*; None if there is none.

    Runs missed before *after* are not returned: asked after a night's sleep,
    a daily schedule answers with its next run to come.
    """
    if after.utcoffset() is None:
        raise ValueError("next_run needs an aware datetime (one with a time zone)")
    after_utc = after.astimezone(UTC)
    if isinstance(schedule, Once):
        run = _instant(schedule.at.date(), schedule.at.time(), zone)
        return run.astimezone(zone) if run > after_utc else None
    if isinstance(schedule, Interval):
        return _next_interval(schedule, after_utc, zone)
    first_day = after_utc.astimezone(zone).date()
    for offset in range(_LOOKAHEAD_DAYS):
        day = first_day + timedelta(days=offset)
        if _runs_on(schedule, day):
            run = _instant(day, schedule.at, zone)
            if run > after_utc:
                return run.astimezone(zone)
    raise AssertionError(f"{schedule} has no run in {_LOOKAHEAD_DAYS} days")  # pragma: no cover


def check_upcoming(schedule: Schedule, now: datetime, zone: tzinfo) -> datetime:
    """The next run after *now*; ``ScheduleInPast`` if there is none."""
    run = next_run(schedule, now, zone)
    if run is None:
        local_now = now.astimezone(zone)
        raise ScheduleInPast(
            f"{_capitalised(describe(schedule))} is in the past (it is now "
            f"{local_now:%Y-%m-%d %H:%M}); give a time still to come."
        )
    return run


def _runs_on(schedule: Daily | Weekly | Monthly, day: date) -> bool:
    if isinstance(schedule, Weekly):
        return day.weekday() == schedule.weekday
    if isinstance(schedule, Monthly):
        last = calendar.monthrange(day.year, day.month)[1]
        return day.day == min(schedule.day, last)
    return True


def _next_interval(schedule: Interval, after: datetime, zone: tzinfo) -> datetime | None:
    step = timedelta(minutes=schedule.minutes)
    today = after.astimezone(zone).date()
    # Yesterday's window may still be open (past midnight); tomorrow's is
    # always the answer if today's has closed.
    for offset in (-1, 0, 1, 2):
        day = today + timedelta(days=offset)
        opens, closes = _window_on(schedule.window, day, zone)
        if after < opens:
            return opens.astimezone(zone)
        run = opens + ((after - opens) // step + 1) * step
        if run < closes or (run == closes and schedule.window is not None):
            return run.astimezone(zone)
    raise AssertionError(f"{schedule} has no run in three days")  # pragma: no cover


def _window_on(window: TimeWindow | None, day: date, zone: tzinfo) -> tuple[datetime, datetime]:
    """When *day*'s window opens and closes, in UTC (a whole day without one)."""
    if window is None:
        return _instant(day, time(0), zone), _instant(day + timedelta(days=1), time(0), zone)
    closing_day = day if window.end > window.start else day + timedelta(days=1)
    return _instant(day, window.start, zone), _instant(closing_day, window.end, zone)


def _instant(day: date, at: time, zone: tzinfo) -> datetime:
    # fold=0: a skipped time reads with the offset before the jump (so it
    # lands after it), a repeated time is its first occurrence.
    return datetime.combine(day, at, tzinfo=zone).astimezone(UTC)


# -- words -------------------------------------------------------------------


def describe(schedule: Schedule) -> str:
    """The schedule as the prompt and the UI show it, e.g. ``daily at 09:00``;
    ``parse_schedule`` reads it back."""
    if isinstance(schedule, Once):
        return f"once on {schedule.at:%Y-%m-%d %H:%M}"
    if isinstance(schedule, Daily):
        return f"daily at {_hhmm(schedule.at)}"
    if isinstance(schedule, Weekly):
        return f"weekly on {WEEKDAYS[schedule.weekday]} at {_hhmm(schedule.at)}"
    if isinstance(schedule, Monthly):
        return f"monthly on day {schedule.day} at {_hhmm(schedule.at)}"
    every = "every minute" if schedule.minutes == 1 else f"every {schedule.minutes} minutes"
    return f"{every} {schedule.window.describe()}" if schedule.window else every


_TIME = r"(?P<at>\S+)"
_WEEKDAY = r"(?P<weekday>[a-z]+?)(?:day)?s?"
_WINDOW = r"(?:\s+(?:from\s+|between\s+)?(?P<start>[^\s-]+)\s*(?:-|\u2013|to|and)\s*(?P<end>\S+))?"
_FORMS = {  # tried in this order: "every minute 08:00-20:00" is not a weekday
    "once": re.compile(
        r"(?:once\s+)?(?:on\s+)?(?P<date>\d{4}-\d{1,2}-\d{1,2})(?:\s+at\s+|t|\s+)" + _TIME
    ),
    "daily": re.compile(r"(?:daily|every\s+day)\s+(?:at\s+)?" + _TIME),
    "interval": re.compile(
        r"every\s+(?:(?P<count>\d+)\s+)?(?P<unit>minutes?|mins?|hours?)" + _WINDOW
    ),
    "weekly": re.compile(r"(?:weekly\s+(?:on\s+)?|every\s+)" + _WEEKDAY + r"\s+(?:at\s+)?" + _TIME),
    "monthly": re.compile(
        r"monthly\s+(?:on\s+)?(?:the\s+|day\s+)?(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:at\s+)?"
        + _TIME
    ),
}
_CLOCK = re.compile(r"(?P<hour>\d{1,2}):(?P<minute>\d{2})")
_NO_SCHEDULE = ("", "none", "no schedule", "never")
EXAMPLES = (
    "'once on 2026-12-01 09:00', 'daily at 09:00', 'weekly on Monday at 09:00', "
    "'monthly on day 1 at 09:00', 'every 30 minutes' or 'every 30 minutes 08:00-20:00'"
)
_HH_MM = "([01][0-9]|2[0-3]):[0-5][0-9]"
SCHEDULE_PATTERN = (
    f"^(none|once on 20[0-9]{{2}}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]) {_HH_MM}"
    f"|daily at {_HH_MM}"
    f"|weekly on (Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday) at {_HH_MM}"
    f"|monthly on day ([1-9]|[12][0-9]|3[01]) at {_HH_MM}"
    f"|every (minute|[1-9][0-9]{{0,3}} minutes)( {_HH_MM}-{_HH_MM})?)$"
)
"""The phrases ``describe`` writes (and ``none``), for a model's output
grammar; ``parse_schedule`` reads more than this."""


def parse_schedule(text: str) -> Schedule | None:
    """A schedule written in words (``describe``'s, and a few more); None for
    ``none``.  ``ScheduleError`` says what is wrong with anything else."""
    words = " ".join(text.strip().lower().split())
    if words in _NO_SCHEDULE:
        return None
    for kind, form in _FORMS.items():
        if found := form.fullmatch(words):
            return _from_words(kind, found)
    raise ScheduleError(
        f"{text.strip()!r} is not a schedule Reverie understands; write {EXAMPLES}."
    )


def _from_words(kind: str, found: re.Match[str]) -> Schedule:
    if kind == "once":
        return Once(datetime.combine(parse_date(found["date"]), parse_time(found["at"])))
    if kind == "daily":
        return Daily(parse_time(found["at"]))
    if kind == "weekly":
        return Weekly(parse_weekday(found["weekday"]), parse_time(found["at"]))
    if kind == "monthly":
        return Monthly(int(found["day"]), parse_time(found["at"]))
    count = int(found["count"] or 1)
    minutes = count * 60 if found["unit"].startswith("hour") else count
    window = None
    if found["start"] is not None:
        window = TimeWindow(parse_time(found["start"]), parse_time(found["end"]))
    return Interval(minutes, window)


def parse_time(text: str) -> time:
    """``HH:MM`` on a 24-hour clock (``9:05`` too)."""
    found = _CLOCK.fullmatch(text.strip())
    if found is None or int(found["hour"]) > 23 or int(found["minute"]) > 59:
        raise ScheduleError(
            f"{text.strip()!r} is not a time of day; write it as HH:MM on a 24-hour clock, "
            "00:00 to 23:59."
        )
    return time(int(found["hour"]), int(found["minute"]))


def parse_date(text: str) -> date:
    """``YYYY-MM-DD``."""
    try:
        year, month, day = (int(part) for part in text.strip().split("-"))
        return date(year, month, day)
    except ValueError:
        raise ScheduleError(
            f"{text.strip()!r} is not a date; write it as YYYY-MM-DD, e.g. 2026-12-01."
        ) from None


def parse_weekday(text: str) -> int:
    """A weekday by its English name or its first three letters (0 is Monday)."""
    name = text.strip().lower()
    for number, weekday in enumerate(WEEKDAYS):
        if len(name) >= 3 and weekday.lower().startswith(name):
            return number
    raise ScheduleError(f"{text.strip()!r} is not a weekday; write one of {', '.join(WEEKDAYS)}.")


# -- storage -----------------------------------------------------------------


def to_spec(schedule: Schedule) -> tuple[ScheduleKind, dict[str, Any]]:
    """The schedule as ``tasks.schedule_kind`` and the JSON of ``schedule_spec``."""
    kind = kind_of(schedule)
    if isinstance(schedule, Once):
        return kind, {"at": f"{schedule.at:%Y-%m-%dT%H:%M}"}
    if isinstance(schedule, Daily):
        return kind, {"at": _hhmm(schedule.at)}
    if isinstance(schedule, Weekly):
        return kind, {"weekday": WEEKDAYS[schedule.weekday].lower(), "at": _hhmm(schedule.at)}
    if isinstance(schedule, Monthly):
        return kind, {"day": schedule.day, "at": _hhmm(schedule.at)}
    spec: dict[str, Any] = {"minutes": schedule.minutes}
    if schedule.window is not None:
        spec["window"] = {"start": _hhmm(schedule.window.start), "end": _hhmm(schedule.window.end)}
    return kind, spec


def from_spec(kind: str, spec: Any) -> Schedule:
    """The schedule ``to_spec`` stored; ``ScheduleError`` for a damaged one."""
    try:
        if kind == "once":
            day, _, at = str(spec["at"]).partition("T")
            return Once(datetime.combine(parse_date(day), parse_time(at)))
        if kind == "daily":
            return Daily(parse_time(str(spec["at"])))
        if kind == "weekly":
            return Weekly(parse_weekday(str(spec["weekday"])), parse_time(str(spec["at"])))
        if kind == "monthly":
            return Monthly(_whole(spec["day"]), parse_time(str(spec["at"])))
        if kind == "interval":
            window = spec.get("window")
            return Interval(
                _whole(spec["minutes"]),
                None
                if window is None
                else TimeWindow(parse_time(str(window["start"])), parse_time(str(window["end"]))),
            )
    except (KeyError, TypeError, AttributeError, ScheduleError) as error:
        raise ScheduleError(f"The stored {kind} schedule {spec!r} is damaged: {error}") from error
    raise ScheduleError(f"There is no schedule kind {kind!r}.")


def _whole(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not a whole number")
    return value


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _hhmm(at: time) -> str:
    return f"{at:%H:%M}"


def _check_wall_clock(at: time, zone: tzinfo | None) -> None:
    if zone is not None:
        raise ScheduleError("A schedule's times are wall-clock times, without a time zone.")
    if at.second or at.microsecond:
        raise ScheduleError(f"A schedule runs on whole minutes, not at {at.isoformat()}.")
