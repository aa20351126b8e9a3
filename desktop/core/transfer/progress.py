"""What a long import reports to, and asks whether to stop.

The pattern of orange3's ``concurrent.py``: an import is a plain function
given a small state object; the window gives one that emits signals, the
command line one that prints (``PlainState``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol


class ImportState(Protocol):
    def set_progress(self, done: int, total: int) -> None:
        """*done* of *total* steps (conversations, rows) handled."""

    def is_cancelled(self) -> bool:
        """Whether to stop at the next step, keeping nothing half-imported."""


class PlainState:
    """An ``ImportState`` with no window: progress goes to *on_progress* and
    is kept (``done``, ``total``); ``cancel()`` may be called from any thread."""

    def __init__(self, on_progress: Callable[[int, int], object] | None = None) -> None:
        self.done = 0
        self.total = 0
        self._on_progress = on_progress
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        self._cancelled.set()

    def set_progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if self._on_progress is not None:
            self._on_progress(done, total)

    def is_cancelled(self) -> bool:
        return self._cancelled.is_set()
