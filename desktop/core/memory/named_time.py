"""``named_period``: the stretch of time a message names ("last Friday", "on 13 October 2023").

A question about the past often says when: "what did I say about the
plumber last week?", "the milestone I mentioned four weeks ago", "what did
Gina find on 1 February, 2023?".  Words and meaning cannot see that; the
messages' dates can.  This reads the first such expression of a message
(English only) as a half-open interval of time in the user's zone, for
the excerpt retriever to prefer what was said then (``ExcerptRetriever``).

What is read: a date written out (``13 October 2023``, ``October 13,
2023``, ``2023-10-13``; without a year, the latest one not after now); a
month (``in May``, ``March 2023``); ``today``, ``yesterday``, ``the day
before yesterday``; a weekday (``last Friday``, ``on Monday``: the latest
one before today); ``this week|month|year``, ``last week|weekend|month|
year``; ``N days|weeks|months|years ago`` (N in digits or words, "a",
"a couple of", "a few"); ``in the past|last N days|weeks|months``.  No
constant is tuned: "N units ago" is that unit's day, week or month with half
a unit either side (one day for days), and "last week" is the fourteen days
before now (people say it of anything from a few days to two weeks back).
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, tzinfo

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|(?-i:May)|june?|"
_MONTH += r"july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(?P<year>\d{4,}+))?"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = "(?P<weekday>" + "|".join(_WEEKDAYS) + ")"
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "a couple of": 2,
    "couple of": 2,
    "two": 2,
    "a few": 3,
    "few": 3,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
_COUNT = r"(?P<n>\d{1,3}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + ")"
_UNIT = r"(?P<unit>day|week|month|year)s?"

Period = tuple[datetime, datetime]
"""[start, end) in the user's zone."""

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        # A time may follow the day ("2023-12-31T23:59").
        ("iso", r"\b(?P<year>(?:19|20)\d\d)[-/](?P<month>[01]?\d)[-/](?P<day>[0-3]?\d)(?!\d)"),
        ("day", rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}{_YEAR}\b"),
        ("day", rf"\b{_MONTH}\s+{_DAY}\b(?!:){_YEAR}"),
        ("ago", rf"\b{_COUNT}\s+{_UNIT}\s+ago\b"),
        ("past", rf"\b(?:in\s+|over\s+|during\s+)?the\s+(?:past|last)\s+{_COUNT}\s+{_UNIT}\b"),
        ("before_yesterday", r"\bthe\s+day\s+before\s+yesterday\b"),
        ("yesterday", r"\byesterday\b"),
        ("today", r"\b(?:today|this\s+morning|tonight|this\s+afternoon|this\s+evening)\b"),
        ("weekend", r"\b(?:last|this\s+past|the\s+past|over\s+the)\s+weekend\b"),
        ("last", r"\b(?:last|this\s+past|the\s+past)\s+(?P<unit>week|month|year)\b"),
        ("this", r"\bthis\s+(?P<unit>week|month|year)\b"),
        ("weekday", rf"\b(?:last|on|this\s+past|past)\s+{_WEEKDAY}\b"),
        ("month", rf"\b(?:in|during|since|back\s+in|early|late|mid)[\s-]+{_MONTH}{_YEAR}\b"),
        ("month", rf"\b{_MONTH}\s+(?P<year>(?:19|20)\d\d)\b"),
    )
]


def named_period(text: str, now: datetime) -> Period | None:
    """The period the first time expression of *text* names, relative to
    *now* (an aware datetime in the user's zone); None when it names none."""
    found: list[tuple[int, Period]] = []
    for kind, pattern in _PATTERNS:
        # The first of its kind that names a day there is ("not 31 April, 2 May").
        for match in pattern.finditer(text):
            if (period := _calendar_period(kind, match, now)) is not None:
                found.append((match.start(), period))
                break
    return min(found, key=lambda f: f[0])[1] if found else None


def _calendar_period(kind: str, match: re.Match[str], now: datetime) -> Period | None:
    """``_period``, None where the calendar ends (a year 0 or 10000, the day
    after 31 December 9999, a moment before year 1 in UTC)."""
    try:
        period = _period(kind, match, now)
        if period is not None:
            period[0].timestamp(), period[1].timestamp()
    except (ValueError, OverflowError):
        return None
    return period


def _period(kind: str, match: re.Match[str], now: datetime) -> Period | None:
    zone = now.tzinfo
    today = now.date()
    groups = match.groupdict()
    if kind in ("iso", "day"):
        day = _date(groups, today)
        return None if day is None else _days(day, 1, zone)
    if kind == "month":
        month = _month_number(groups["month"])
        year = int(groups["year"]) if groups.get("year") else _latest_year(month, 1, today)
        start = date(year, month, 1)
        return _between(start, _add_months(start, 1), zone)
    if kind == "today":
        return _days(today, 1, zone)
    if kind == "yesterday":
        return _days(today - timedelta(days=1), 1, zone)
    if kind == "before_yesterday":
        return _days(today - timedelta(days=2), 1, zone)
    if kind == "weekday":
        back = (today.weekday() - _WEEKDAYS.index(groups["weekday"].lower())) % 7 or 7
        return _days(today - timedelta(days=back), 1, zone)
    if kind == "weekend":
        back = (today.weekday() - 5) % 7 or 7  # the latest Saturday before today
        return _days(today - timedelta(days=back), 2, zone)
    unit = groups.get("unit", "").lower()
    if kind == "this":
        start = {
            "week": today - timedelta(days=today.weekday()),
            "month": today.replace(day=1),
            "year": today.replace(month=1, day=1),
        }[unit]
        return _between(start, today + timedelta(days=1), zone)
    if kind == "last":
        if unit == "week":
            return _between(today - timedelta(days=14), today + timedelta(days=1), zone)
        if unit == "month":
            start = _add_months(today.replace(day=1), -1)
            return _between(start, today.replace(day=1), zone)
        return _between(date(today.year - 1, 1, 1), date(today.year, 1, 1), zone)
    count = _count(groups["n"])
    if count is None:
        return None
    if kind == "past":
        return _between(_back(today, count, unit), today + timedelta(days=1), zone)
    # "N units ago": that day, or that week, month or year with half a unit either side.
    centre = _back(today, count, unit)
    half = timedelta(days={"day": 1, "week": 4, "month": 15, "year": 183}[unit])
    return _between(centre - half, centre + half + timedelta(days=1), zone)


def _date(groups: dict[str, str | None], today: date) -> date | None:
    month_text, day_text = groups["month"] or "", groups["day"] or ""
    month = int(month_text) if month_text.isdigit() else _month_number(month_text)
    day = int(day_text)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    if year_text := groups.get("year"):
        return _valid_date(int(year_text), month, day)
    # The latest one not after today: a 29 February may be years back.
    year = _latest_year(month, day, today)
    return next(filter(None, (_valid_date(y, month, day) for y in range(year, year - 8, -1))), None)


def _valid_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:  # 31 April, the year 0
        return None


def _month_number(text: str) -> int:
    prefix = text.lower().rstrip(".")[:3]
    return MONTHS.index(prefix) + 1


def _latest_year(month: int, day: int, today: date) -> int:
    """The year of the latest *month*/*day* not after *today*."""
    return today.year if (month, day) <= (today.month, today.day) else today.year - 1


def _count(text: str | None) -> int | None:
    if text is None:
        return None
    words = " ".join(text.lower().split())
    return int(words) if words.isdigit() else _NUMBERS.get(words)


def _back(today: date, count: int, unit: str) -> date:
    if unit in ("day", "week"):
        return today - timedelta(days=count * (7 if unit == "week" else 1))
    return _add_months(today, -count * (12 if unit == "year" else 1))


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    last = (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)).day
    return date(year, month, min(day.day, last))


def _days(start: date, days: int, zone: tzinfo | None) -> Period:
    return _between(start, start + timedelta(days=days), zone)


def _between(start: date, end: date, zone: tzinfo | None) -> Period:
    return datetime.combine(start, time(), zone), datetime.combine(end, time(), zone)
