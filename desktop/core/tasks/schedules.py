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

``parse_schedule`` reads the words ``describe`` writes and what people type
("weekdays at 8:30", "tomorrow 9", "in 20 minutes", "9:15 pm", "noon").  A
phrase counted from now ("tomorrow", "in 20 minutes") becomes a ``once`` at
the wall-clock time it means, so it needs the caller's *now*, read in the
user's zone; without one it is refused.  A phrase that could mean two things
(a time without a day, several days without "every") is refused with what
would work, never guessed.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Annotated

from pydantic import Field

from desktop.core.base.digits import without_leading_zeros
from desktop.core.db.schedules import (
    MAX_EVERY_DAYS,
    MAX_INTERVAL_MINUTES,
    WEEKDAYS,
    Daily,
    Interval,
    Monthly,
    Once,
    Schedule,
    ScheduleError,
    TimeWindow,
    Weekly,
    hhmm,
    parse_date,
    quoted,
)

_LOOKAHEAD_DAYS = 64  # runs of a monthly schedule are at most 31 days apart


class ScheduleInPast(ScheduleError):
    """A schedule whose every run lies in the past (a ``once`` already gone)."""


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
        run = _once(schedule, zone)
        return run.astimezone(zone) if run is not None and run > after_utc else None
    if isinstance(schedule, Interval):
        return _next_interval(schedule, after_utc, zone)
    first_day = after_utc.astimezone(zone).date()
    if (since := _first_day(schedule)) is not None:
        first_day = max(first_day, since)
    for offset in range(_LOOKAHEAD_DAYS):
        day = first_day + timedelta(days=offset)
        if _runs_on(schedule, day):
            run = _instant(day, schedule.at, zone)
            if run > after_utc:
                return run.astimezone(zone)
    raise AssertionError(f"{schedule} has no run in {_LOOKAHEAD_DAYS} days")  # pragma: no cover


def check_upcoming(schedule: Schedule, now: datetime, zone: tzinfo) -> datetime:
    """The next run after *now*; ``ScheduleInPast`` if there is none,
    ``ScheduleError`` if it is more than a century ahead (as "in 40000 days"
    is: year 9999's last minute, behind UTC, is past the last instant)."""
    today = now.astimezone(zone).date()
    first = schedule.at.date() if isinstance(schedule, Once) else _first_day(schedule)
    if first is not None and (first - today).days > _MOST_DAYS_AHEAD:
        raise ScheduleError(f"{_capitalised(describe(schedule))} {_TOO_FAR}")
    run = next_run(schedule, now, zone)
    if run is None:
        local_now = now.astimezone(zone)
        raise ScheduleInPast(
            f"{_capitalised(describe(schedule))} is in the past (it is now "
            f"{local_now:%Y-%m-%d %H:%M}); give a time still to come."
        )
    return run


def realigned(schedule: Schedule, stored: datetime, now: datetime, zone: tzinfo) -> datetime:
    """The run a stored next run (*stored*, computed in some zone, perhaps
    another than *zone*) stands for when *schedule* is read in *zone*.

    In the zone it was computed in, *stored* is its own answer, so reading
    the same zone again never moves a run (a run missed while the computer
    slept stays due).  In another zone: a ``once`` runs at its wall-clock
    time there (said late if that has passed, never dropped); a recurring
    schedule's missed run becomes its first run in *zone* at or after the
    one missed, and a run still to come its first run in *zone* after now.
    """
    if isinstance(schedule, Once):
        run = _once(schedule, zone)
        return stored if run is None else run.astimezone(zone)
    # Runs fall on whole minutes: a second before *stored* asks "at or after"
    # it; a run at *now* itself may have been made already (strictly after).
    # In UTC: a second before 03:00 on the night clocks skip 02:00-03:00 is
    # 02:59:59 on the wall, a time that never comes, read an hour later.
    before = stored.astimezone(UTC) - timedelta(seconds=1)
    run = next_run(schedule, min(before, now.astimezone(UTC)), zone)
    assert run is not None  # only a ``once`` runs out of runs
    return run


def _first_day(schedule: Schedule) -> date | None:
    """The day a schedule that skips days starts on; None for any other."""
    return schedule.since if isinstance(schedule, Daily) else None


def _runs_on(schedule: Daily | Weekly | Monthly, day: date) -> bool:
    if isinstance(schedule, Weekly):
        return day.weekday() in schedule.weekdays
    if isinstance(schedule, Monthly):
        last = calendar.monthrange(day.year, day.month)[1]
        return day.day == min(schedule.day, last)
    return schedule.since is None or (day - schedule.since).days % schedule.every == 0


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


def _once(schedule: Once, zone: tzinfo) -> datetime | None:
    """When *schedule* runs, in UTC; None past the last instant Python counts
    (year 9999's last hours, behind UTC: an older version stored such dates)."""
    try:
        return _instant(schedule.at.date(), schedule.at.time(), zone)
    except OverflowError:
        return None


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
        if schedule.since is not None:
            every = "every day" if schedule.every == 1 else f"every {schedule.every} days"
            return f"{every} from {schedule.since} at {hhmm(schedule.at)}"
        return f"daily at {hhmm(schedule.at)}"
    if isinstance(schedule, Weekly):
        if schedule.weekdays in _NAMED_WEEKS:
            return f"{_NAMED_WEEKS[schedule.weekdays]} at {hhmm(schedule.at)}"
        days = listed([WEEKDAYS[weekday] for weekday in schedule.weekdays])
        return f"weekly on {days} at {hhmm(schedule.at)}"
    if isinstance(schedule, Monthly):
        return f"monthly on day {schedule.day} at {hhmm(schedule.at)}"
    every = "every minute" if schedule.minutes == 1 else f"every {schedule.minutes} minutes"
    return f"{every} {schedule.window.describe()}" if schedule.window else every


_NAMED_WEEKS = {(0, 1, 2, 3, 4): "weekdays", (5, 6): "weekends"}
"""Sets of weekdays ``describe`` names in one word."""
_NO_SCHEDULE = ("", "none", "no schedule", "never")
EXAMPLES = (
    "'once on 2026-12-01 09:00', 'daily at 09:00', 'weekly on Monday at 09:00', "
    "'monthly on day 1 at 09:00', 'every 30 minutes' or 'every 30 minutes 08:00-20:00'"
)
TYPED_EXAMPLES = (
    "'tomorrow at 9am', 'every day at 9am', 'every 3 days at 9am', 'weekdays at 8:30', "
    "'mondays and thursdays at 18:00', 'monthly on the 1st at 9am', 'every 30 minutes' or "
    "'in 20 minutes'"
)
"""What a person may type, for the UI (``EXAMPLES`` is what the model writes)."""
_HH_MM = "([01][0-9]|2[0-3]):[0-5][0-9]"
_DAY_NAME = f"({'|'.join(WEEKDAYS)})"
_DATE = "20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
SCHEDULE_PATTERN = (
    f"^(none|once on {_DATE} {_HH_MM}"
    f"|daily at {_HH_MM}"
    f"|every (day|([2-9]|[12][0-9]|3[01]) days) from {_DATE} at {_HH_MM}"
    f"|weekly on {_DAY_NAME}((, {_DAY_NAME})* and {_DAY_NAME})? at {_HH_MM}"
    f"|(weekdays|weekends) at {_HH_MM}"
    f"|monthly on day ([1-9]|[12][0-9]|3[01]) at {_HH_MM}"
    f"|every (minute|[1-9][0-9]{{0,3}} minutes)( {_HH_MM}-{_HH_MM})?)$"
)
"""The phrases ``describe`` writes (and ``none``), for a model's output
grammar; ``parse_schedule`` reads more than this."""

_NOT_A_TIME = (
    "{} is not a time of day; write it as HH:MM on a 24-hour clock, 00:00 to 23:59, "
    "or as 9am or 9:15pm."
)
_TIME_WORDS = {"noon": time(12), "midday": time(12), "midnight": time(0)}
_TIME_SHAPE = re.compile(r"(?P<hour>\d{1,2})(?:[:.](?P<minute>\d{2}))?(?P<half>am|pm)?")
_INTERVAL = re.compile(
    r"(?:every (?:(?P<count>\d+) )?(?P<unit>minutes?|mins?|hours?|hrs?)|(?P<hourly>hourly))"
    r"(?: (?:from |between )?(?P<start>[^\s-]+) ?(?:-|to|and) ?(?P<end>\S+))?"
)
_FROM_NOW = re.compile(
    r"(?:once )?in (?:(?P<count>\d+|an?|one) (?P<unit>minutes?|mins?|hours?|hrs?|days?|weeks?)"
    r"|(?P<half>half an hour))"
)
_EVERY_DAY = re.compile(r"daily|everyday|(?:every|each) day")
_EVERY_DAYS = re.compile(
    r"(?:every (?:(?P<count>\d+) days?|(?P<other>other) day)|daily|(?:every|each) day)"
    r"(?: (?:from|starting) (?P<since>\S+))?"
)
"""Every so many days, perhaps from a first day ("every day from" too: a
plain "every day" is read as daily before this is tried)."""
_WORK_WEEK = re.compile(
    r"(?:(?:on|every|each) )?weekdays?|mon(?:day)? ?(?:-|to|through|thru) ?fri(?:day)?"
)
_WEEKEND = re.compile(r"(?:(?:on|every|each|at) (?:the )?)?weekends?")
_MONTHLY = re.compile(
    r"(?:monthly|(?:every|each) month)(?: on)?(?: the| day)? (?P<day>\d{1,3})(?:st|nd|rd|th)?"
    r"|(?:on )?the (?P<nth>\d{1,3})(?:st|nd|rd|th)? of (?:every|each) month"
)
_ON_DATE = re.compile(r"(?:once )?(?:on )?(?P<date>\d{4}-\d{1,2}-\d{1,2})")
_SOON = re.compile(
    r"(?:once )?(?:(?P<word>today|tomorrow)|in (?P<count>\d+|an?|one) (?P<unit>days?|weeks?))"
)
_EVERY_WEEK_LEADS = (("weekly", "on"), ("on", "every"), ("every",), ("each",), ("weekly",))
_ONE_DAY_LEADS = (("on", "next"), ("next",), ("on",))
_SEPARATORS = frozenset({",", "and"})
_WEEKDAY_ALIASES = {"weds": 2}
_ALL_WEEK = tuple(range(len(WEEKDAYS)))
_MOST_DAYS_AHEAD = 100 * 366
_TOO_FAR = "is too far ahead; give a date within a century."
_MOST_DIGITS = 9
"""Digits a typed count may have, leading zeros aside: more than any
schedule can use (a century is 52,704,000 minutes).  A longer one is refused
before ``int`` reads it, which refuses over 4,300 digits with Python's words."""
_MOST_SUGGESTED = 120
"""Characters of typed days a message suggests to copy ("every Monday, ...
and Sunday" is 90): longer, they were pasted, and a plain example stands."""


SCHEDULE_CHARS = 60
"""The longest schedule a model may write."""
ScheduleWords = Annotated[
    str,
    # In the grammar only: a phrase outside it gets parse_schedule's clearer message.
    Field(min_length=1, max_length=SCHEDULE_CHARS, json_schema_extra={"pattern": SCHEDULE_PATTERN}),
]
"""A schedule as a model writes it, in words the grammar reads."""


def parse_schedule(text: str, now: datetime | None = None) -> Schedule | None:
    """A schedule written in words; None for ``none``.

    Reads ``describe``'s words and what people type: "every day at 9am",
    "weekdays at 8:30", "mondays and thursdays at 18:00", "monthly on the 1st
    at noon", "tomorrow 9", "in 20 minutes", "every hour", with 24-hour or
    am/pm times, in any case and spacing.  What counts from today needs
    *now* (aware, in the user's zone): it is read as a ``once`` at the time
    it means then.  ``ScheduleError`` says what is wrong and what would work.
    """
    words = _normalised(text)
    if words in _NO_SCHEDULE:
        return None
    typed = _Typed(quoted(text), now)
    if found := _INTERVAL.fullmatch(words):
        return _interval(found, typed)
    if found := _FROM_NOW.fullmatch(words):
        return _from_now(found, typed)
    # Each way of parting the words is tried in turn ("midday monthly on day
    # 1" is not "midday monthly on day" at 1); the first to read wins, and
    # if none does, the first to say what is wrong with it says so.
    refusal: ScheduleError | None = None
    for tokens, clock, said_at in _splits(words.split()):
        try:
            if (schedule := _read_parted(tokens, clock, said_at, typed)) is not None:
                return schedule
        except ScheduleError as error:
            refusal = refusal or error
    raise refusal or ScheduleError(
        f"{typed.quoted} is not a schedule Reverie understands; write "
        + (f"{EXAMPLES}." if now is None else f"e.g. {TYPED_EXAMPLES}.")
    )


def _read_parted(
    tokens: list[str], clock: str | None, said_at: bool, typed: _Typed
) -> Schedule | None:
    """Days (*tokens*) at a time of day (*clock*) as a schedule; None if the
    days are not days; ``ScheduleError`` if they are, but will not do."""
    if not tokens:  # a time of day alone: which day is anyone's guess
        if clock is None or (clock.isdigit() and not said_at):
            return None
        _typed_time(clock)
        raise ScheduleError(
            f"{typed.quoted} needs a day: write e.g. 'today at {clock}', "
            f"'tomorrow at {clock}' or 'every day at {clock}'."
        )
    days = _days(tokens, typed)
    if days is None:
        return None
    if clock is None:
        # What is wrong with the days is said first ("the 32nd"): else the
        # example below, typed, would be refused.
        days.at(time(9))
        raise ScheduleError(
            f"{typed.quoted} needs a time of day: write e.g. "
            f"'{_example(days.words, 'every monday')} at 9am'."
        )
    return days.at(_typed_time(clock))


@dataclass(frozen=True)
class _Typed:
    """A phrase being read: as typed (quoted for messages, shortened), and
    the time it was typed."""

    quoted: str
    now: datetime | None

    def clock(self) -> datetime:
        if self.now is None:
            raise ScheduleError(
                f"{self.quoted} counts from now, which is not known here; write the date "
                "instead, e.g. 'once on 2026-12-01 09:00'."
            )
        return self.now


@dataclass(frozen=True)
class _Days:
    """The days a typed phrase runs on, before its time of day: some days of
    the week (all seven: daily), a day of the month, or one date."""

    words: str
    weekdays: tuple[int, ...] = ()
    month_day: int | None = None
    on: date | None = None
    every: int = 1
    """Every so many days (all seven weekdays): from *since*, or else from
    the first day its time is still to come after it was typed."""
    since: date | None = None
    typed: _Typed | None = None

    def at(self, clock: time) -> Schedule:
        if self.on is not None:
            return Once(datetime.combine(self.on, clock))
        if self.month_day is not None:
            return Monthly(self.month_day, clock)
        if set(self.weekdays) != set(_ALL_WEEK):
            return Weekly(self.weekdays, clock)
        if self.every == 1:
            return Daily(clock, 1, self.since)
        if (since := self.since) is None:
            typed = self.typed or _Typed(quoted(self.words), None)
            if typed.now is None:
                raise ScheduleError(
                    f"{typed.quoted} counts from today, which is not known here; write "
                    f"the day of the first run, e.g. 'every {self.every} days from 2026-12-01 "
                    "at 09:00'."
                )
            now = typed.now
            since = now.date() + timedelta(days=clock <= now.time())
        return Daily(clock, self.every, since)


def _normalised(text: str) -> str:
    """Lower case, single spaces, "9 a.m." as "9am", commas as words."""
    words = text.strip().lower().replace("\u2013", "-").replace("&", " and ")
    words = re.sub(r"\b([ap])\.m\b\.?", r"\1m", words)
    words = re.sub(r"(\d)\s*([ap]m)\b", r"\1\2", words)
    words = re.sub(r"(\d{4}-\d{1,2}-\d{1,2})t(?=\d)", r"\1 ", words)  # ISO 8601's T
    words = words.rstrip(".").replace(",", " , ")
    return " ".join(words.split())


def _splits(tokens: list[str]) -> Iterator[tuple[list[str], str | None, bool]]:
    """The ways *tokens* part into days and a time of day (and whether "at"
    came before it): the time last ("every day at 9"), first ("9am
    tomorrow"), or none."""
    if tokens and _looks_like_time(tokens[-1]):
        said_at = tokens[-2:-1] == ["at"]
        yield _trimmed(tokens[: -2 if said_at else -1]), tokens[-1], said_at
    lead = 1 if tokens[:1] == ["at"] else 0
    if len(tokens) > lead + 1 and _looks_like_time(tokens[lead]):
        yield _trimmed(tokens[lead + 1 :]), tokens[lead], lead == 1
    yield _trimmed(tokens), None, False


def _trimmed(tokens: list[str]) -> list[str]:
    while tokens[:1] == [","]:
        tokens = tokens[1:]
    while tokens[-1:] == [","]:
        tokens = tokens[:-1]
    return tokens


def _looks_like_time(token: str) -> bool:
    return token in _TIME_WORDS or _TIME_SHAPE.fullmatch(token) is not None


def _typed_time(token: str, *, bare_hour: bool = True) -> time:
    """A time of day as typed: 09:00, 9:05, 9am, 9:15pm, 12am (00:00), noon,
    midnight, and (*bare_hour*) 9 for 09:00."""
    if token in _TIME_WORDS:
        return _TIME_WORDS[token]
    found = _TIME_SHAPE.fullmatch(token)
    if found is None or not (bare_hour or found["minute"] or found["half"]):
        raise ScheduleError(_NOT_A_TIME.format(quoted(token)))
    hour, minute = int(found["hour"]), int(found["minute"] or 0)
    if minute > 59:
        raise ScheduleError(_NOT_A_TIME.format(quoted(token)))
    if found["half"] is not None:
        if not 1 <= hour <= 12:
            raise ScheduleError(
                f"{quoted(token)} is not a time of day: with am or pm the hour is 1 to 12; "
                "write e.g. 9pm, or 21:00 on a 24-hour clock."
            )
        hour = hour % 12 + (12 if found["half"] == "pm" else 0)
    if hour > 23:
        raise ScheduleError(_NOT_A_TIME.format(quoted(token)))
    return time(hour, minute)


def _interval(found: re.Match[str], typed: _Typed) -> Interval:
    count = _count(
        found["count"] or "1",
        typed,
        f"is not a schedule: the interval is 1 to {MAX_INTERVAL_MINUTES} minutes (longer ones "
        "are daily, weekly or monthly).",
    )
    minutes = count if found["unit"] and found["unit"].startswith("m") else count * 60
    window = None
    if found["start"] is not None:
        window = TimeWindow(
            _typed_time(found["start"], bare_hour=False), _typed_time(found["end"], bare_hour=False)
        )
    return Interval(minutes, window)


def _from_now(found: re.Match[str], typed: _Typed) -> Once:
    """A ``once`` so long after now, on the minute at or after it."""
    now = typed.clock()
    count = 30 if found["half"] else _count(found["count"], typed, _TOO_FAR)
    unit = "minutes" if found["half"] else found["unit"]
    if count == 0:
        raise ScheduleError(
            f"{typed.quoted} is now; give a time still to come, e.g. 'in 5 minutes'."
        )
    span = _span(count, unit, typed)
    if unit.startswith(("d", "w")):  # aware arithmetic keeps the time of day, as calendars do
        moment = now + span
    else:  # real minutes, across a change of the clocks too
        moment = (now.astimezone(UTC) + span).astimezone(now.tzinfo)
    whole = moment.replace(second=0, microsecond=0)
    return Once((whole if whole == moment else whole + timedelta(minutes=1)).replace(tzinfo=None))


_TOO_MANY_DAYS = (
    f"is not a schedule: it runs every 1 to {MAX_EVERY_DAYS} days (longer ones are monthly, "
    "e.g. 'monthly on the 1st at 9am')."
)


def _since(word: str, typed: _Typed) -> date:
    """The day a schedule skipping days starts: a date, today or tomorrow."""
    if word in ("today", "tomorrow"):
        return typed.clock().date() + timedelta(days=word == "tomorrow")
    return parse_date(word)


def _count(word: str, typed: _Typed, too_many: str) -> int:
    """*word* as a count: "a", "an", "one" or digits, leading zeros aside;
    ``ScheduleError`` (the phrase, then *too_many*) past ``_MOST_DIGITS``."""
    if word in ("a", "an", "one"):
        return 1
    # \d matches the digits of every script, so Arabic-Indic zeros lead too.
    significant = without_leading_zeros(word)
    if len(significant) > _MOST_DIGITS:
        raise ScheduleError(f"{typed.quoted} {too_many}")
    return int(significant or "0")


def _span(count: int, unit: str, typed: _Typed) -> timedelta:
    """*count* minutes, hours, days or weeks (*unit*); refused past a century."""
    minutes = count * {"m": 1, "h": 60, "d": 24 * 60, "w": 7 * 24 * 60}[unit[0]]
    if minutes > _MOST_DAYS_AHEAD * 24 * 60:
        raise ScheduleError(f"{typed.quoted} {_TOO_FAR}")
    return timedelta(minutes=minutes)


def _days(tokens: list[str], typed: _Typed) -> _Days | None:
    """The days *tokens* name; None if they name none (another reading may)."""
    words = " ".join(tokens)
    if _EVERY_DAY.fullmatch(words):
        return _Days(words, _ALL_WEEK)
    if found := _EVERY_DAYS.fullmatch(words):
        every = 2 if found["other"] else _count(found["count"] or "1", typed, _TOO_MANY_DAYS)
        since = None if found["since"] is None else _since(found["since"], typed)
        return _Days(words, _ALL_WEEK, every=every, since=since, typed=typed)
    if _WORK_WEEK.fullmatch(words):
        return _Days(words, (0, 1, 2, 3, 4))
    if _WEEKEND.fullmatch(words):
        return _Days(words, (5, 6))
    if found := _MONTHLY.fullmatch(words):
        return _Days(words, month_day=int(found["day"] or found["nth"]))
    if found := _ON_DATE.fullmatch(words):
        return _Days(words, on=parse_date(found["date"]))
    if found := _SOON.fullmatch(words):
        today = typed.clock().date()
        if found["word"] is not None:
            return _Days(words, on=today + timedelta(days=found["word"] == "tomorrow"))
        count = _count(found["count"], typed, _TOO_FAR)
        return _Days(words, on=today + _span(count, found["unit"], typed))
    return _weekday_list(tokens, typed)


def _weekday_list(tokens: list[str], typed: _Typed) -> _Days | None:
    """Days of the week: every week for "every monday", "mondays and
    thursdays", "weekly on Monday, Wednesday and Friday"; once, on the first
    after today, for "monday" or "next monday"."""
    every = _lead(tokens, _EVERY_WEEK_LEADS)
    rest = tokens[len(every or _lead(tokens, _ONE_DAY_LEADS)) :]
    if not rest or rest[0] in _SEPARATORS or rest[-1] in _SEPARATORS:
        return None
    named = [word for word in rest if word not in _SEPARATORS]
    days: list[int] = []
    plural = False
    for word in named:
        if (found := _weekday_word(word)) is None:
            if every[:1] == ("weekly",) or word.endswith(("day", "days")):
                raise ScheduleError(
                    f"{quoted(word)} is not a weekday; write one of {', '.join(WEEKDAYS)}."
                )
            return None
        days.append(found[0])
        plural = plural or found[1]
    words = " ".join(tokens)
    if every or plural:
        return _Days(words, tuple(days))
    if len(days) > 1:
        raise ScheduleError(
            f"{typed.quoted} could mean once or every week; write 'every "
            f"{_example(listed(named), 'monday')} at 9am' for every week, or one day for once."
        )
    today = typed.clock().date()
    return _Days(words, on=today + timedelta(days=(days[0] - today.weekday() - 1) % 7 + 1))


def _lead(tokens: list[str], leads: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    """The first of *leads* that *tokens* begin with; () for none."""
    return next((lead for lead in leads if tuple(tokens[: len(lead)]) == lead), ())


def _weekday_word(word: str) -> tuple[int, bool] | None:
    """The weekday *word* names, and whether it is plural ("mondays"); "mon",
    "tues", "thurs" and other beginnings of three letters or more are names too."""
    plural = word.endswith("days")
    stem = word[:-1] if plural else word
    name = stem.removesuffix("day")
    if name in _WEEKDAY_ALIASES:
        return _WEEKDAY_ALIASES[name], plural
    for number, weekday in enumerate(WEEKDAYS):
        if len(name) >= 3 and weekday.lower().startswith(name):
            return number, plural
    return None


def listed(items: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


# -- storage -----------------------------------------------------------------


def _example(days: str, plain: str) -> str:
    """Typed *days* for a message to suggest whole (it must read as typed,
    so it is never shortened); the *plain* example when they are too long."""
    return days if len(days) <= _MOST_SUGGESTED else plain


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]
