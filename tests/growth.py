"""How a piece of work grows with its input, measured as a ratio side by side
(never against a clock: a loaded machine slows both sizes alike)."""

from __future__ import annotations

import time
from collections.abc import Callable

FACTOR = 4
"""How much larger the second input is."""
LINEAR = 2 * FACTOR
"""The most a linear reading grows by over ``FACTOR`` times the input, with
room for noise; a quadratic one grows by ``FACTOR ** 2``."""


def growth(work: Callable[[int], object], size: int, rounds: int = 2) -> float:
    """How much longer ``work(FACTOR * size)`` takes than ``work(size)``: the
    best of *rounds* alternating runs of each."""
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for index, n in enumerate((size, FACTOR * size)):
            started = time.perf_counter()
            work(n)
            best[index] = min(best[index], time.perf_counter() - started)
    return best[1] / best[0]
