"""Scanning streamed model text for markers that may arrive split across pieces."""

from __future__ import annotations

from collections.abc import Sequence


class StopScanner:
    """Holds back text that might be the start of a stop string."""

    def __init__(self, stops: Sequence[str]) -> None:
        self._stops = [s for s in stops if s]
        self._held = ""
        self.rest = ""
        """What followed the stop string in the piece that completed it."""

    def feed(self, piece: str) -> tuple[str, bool]:
        """The text that is surely not part of a stop string, and whether one was found."""
        pending = self._held + piece
        found = [(at, -len(stop)) for stop in self._stops if (at := pending.find(stop)) >= 0]
        if found:  # the earliest stop wins (the longest, of those starting there)
            at, minus_length = min(found)
            self._held = ""
            self.rest = pending[at - minus_length :]
            return pending[:at], True
        keep = max((overlap(pending, s) for s in self._stops), default=0)
        self._held = pending[len(pending) - keep :] if keep else ""
        return pending[: len(pending) - keep], False

    def flush(self) -> str:
        held, self._held = self._held, ""
        return held


def overlap(text: str, stop: str) -> int:
    """Length of the longest suffix of *text* that is a prefix of *stop*."""
    for size in range(min(len(text), len(stop) - 1), 0, -1):
        if stop.startswith(text[-size:]):
            return size
    return 0
