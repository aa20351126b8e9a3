"""How a piece of work grows with its input, measured as a ratio side by side
(never against a clock: a loaded machine slows both sizes alike) in this
process's CPU time, which other work on the machine does not add to."""

from __future__ import annotations

import time
from collections.abc import Callable

FACTOR = 4
"""How much larger the second input is."""
LINEAR = 2 * FACTOR
"""The most a linear reading grows by over ``FACTOR`` times the input, with
room for noise; a quadratic one grows by ``FACTOR ** 2``."""


MOST_ROUNDS = 6
"""Rounds run while the ratio still looks worse than linear: a busy machine
once slowed one run of a linear reading to 8.6 times the small one, while a
quadratic reading stays near ``FACTOR ** 2`` however many rounds it gets."""


def growth(work: Callable[[int], object], size: int, rounds: int = 2) -> float:
    """How much more CPU ``work(FACTOR * size)`` takes than ``work(size)``:
    the best of *rounds* alternating runs of each, and of more rounds (up to
    ``MOST_ROUNDS``) while that is not below ``LINEAR``.  CPU, not the
    clock: a run the machine set aside for other processes was measured
    with that wait in it (10.1 times the small one, round 31)."""
    best = [float("inf"), float("inf")]
    done = 0
    while done < rounds or (done < MOST_ROUNDS and best[1] / best[0] >= LINEAR):
        for index, n in enumerate((size, FACTOR * size)):
            started = time.process_time()
            work(n)
            best[index] = min(best[index], time.process_time() - started)
        done += 1
    return best[1] / best[0]
