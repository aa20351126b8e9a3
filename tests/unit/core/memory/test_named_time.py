"""``named_period``: the stretch of time a message names, read against now."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from desktop.core.memory.named_time import named_period

NOW = datetime(2023, 3, 28, 20, 35, tzinfo=UTC)  # a Tuesday


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("What painting did Melanie show on October 13, 2023?", "2023-10-13", "2023-10-14"),
        ("What did Gina find for her store on 1 February, 2023?", "2023-02-01", "2023-02-02"),
        ("I met her on the 3rd of March", "2023-03-03", "2023-03-04"),
        ("what about 2023/02/01", "2023-02-01", "2023-02-02"),
        ("what happened on 2022-12-24", "2022-12-24", "2022-12-25"),
        ("the gig on April 9", "2022-04-09", "2022-04-10"),  # the latest April 9 before now
        ("the milestone I mentioned four weeks ago", "2023-02-24", "2023-03-05"),
        ("what I posted 5 days ago", "2023-03-22", "2023-03-25"),
        ("a couple of days ago", "2023-03-25", "2023-03-28"),
        ("the artist I started listening to last Friday", "2023-03-24", "2023-03-25"),
        ("at 10:30 on Monday", "2023-03-27", "2023-03-28"),
        ("the bike I fixed the past weekend", "2023-03-25", "2023-03-27"),
        ("yesterday", "2023-03-27", "2023-03-28"),
        ("the day before yesterday", "2023-03-26", "2023-03-27"),
        ("this morning", "2023-03-28", "2023-03-29"),
        ("last week", "2023-03-14", "2023-03-29"),
        ("last month", "2023-02-01", "2023-03-01"),
        ("this month", "2023-03-01", "2023-03-29"),
        ("last year", "2022-01-01", "2023-01-01"),
        ("in the past three months", "2022-12-28", "2023-03-29"),
        ("in May we went", "2022-05-01", "2022-06-01"),
        ("back in march", "2023-03-01", "2023-04-01"),
        ("March 2021", "2021-03-01", "2021-04-01"),
        ("a year ago", "2021-09-26", "2022-09-28"),
    ],
)
def test_what_a_message_names(text: str, start: str, end: str) -> None:
    period = named_period(text, NOW)

    assert period is not None
    assert (period[0].date().isoformat(), period[1].date().isoformat()) == (start, end)


@pytest.mark.parametrize(
    "text",
    [
        "What is my dog called?",
        "you may 2 of them",  # 'may' is a month only as 'May'
        "I may go",
        "the meeting is at 10:30",
        "on 31 April",  # no such day
        "a week",
        "",
    ],
)
def test_no_time_named(text: str) -> None:
    assert named_period(text, NOW) is None


def test_the_first_time_named_counts() -> None:
    period = named_period("yesterday I said what I did last month", NOW)

    assert period is not None and period[0].date().isoformat() == "2023-03-27"


def test_a_period_is_in_the_users_zone() -> None:
    tokyo = timezone(timedelta(hours=9))
    late = datetime(2023, 3, 28, 23, 30, tzinfo=tokyo)

    period = named_period("yesterday", late)

    assert period == (datetime(2023, 3, 27, tzinfo=tokyo), datetime(2023, 3, 28, tzinfo=tokyo))
