"""Round 18: the condenser took words moved between tasks or across a denial."""

from __future__ import annotations

import pytest

from desktop.core.chat.condenser import unfaithful

TASKS = """[P1] #1 Take warfarin [daily at 08:00]
[P1] #2 Take aspirin [daily at 20:00]
[P1] #3 Call Anna, not Tom, about the will
[P1] #4 Sign the lease, do not sign the loan"""


@pytest.mark.parametrize(
    "condensed",
    [
        TASKS.replace("warfarin", "\0").replace("aspirin", "warfarin").replace("\0", "aspirin"),
        TASKS.replace("Call Anna, not Tom", "Call Tom, not Anna"),
        TASKS.replace(
            "Sign the lease, do not sign the loan", "Sign the loan, do not sign the lease"
        ),
    ],
)
def test_words_moved_between_or_within_lines_are_not_used(condensed: str) -> None:
    assert unfaithful(TASKS, condensed) is not None


def test_a_shorter_list_saying_the_same_is_used() -> None:
    condensed = """[P1] #1 Take warfarin [daily 08:00]
[P1] #2 Take aspirin [daily 20:00]
[P1] #3 Call Anna, not Tom, re will
[P1] #4 Sign lease, not the loan"""
    assert unfaithful(TASKS, condensed) is None
