"""Round 23: the line under the schedule field, for a date typed far ahead.

Typing "once on 9999-12-31 23:59" where the zone is behind UTC raised an
``OverflowError`` from the hint's slot on every key press; it now says the
date is too far ahead, as saving does.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from desktop.ui.tasks.views import read_schedule

HONOLULU = ZoneInfo("Pacific/Honolulu")


def test_the_hint_says_a_date_too_far_ahead_instead_of_failing() -> None:
    now = datetime(2026, 11, 30, 9, 0, tzinfo=HONOLULU)

    reading = read_schedule("once on 9999-12-31 23:59", now, HONOLULU)

    assert reading.schedule is None and reading.next_run is None
    assert reading.said(now, HONOLULU) == (
        "Once on 9999-12-31 23:59 is too far ahead; give a date within a century."
    )
