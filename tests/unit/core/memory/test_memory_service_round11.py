"""``one_each``: the fold of one model answer's memories, shared by the
harvest and the dream's preference pass (round 11: the harvest had none).

It judged two texts close in meaning one fact when the longer could stand
for both (``merge_problem``), which holds for "likes green tea" and "likes
black tea" (same length, nothing added to either): with vectors as close
as a near duplicate's, two facts were kept as one.
"""

from __future__ import annotations

import numpy as np

from desktop.core.memory.service import Saying, one_each

CLOSE = np.array([1.0, 0.0], dtype=np.float32)


def _fold(*texts: str) -> list[tuple[str, tuple[int, ...]]]:
    """*texts* folded: each kept text with the numbers of those it stands for."""
    items = [(text, (n,)) for n, text in enumerate(texts)]

    def saying(item: tuple[str, tuple[int, ...]]) -> Saying:
        return item[0], CLOSE  # as close as vectors get

    def joined(
        first: tuple[str, tuple[int, ...]], repeat: tuple[str, tuple[int, ...]]
    ) -> tuple[str, tuple[int, ...]]:
        return first[0], first[1] + repeat[1]

    return one_each(items, saying, joined)


def test_two_facts_that_differ_in_one_word_are_two_however_close_their_vectors() -> None:
    assert _fold("The user likes green tea.", "The user likes black tea.") == [
        ("The user likes green tea.", (0,)),
        ("The user likes black tea.", (1,)),
    ]


def test_a_repeat_with_a_word_more_or_other_capitals_joins_the_first() -> None:
    folded = _fold(
        "The user wants answers without emojis.",
        "The user likes green tea.",
        "THE USER WANTS ANSWERS WITHOUT EMOJIS!",
        "The user wants answers without any emojis.",
    )

    assert folded == [
        ("The user wants answers without emojis.", (0, 2, 3)),
        ("The user likes green tea.", (1,)),
    ]
