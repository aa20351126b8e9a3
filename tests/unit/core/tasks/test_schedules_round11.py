"""Round 11: every piece of a typed schedule a message quotes is shortened
as the phrase is (``_MOST_SHOWN``): an interval's window time ("every 2 hours
from 000…09:00 to 17:00") was quoted whole, a message of 5,000 characters."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.core.db.schedules import ScheduleError, parse_date, parse_time, parse_weekday
from desktop.core.tasks.schedules import parse_schedule

NOW = datetime(2026, 11, 24, 9, 0, tzinfo=ZoneInfo("Europe/London"))
ZEROS = "0" * 5000
ARABIC_ZEROS = "\u0660" * 5000
LONG = 300
"""A message longer than this quotes more than a line under the field."""


@pytest.mark.parametrize(
    "text",
    [
        f"every 2 hours from {ZEROS}9:00 to 17:00",
        f"every 90 minutes between 8:00 and {ARABIC_ZEROS}17:00",
        f"every 2 hours from 9:00 to 17:{ZEROS}",
        f"every 2 hours from 9:00 to 17:00{'x' * 5000}",
        f"every {'monday' * 1000}day at 9am",
        f"weekly on {'x' * 5000} at 9am",
        "every " + "monday " * 1000,
        "monday and " * 1000 + "friday at 9am",
    ],
    ids=[
        "window-start-zeros",
        "window-end-arabic-zeros",
        "window-end-minutes",
        "window-end-letters",
        "weekday-word",
        "weekly-word",
        "days-without-a-time",
        "once-or-every-week",
    ],
)
def test_a_long_piece_of_a_schedule_is_quoted_shortened(text: str) -> None:
    with pytest.raises(ScheduleError) as refused:
        parse_schedule(text, NOW)

    assert len(str(refused.value)) < LONG
    assert "\u2026" in str(refused.value)  # shortened, not left out


@pytest.mark.parametrize("parse", [parse_time, parse_date, parse_weekday])
def test_a_long_stored_field_is_quoted_shortened(parse: object) -> None:
    with pytest.raises(ScheduleError) as refused:
        parse(ZEROS)  # type: ignore[operator]  # each takes the field's text

    assert len(str(refused.value)) < LONG


@settings(max_examples=60, deadline=None)
@given(
    zeros=st.integers(0, 6000),
    digits=st.sampled_from(["0", "\u0660", "\uff10"]),
    time=st.sampled_from(["9:00", "17:00", "9:5", "25:00", "9am", "13pm"]),
    shape=st.sampled_from(
        [
            "every 2 hours from {} to 17:00",
            "every 2 hours from 8:00 to {}",
            "every 90 minutes between {} and 18:00",
            "every day at {}",
            "tomorrow at {}",
        ]
    ),
)
def test_any_padded_time_is_read_or_refused_with_a_short_message(
    zeros: int, digits: str, time: str, shape: str
) -> None:
    try:
        parse_schedule(shape.format(digits * zeros + time), NOW)
    except ScheduleError as error:
        assert len(str(error)) < LONG
