"""Round 23 tests of task schedules: a date typed far in the future.

"in 40000 days" was refused as more than a century ahead, but "once on
9999-12-31 23:59" was read, and where the zone is behind UTC (Honolulu,
New York) its instant lies past the last year Python counts: an
``OverflowError`` instead of a message, raised from the tasks window's
hint as the user typed, and from adding the task.  A date is now held to
the century a count of days is.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from desktop.core.db.schedules import ScheduleError
from desktop.core.tasks.schedules import check_upcoming, parse_schedule

NOW = datetime(2026, 11, 30, 9, 0)
ZONES = ["Pacific/Honolulu", "America/New_York", "UTC", "Pacific/Kiritimati"]


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize(
    "phrase", ["once on 9999-12-31 23:59", "9999-12-31 at 11pm", "once on 2128-01-01 09:00"]
)
def test_a_date_more_than_a_century_ahead_is_refused_with_a_message(zone: str, phrase: str) -> None:
    now = NOW.replace(tzinfo=ZoneInfo(zone))
    schedule = parse_schedule(phrase, now)
    assert schedule is not None

    with pytest.raises(ScheduleError, match="too far ahead; give a date within a century"):
        check_upcoming(schedule, now, ZoneInfo(zone))


@pytest.mark.parametrize("zone", ZONES)
def test_a_date_within_a_century_is_still_read(zone: str) -> None:
    now = NOW.replace(tzinfo=ZoneInfo(zone))
    schedule = parse_schedule("once on 2126-11-29 09:00", now)
    assert schedule is not None

    assert f"{check_upcoming(schedule, now, ZoneInfo(zone)):%Y-%m-%d %H:%M}" == "2126-11-29 09:00"
