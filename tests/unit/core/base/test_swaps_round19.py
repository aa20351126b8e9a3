"""Round 19 (F8): a rewrite that swaps words around keeps every word,
number and denial, so every check by word sets passed it: a dose's time,
a payment's payee, a transfer's direction, a cleaning chemical.  Orders
and pairings are compared now (``content_words.swapped``, ``exchanged``)
by every check of a rewrite: a task's new text, a condensed prompt list,
a merged memory, a rewritten skill; rewrites that keep the sides pass."""

from __future__ import annotations

import pytest

from desktop.core.base.content_words import exchanged, swapped
from desktop.core.chat.condenser import unfaithful as condensed_unfaithful
from desktop.core.dreaming.dedup import unfaithful as merge_unfaithful
from desktop.core.dreaming.evidence import changed_steps
from desktop.core.tasks.rewrites import unfaithful as task_unfaithful

SWAPS = [
    (
        "Transfer 500 euros from savings to checking",
        "Transfer 500 euros from checking to savings",
    ),
    (
        "Take warfarin at 08:00 and aspirin at 20:00",
        "Take aspirin at 08:00 and warfarin at 20:00",
    ),
    ("Pay Anna 50 euros and Tom 5 euros", "Pay Tom 50 euros and Anna 5 euros"),
    ("Take warfarin without aspirin", "Take aspirin without warfarin"),
    (
        "Use the blue folder instead of the red one for taxes",
        "Use the red folder instead of the blue one for taxes",
    ),
    ("Feed the cat before the dog", "Feed the dog before the cat"),
    (
        "Transfer 500 euros from savings to checking",
        "Transfer 500 euros to savings from checking",
    ),
    (
        "Scrub the tiles with bleach and rinse with water",
        "Scrub the tiles with water and rinse with bleach",
    ),
]
SAME_SIDES = [
    (
        "Transfer 500 euros from savings to checking",
        "Transfer 500 euros to checking from savings",
    ),
    ("Remember to call mum", "Call mum"),
    ("Feed the cat before the dog", "Before the dog, feed the cat"),
    ("Take 1 tablet of warfarin at 08:00", "Take 1 warfarin tablet at 08:00"),
    ("Take warfarin at 08:00", "At 08:00, take warfarin"),
    ("Call mum on Sunday", "On Sunday, call mum"),
    ("Water the plants every 3 days", "Every 3 days, water the plants"),
    (
        "The user moved from Berlin to Paris in 2020",
        "In 2020 the user moved from Berlin to Paris",
    ),
    ("Cook pasta with garlic and oil", "Cook pasta with oil and garlic"),
]


@pytest.mark.parametrize(("old", "new"), SWAPS)
def test_words_swapped_around_are_found(old: str, new: str) -> None:
    assert swapped(new, [old])
    assert task_unfaithful(old, new, ["Can you tidy up that task?"])
    assert merge_unfaithful([old], new)


@pytest.mark.parametrize(("old", "new"), SAME_SIDES)
def test_a_rewrite_that_keeps_every_word_on_its_side_swaps_nothing(old: str, new: str) -> None:
    assert swapped(new, [old]) == []


def test_a_new_time_the_user_gave_is_no_swap() -> None:
    said = ["Take the tablets at 09:00 from now on"]
    assert swapped("Take 2 tablets at 09:00", ["Take 2 tablets at 08:00", *said]) == []
    assert task_unfaithful("Take 2 tablets at 08:00", "Take 2 tablets at 09:00", said) is None


def test_a_condensed_line_may_not_trade_the_times_of_the_lines_it_joins() -> None:
    original = "[P1] #1: Take warfarin [daily at 08:00]\n[P1] #2: Take aspirin [daily at 20:00]"
    joined = "[P1] #1: Take aspirin [daily at 08:00] / [P1] #2: Take warfarin [daily at 20:00]"
    faithful = "[P1] #1: Take warfarin [daily at 08:00] / [P1] #2: Take aspirin [daily at 20:00]"

    refused = condensed_unfaithful(original, joined)

    assert refused is not None and "swaps" in refused
    assert condensed_unfaithful(original, faithful) is None


def test_a_skill_rewrite_may_not_trade_words_between_its_steps() -> None:
    steps = "1. Scrub the tiles with bleach.\n2. Clean the mirror with vinegar."
    traded = "1. Scrub the tiles with vinegar.\n2. Clean the mirror with bleach."
    merged = "1. Scrub the tiles with bleach, then clean the mirror with vinegar."

    assert exchanged(traded, [steps]) == ["blea/vine"]
    assert changed_steps([steps], traded) == "swaps “blea/vine”"
    assert exchanged(merged, [steps]) == []
    assert changed_steps([steps], merged) is None
