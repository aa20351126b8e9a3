"""Writing a download's bytes to its ``.part`` file on a thread of its own.

Writing and ``hashlib``'s ``update`` both release the GIL, so they run
beside the reads of the next bytes (tests/bench/download.py).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

WRITE_BATCH = 1024 * 1024
MAX_BATCH_CHUNKS = 256  # well under any system's IOV_MAX (1024 on Linux)
MAX_PENDING = 4  # batches waiting for the writer thread


class PartWriter:
    """Writes and hashes the part on a thread of its own, overlapping the next reads.

    Writing and ``hashlib``'s ``update`` both release the GIL, so they run
    beside the reads (tests/bench/download.py).  Chunks go over in batches of
    about a megabyte, written with one ``writev`` and no copy (through a
    ``BufferedWriter`` the copying and calls cost as much CPU as curl's whole
    download); few batches may wait, so a slow disk slows the download
    instead of filling the memory.
    """

    def __init__(self, fd: int, update_hash: Callable[[bytes], None]) -> None:
        self._fd = fd
        self._update_hash = update_hash
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="download-writer")
        self._pending: deque[Future[None]] = deque()
        self._batch: list[bytes] = []
        self._batch_bytes = 0
        self._failed = False

    def write(self, chunk: bytes) -> None:
        """Queue *chunk*; raises the error of an earlier write."""
        self._batch.append(chunk)
        self._batch_bytes += len(chunk)
        if self._batch_bytes >= WRITE_BATCH or len(self._batch) >= MAX_BATCH_CHUNKS:
            self._hand_over()
        while self._pending and (self._pending[0].done() or len(self._pending) > MAX_PENDING):
            self._pending.popleft().result()

    def close(self) -> None:
        """Write what is queued and close the file; raises the first write's error."""
        try:
            self._hand_over()
            while self._pending:
                self._pending.popleft().result()
        finally:
            self._thread.shutdown(wait=True)
            os.close(self._fd)

    def _hand_over(self) -> None:
        if self._batch:
            self._pending.append(self._thread.submit(self._store, self._batch))
            self._batch, self._batch_bytes = [], 0

    def _store(self, chunks: list[bytes]) -> None:
        if self._failed:
            return  # never write past a failed write: the part would have a hole
        try:
            for chunk in chunks:
                self._update_hash(chunk)
            write_all(self._fd, chunks)
        except BaseException:
            self._failed = True
            raise


def write_all(fd: int, chunks: list[bytes]) -> None:
    """Write *chunks* in order, in as few system calls as the platform allows."""
    views = [memoryview(chunk) for chunk in chunks]
    while views:
        # Windows has no writev: one chunk a call there.
        written = os.writev(fd, views) if hasattr(os, "writev") else os.write(fd, views[0])
        while views and written >= len(views[0]):
            written -= len(views.pop(0))
        if views and written:  # a short write: the rest of this chunk comes next
            views[0] = views[0][written:]
