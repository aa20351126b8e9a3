"""``SignIndex``: the sign bits of every memory's vector, in memory, for a fast first pass.

Two unit vectors whose signs agree in more places tend to be closer, so the
Hamming distance between sign bits ranks candidates for a search by meaning
at a fraction of the cost: 48 bytes a memory for 384 dimensions, compared a
64-bit word at a time.  The index only proposes; ``VectorSearch`` re-scores
the proposals exactly with their float vectors.

Status and category ride along as small codes, so a filtered search picks
its candidates among the memories that pass the filter (and so always finds
as many as there are).  Nothing here touches the database: the owner loads
the index and hands it the rows that changed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from desktop.core.db.memory_rows import MEMORY_STATUSES

IndexRow = tuple[int, bytes, str, str]
"""A memory's id, sign bits, status and category."""
Mark = tuple[int, bytes | None]
"""A change log entry: its number and its token (see schema_v3)."""

_GONE = -1  # the status code of a memory no longer in the index
_STATUS_CODES: dict[str, int] = {status: code for code, status in enumerate(MEMORY_STATUSES)}
Ids = npt.NDArray[np.int64]


class SignIndex:
    """Sign bits, status and category of memories, by id.  ``lock`` guards
    every use: the owner holds it while it brings the index up to date and
    searches, so a search never sees half an update."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: Mark = (-1, None)
        """The last change of the owner's log applied: its number (-1: never
        loaded) and token, so a change rolled back under it is noticed."""
        self._ids: Ids = np.empty(0, np.int64)
        # One row per 64-bit word, one column per memory: summing a few long
        # rows is several times faster in numpy than many rows of six.
        self._signs: npt.NDArray[np.uint64] = np.empty((0, 0), np.uint64)
        self._status: npt.NDArray[np.int8] = np.empty(0, np.int8)
        self._category: npt.NDArray[np.int32] = np.empty(0, np.int32)
        self._categories: dict[str, int] = {}

    def __len__(self) -> int:
        return int(np.count_nonzero(self._status != _GONE))

    def load(self, rows: Sequence[IndexRow], seen: Mark) -> None:
        """Hold exactly *rows*, which reflect the changes up to *seen*."""
        ordered = sorted(rows)
        self._ids = np.fromiter((row[0] for row in ordered), np.int64, len(ordered))
        self._signs = _words(row[1] for row in ordered)
        self._status = np.fromiter(
            (_STATUS_CODES[row[2]] for row in ordered), np.int8, len(ordered)
        )
        self._category = np.fromiter(
            (self._category_code(row[3]) for row in ordered), np.int32, len(ordered)
        )
        self.seen = seen

    def update(self, changed: Iterable[int], rows: Sequence[IndexRow], seen: Mark) -> None:
        """The memories *changed* now read as *rows* (absent: no vector any more)."""
        present = {row[0]: row for row in rows}
        known = self._positions(np.fromiter(changed, np.int64))
        for memory_id, position in known.items():
            row = present.pop(memory_id, None)
            if row is None:
                self._status[position] = _GONE
            else:
                self._signs[:, position] = _words([row[1]])[:, 0]
                self._status[position] = _STATUS_CODES[row[2]]
                self._category[position] = self._category_code(row[3])
        if present:
            self._add(list(present.values()))
        if np.count_nonzero(self._status == _GONE) > len(self._ids) // 4:
            self._compact()
        self.seen = seen

    def nearest(
        self,
        signs: bytes,
        count: int,
        statuses: Sequence[str],
        category: str | None,
        other_than: str | None = None,
    ) -> list[int]:
        """Ids of up to *count* memories with the fewest sign bits unlike
        *signs*, among those with one of *statuses* (any, if empty) and
        *category* (any, if None), never *other_than*."""
        codes = [_STATUS_CODES[status] for status in statuses if status in _STATUS_CODES]
        if not statuses:
            eligible = self._status != _GONE
        elif len(codes) == 1:
            eligible = self._status == codes[0]
        else:  # several, or none known
            eligible = np.isin(self._status, codes)
        if category is not None:
            eligible &= self._category == self._categories.get(category, -1)
        if other_than is not None:
            eligible &= self._category != self._categories.get(other_than, -1)
        total = int(np.count_nonzero(eligible))
        if total == 0 or count < 1:
            return []
        if total <= count:
            return [int(i) for i in self._ids[eligible]]
        query = np.frombuffer(padded(signs), np.uint64)
        if len(query) != len(self._signs):  # a vector of another model's size
            return []
        distances = np.zeros(len(self._ids), np.int32)
        for word, row in zip(query, self._signs, strict=True):
            distances += popcount(row ^ word)
        distances[~eligible] = np.iinfo(np.int32).max
        best = np.argpartition(distances, count - 1)[:count]
        return [int(i) for i in self._ids[best]]

    def _positions(self, memory_ids: Ids) -> dict[int, int]:
        """Where the known ones of *memory_ids* are."""
        places = np.searchsorted(self._ids, memory_ids)
        found = places < len(self._ids)
        found[found] = self._ids[places[found]] == memory_ids[found]
        return {int(i): int(p) for i, p in zip(memory_ids[found], places[found], strict=True)}

    def _add(self, rows: list[IndexRow]) -> None:
        ids = np.fromiter((row[0] for row in rows), np.int64, len(rows))
        signs = _words(row[1] for row in rows)
        status = np.fromiter((_STATUS_CODES[row[2]] for row in rows), np.int8, len(rows))
        category = np.fromiter((self._category_code(row[3]) for row in rows), np.int32, len(rows))
        self._ids = np.concatenate([self._ids, ids])
        self._signs = signs if not self._signs.size else np.concatenate([self._signs, signs], 1)
        self._status = np.concatenate([self._status, status])
        self._category = np.concatenate([self._category, category])
        # New memories have the largest ids; a vector given to an older one
        # (embedded later) needs the ids sorted again.
        if len(ids) and len(self._ids) > len(ids) and ids.min() < self._ids[: -len(ids)].max():
            self._keep(np.argsort(self._ids, kind="stable"))

    def _compact(self) -> None:
        self._keep(np.flatnonzero(self._status != _GONE))

    def _keep(self, positions: npt.NDArray[np.intp]) -> None:
        self._ids = self._ids[positions]
        self._signs = self._signs[:, positions]
        self._status = self._status[positions]
        self._category = self._category[positions]

    def _category_code(self, category: str) -> int:
        return self._categories.setdefault(category, len(self._categories))


def _words(blobs: Iterable[bytes]) -> npt.NDArray[np.uint64]:
    """Sign-bit blobs, all of one length, as columns of 64-bit words."""
    listed = [padded(blob) for blob in blobs]
    if not listed:
        return np.empty((0, 0), np.uint64)
    joined = np.frombuffer(b"".join(listed), np.uint64)
    # A copy, always: for a single blob the transpose is already contiguous,
    # and a view of the read-only buffer would refuse the next update.
    return joined.reshape(len(listed), len(listed[0]) // 8).T.copy()


def padded(signs: bytes) -> bytes:
    """*signs* filled with zero bytes to whole 64-bit words (a dimension not a
    multiple of 64); the same zeros on both sides change no distance."""
    return signs + bytes(-len(signs) % 8)


def popcount(words: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint8]:
    """The number of set bits of each 64-bit word."""
    counted = getattr(np, "bitwise_count", None)
    if counted is not None:  # numpy 2
        return counted(words)  # type: ignore[no-any-return]  # untyped under numpy 1
    return _swar_popcount(words).astype(np.uint8)


def _swar_popcount(words: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """Set bits per word by the classic parallel sum (numpy 1 has no bitwise_count)."""
    x = words - ((words >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    counted: npt.NDArray[np.uint64] = (x * np.uint64(0x0101010101010101)) >> np.uint64(56)
    return counted
