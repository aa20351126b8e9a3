"""Round 18: the dream's task-update check accepted words moved within a
task and a number or verb taken from a user's sentence about something else."""

from __future__ import annotations

import pytest

from desktop.core.tasks.rewrites import unfaithful

LONG_DAY = "I had a long day at work."


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("Sign the lease, do not sign the loan", "Sign the loan, do not sign the lease", LONG_DAY),
        ("Call Anna, not Tom, about the will", "Call Tom, not Anna, about the will", LONG_DAY),
        ("Give the dog its pills, not the cat", "Give the cat its pills, not the dog", LONG_DAY),
        (
            "Take 1 tablet of warfarin at 08:00",
            "Take 10 tablet of warfarin at 08:00",
            "I walked 10 km today, a long day at work.",
        ),
        (
            "Renew the passport before the trip",
            "Cancel the passport before the trip",
            "I had to cancel my gym class, long day at work.",
        ),
    ],
)
def test_a_moved_or_borrowed_word_waits_for_approval(old: str, new: str, said: str) -> None:
    assert unfaithful(old, new, [said]) is not None


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (
            "Call the dentist",
            "Call the dentist on Friday",
            "Can you move the dentist call to Friday?",
        ),
        (
            "Take 1 tablet of warfarin at 08:00",
            "Take 2 tablets of warfarin at 08:00",
            "I walked 10 km. My doctor says 2 tablets of warfarin now.",
        ),
    ],
)
def test_words_the_user_said_of_the_task_may_change_it(old: str, new: str, said: str) -> None:
    assert unfaithful(old, new, [said]) is None
