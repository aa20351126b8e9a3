"""A task's schedule as stored: the kinds of schedule, their checks, and
the JSON a task row keeps (``to_spec``, ``from_spec``).

When a schedule next runs and how it reads in words live with the tasks
(``desktop.core.tasks.schedules``); this module is what a task row holds, so
the task store reads and writes it without reaching up into the tasks'
room.  Times are wall-clock times, to the minute, without a zone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, tzinfo
from typing import Any, Literal

from desktop.core.base.errors import ReverieError

ScheduleKind = Literal["once", "daily", "weekly", "monthly", "interval"]
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MAX_INTERVAL_MINUTES = 24 * 60
"""Longer gaps are daily, weekly or monthly schedules."""
MAX_EVERY_DAYS = 31
"""Longer gaps between days are monthly schedules."""


class ScheduleError(ReverieError):
    """A schedule that cannot be used: misspelt, impossible, or out of range."""


@dataclass(frozen=True)
class Once:
    at: datetime
    """Naive wall-clock time, to the minute; its fold (1) says the second of
    a time the clocks repeat."""

    def __post_init__(self) -> None:
        check_wall_clock(self.at.time(), self.at.tzinfo)


@dataclass(frozen=True)
class Daily:
    at: time
    every: int = 1
    """Runs every this many days: 1, or 2 to ``MAX_EVERY_DAYS`` counted from *since*."""
    since: date | None = None
    """The day of its first run: needed when it skips days; a daily one may
    have one ("every day from 2027-04-01") or none (from today)."""

    def __post_init__(self) -> None:
        check_wall_clock(self.at, self.at.tzinfo)
        if not 1 <= self.every <= MAX_EVERY_DAYS:
            raise ScheduleError(
                f"Every {self.every} days is not a schedule: it runs every 1 to "
                f"{MAX_EVERY_DAYS} days (longer ones are monthly)."
            )
        if self.every > 1 and self.since is None:
            raise ScheduleError(
                "A schedule that skips days counts them from the day of its first run."
            )


@dataclass(frozen=True)
class Weekly:
    weekdays: tuple[int, ...]
    """0 is Monday, as in ``date.weekday()``; kept in order, each once.  All
    seven is a ``Daily`` schedule, so it is refused here."""
    at: time

    def __post_init__(self) -> None:
        check_wall_clock(self.at, self.at.tzinfo)
        for weekday in self.weekdays:
            if not 0 <= weekday <= 6:
                raise ScheduleError(f"{weekday} is not a weekday (0 is Monday, 6 Sunday).")
        days = tuple(sorted(set(self.weekdays)))
        if not days or len(days) == len(WEEKDAYS):
            raise ScheduleError(
                "A weekly schedule runs on one to six days of the week (every day is daily)."
            )
        object.__setattr__(self, "weekdays", days)  # one spelling of each set: equal when equal


@dataclass(frozen=True)
class Monthly:
    day: int
    """Day of the month; a month without it runs on its last day."""
    at: time

    def __post_init__(self) -> None:
        check_wall_clock(self.at, self.at.tzinfo)
        if not 1 <= self.day <= 31:
            raise ScheduleError(f"{self.day} is not a day of the month (1 to 31).")


@dataclass(frozen=True)
class TimeWindow:
    start: time
    end: time
    """Included; before ``start`` means the window runs past midnight."""

    def __post_init__(self) -> None:
        check_wall_clock(self.start, self.start.tzinfo)
        check_wall_clock(self.end, self.end.tzinfo)
        if self.start == self.end:
            raise ScheduleError(
                f"The time window {hhmm(self.start)}-{hhmm(self.end)} is empty: it closes "
                "the minute it opens. Give a window such as 08:00-20:00."
            )

    def describe(self) -> str:
        return f"{hhmm(self.start)}-{hhmm(self.end)}"


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


def parse_time(text: str) -> time:
    """``HH:MM`` on a 24-hour clock (``9:05`` too), as stored."""
    found = _CLOCK.fullmatch(text.strip())
    if found is None or int(found["hour"]) > 23 or int(found["minute"]) > 59:
        raise ScheduleError(
            f"{quoted(text)} is not a time of day; write it as HH:MM on a 24-hour clock, "
            "00:00 to 23:59."
        )
    return time(int(found["hour"]), int(found["minute"]))


_CLOCK = re.compile(r"(?P<hour>\d{1,2}):(?P<minute>\d{2})")


def parse_date(text: str) -> date:
    """``YYYY-MM-DD``."""
    try:
        year, month, day = (int(part) for part in text.strip().split("-"))
        return date(year, month, day)
    except ValueError:
        raise ScheduleError(
            f"{quoted(text)} is not a date; write it as YYYY-MM-DD, e.g. 2026-12-01."
        ) from None


def parse_weekday(text: str) -> int:
    """A weekday by its English name or its first three letters (0 is Monday)."""
    name = text.strip().lower()
    for number, weekday in enumerate(WEEKDAYS):
        if len(name) >= 3 and weekday.lower().startswith(name):
            return number
    raise ScheduleError(f"{quoted(text)} is not a weekday; write one of {', '.join(WEEKDAYS)}.")


def to_spec(schedule: Schedule) -> tuple[ScheduleKind, dict[str, Any]]:
    """The schedule as ``tasks.schedule_kind`` and the JSON of ``schedule_spec``."""
    kind = kind_of(schedule)
    if isinstance(schedule, Once):
        # The second of a time the clocks repeat ("in an hour" at the first
        # 01:10 of the night they turn back) is said by its fold, which the
        # wall-clock time alone would lose: read again, it would be the first.
        fold = {"fold": 1} if schedule.at.fold else {}
        return kind, {"at": f"{schedule.at:%Y-%m-%dT%H:%M}", **fold}
    if isinstance(schedule, Daily):
        # A schedule skipping days adds to what a daily one stored before.
        skips = (
            {}
            if schedule.since is None
            else {"every": schedule.every, "since": f"{schedule.since}"}
        )
        return kind, {"at": hhmm(schedule.at), **skips}
    if isinstance(schedule, Weekly):
        # One day is stored as before several could be, so older copies still read it.
        names = [WEEKDAYS[weekday].lower() for weekday in schedule.weekdays]
        days: dict[str, Any] = {"weekday": names[0]} if len(names) == 1 else {"weekdays": names}
        return kind, {**days, "at": hhmm(schedule.at)}
    if isinstance(schedule, Monthly):
        return kind, {"day": schedule.day, "at": hhmm(schedule.at)}
    spec: dict[str, Any] = {"minutes": schedule.minutes}
    if schedule.window is not None:
        spec["window"] = {"start": hhmm(schedule.window.start), "end": hhmm(schedule.window.end)}
    return kind, spec


def from_spec(kind: str, spec: Any) -> Schedule:
    """The schedule ``to_spec`` stored; ``ScheduleError`` for a damaged one."""
    try:
        if kind == "once":
            day, _, at = str(spec["at"]).partition("T")
            fold = _whole(spec.get("fold", 0))
            if fold not in (0, 1):
                raise TypeError(f"{fold!r} is not a fold (0 or 1)")
            return Once(datetime.combine(parse_date(day), parse_time(at)).replace(fold=fold))
        if kind == "daily":
            since = spec.get("since")
            return Daily(
                parse_time(str(spec["at"])),
                _whole(spec.get("every", 1)),
                None if since is None else parse_date(str(since)),
            )
        if kind == "weekly":
            names = spec["weekdays"] if "weekdays" in spec else [spec["weekday"]]
            if not isinstance(names, list):
                raise TypeError(f"{names!r} is not a list of weekdays")
            days = tuple(parse_weekday(str(name)) for name in names)
            return Weekly(days, parse_time(str(spec["at"])))
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


MOST_SHOWN = 60
"""Characters of a typed phrase quoted in a message: a pasted page is not."""


def shown(text: str) -> str:
    """*text* to quote in a message: its first ``MOST_SHOWN`` characters."""
    return text if len(text) <= MOST_SHOWN else f"{text[: MOST_SHOWN - 1]}\u2026"


def quoted(typed: str) -> str:
    """What was *typed* (a phrase, a time, a word of it), quoted in a
    message as every schedule message quotes it: shortened to ``MOST_SHOWN``
    characters, spacing around it aside."""
    return repr(shown(typed.strip()))


def hhmm(at: time) -> str:
    return f"{at:%H:%M}"


def check_wall_clock(at: time, zone: tzinfo | None) -> None:
    if zone is not None:
        raise ScheduleError("A schedule's times are wall-clock times, without a time zone.")
    if at.second or at.microsecond:
        raise ScheduleError(f"A schedule runs on whole minutes, not at {at.isoformat()}.")
