"""Round 25: a schedule without a time suggested a fix that would be refused.

"monthly on the 32nd" was told it "needs a time of day: write e.g.
'monthly on the 32nd at 9am'", and that, typed, was refused: 32 is no day
of the month.  What is wrong with the days is said first; only days that
could run are asked for a time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from desktop.core.db.schedules import ScheduleError
from desktop.core.tasks.schedules import parse_schedule

NOW = datetime(2027, 3, 27, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("monthly on the 32nd", "32 is not a day of the month (1 to 31)."),
        ("monthly on the 0th", "0 is not a day of the month (1 to 31)."),
        (
            "monthly on the 31st",
            "'monthly on the 31st' needs a time of day: write e.g. 'monthly on the 31st at 9am'.",
        ),
    ],
)
def test_days_that_cannot_run_are_said_before_a_missing_time(typed: str, said: str) -> None:
    with pytest.raises(ScheduleError) as refused:
        parse_schedule(typed, NOW)

    assert str(refused.value) == said
    if "e.g." in said:  # the example given is one that reads
        example = said.split("e.g. ")[1].strip("'.")
        assert parse_schedule(example, NOW) is not None
