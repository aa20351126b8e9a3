"""Named pipes where Reverie expects files: what a test needs so that a
Reverie that waits on one fails the test instead of hanging it."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

UNBLOCK_S = 10.0
"""How long a Reverie that waits on a named pipe keeps a test from failing."""


@contextlib.contextmanager
def a_reader_comes_late(pipe: Path) -> Iterator[None]:
    """Opening *pipe* to write waits for a reader: one comes after
    ``UNBLOCK_S``, so a Reverie that waits fails the test instead of
    hanging it; one that does not wait is never read."""
    done = threading.Event()
    readers: list[int] = []

    def come() -> None:
        if not done.wait(UNBLOCK_S):
            readers.append(os.open(pipe, os.O_RDONLY | os.O_NONBLOCK))

    reader = threading.Thread(target=come)
    reader.start()
    try:
        yield
    finally:
        done.set()
        reader.join()
        for descriptor in readers:
            os.close(descriptor)
