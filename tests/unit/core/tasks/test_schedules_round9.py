"""Round 9: a schedule holding a number of thousands of digits, typed or
pasted ("in 000…0005 minutes", "every 999…9 minutes"), is read or refused
like any other phrase, never with Python's words about integer conversion.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.core.db.schedules import ScheduleError
from desktop.core.tasks.schedules import parse_schedule

NOW = datetime(2026, 11, 24, 9, 0, tzinfo=ZoneInfo("Europe/London"))
HUGE = "9" * 5000  # past int()'s 4,300-digit limit
JUST_UNDER = "9" * 4299  # int() reads it; as hours, its minutes have 4,301 digits


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"in {HUGE} minutes", "too far ahead"),
        (f"in {HUGE} weeks", "too far ahead"),
        (f"in {HUGE} days at 9am", "too far ahead"),
        (f"every {HUGE} minutes", "the interval is 1 to 1440 minutes"),
        (f"every {HUGE} hours 08:00-20:00", "the interval is 1 to 1440 minutes"),
        (f"every {JUST_UNDER} hours", "the interval is 1 to 1440 minutes"),
        (f"in {JUST_UNDER} hours", "too far ahead"),
    ],
    ids=[
        "in-minutes",
        "in-weeks",
        "in-days",
        "every-minutes",
        "every-hours-window",
        "every-4299-digit-hours",
        "in-4299-digit-hours",
    ],
)
def test_a_number_of_thousands_of_digits_is_refused_as_out_of_range(
    text: str, message: str
) -> None:
    with pytest.raises(ScheduleError, match=message) as refused:
        parse_schedule(text, NOW)

    # The message quotes the phrase, shortened: a line under the field, not a page.
    assert len(str(refused.value)) < 300


@pytest.mark.parametrize(
    ("padded", "plain"),
    [
        ("in " + "0" * 5000 + "5 minutes", "in 5 minutes"),
        ("every " + "0" * 5000 + "30 minutes", "every 30 minutes"),
        ("in " + "0" * 5000 + "2 days at 9am", "in 2 days at 9am"),
        ("in " + "\u0660" * 5000 + "\u0665 minutes", "in 5 minutes"),  # Arabic-Indic digits
    ],
    ids=["in-minutes", "every-minutes", "in-days", "arabic-indic"],
)
def test_leading_zeros_of_any_length_are_read_as_the_number(padded: str, plain: str) -> None:
    assert parse_schedule(padded, NOW) == parse_schedule(plain, NOW)


@settings(max_examples=60, deadline=None)
@given(
    zeros=st.integers(0, 6000),
    length=st.integers(1, 6000),
    digit=st.sampled_from("123456789"),
    shape=st.sampled_from(
        [
            "in {} minutes",
            "in {} hours",
            "in {} days at 9am",
            "in {} weeks",
            "every {} minutes",
            "every {} hours",
            "every {} hours 08:00-20:00",
        ]
    ),
)
def test_any_count_is_read_or_refused_with_a_short_schedule_error(
    zeros: int, length: int, digit: str, shape: str
) -> None:
    try:
        parse_schedule(shape.format("0" * zeros + digit * length), NOW)
    except ScheduleError as error:
        assert len(str(error)) < 300
