"""Round 21: ``named_period`` fed impossible dates, odd years and two dates.

Found: "29 February" without a year named nothing in a year that has none
(the latest one, 2024's, was meant); a year outside 1900-2099 was dropped
and the date read as this year's ("on 13 October 1066" as 13 October 2026,
the messages said then preferred); "in December 9999" would have raised
once such years were read; the first date of a kind that was impossible hid
a later one ("not 31 April, I mean 2 May 2023" read as all of May); and a
date with a time glued to it ("2023-12-31T23:59") named nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from desktop.core.memory.named_time import named_period

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)  # 2026 has no 29 February


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("what did I say on 29 February?", "2024-02-29", "2024-03-01"),
        ("the leap day, Feb 29th", "2024-02-29", "2024-03-01"),
        ("on 13 October 1066", "1066-10-13", "1066-10-14"),
        ("October 13, 1850", "1850-10-13", "1850-10-14"),
        ("in March 1850", "1850-03-01", "1850-04-01"),
        ("not 31 April, I mean 2 May 2023", "2023-05-02", "2023-05-03"),
        ("was it 30 February or 3 March 2024?", "2024-03-03", "2024-03-04"),
        ("the log at 2023-12-31T23:59 said", "2023-12-31", "2024-01-01"),
    ],
)
def test_an_odd_date_names_its_own_day(text: str, start: str, end: str) -> None:
    period = named_period(text, NOW)

    assert period is not None
    assert (period[0].date().isoformat(), period[1].date().isoformat()) == (start, end)


@pytest.mark.parametrize(
    "text",
    [
        "October 13, 10000",
        "in December 9999",
        "on 31 December 9999",
        "in the year 10000",
        "on 13 October 0000",
        "2023-02-29",
        "31 February",
    ],
)
def test_a_date_no_calendar_holds_names_no_period(text: str) -> None:
    assert named_period(text, NOW) is None
