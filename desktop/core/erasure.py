"""``Eraser``: deleted memories and conversations, erased for good when their time is up.

A deletion is restorable for ``DreamSettings.deleted_kept_days``; then (after
each dream, and at start) it is erased: gone from the database file, its
WAL, its full-text indexes, its vectors and every snapshot taken before a
dream (``desktop.core.db.purge``), and ``MEMORIES.md`` is written again
without it.  "Delete now" erases at once.  With a restore window of 0 days a
deletion is erased by the next purge (after the next dream, or at start).

Erasing rewrites the whole database file (``VACUUM``): seconds for a large
one, so callers run it off the UI thread.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from desktop.core.db import Database, MemoryStore
from desktop.core.db.purge import Erasable, PurgeStore
from desktop.core.dreaming.snapshots import complete_snapshots
from desktop.core.dreaming.working_set import write_working_set
from desktop.core.errors import EnvironmentProblem

log = logging.getLogger(__name__)

DAY = 86_400.0


@dataclass(frozen=True)
class Erasure:
    """What one erasure did."""

    memories: int
    conversations: int
    snapshots: int
    """Snapshot files that held some of it, and were purged too."""
    wal_truncated: bool

    def describe(self) -> str:
        """A sentence for a dream report or a banner."""
        if not (self.memories or self.conversations):
            return "Nothing was due to be erased."
        parts = [
            _count(self.memories, "memory", "memories"),
            _count(self.conversations, "conversation", "conversations"),
        ]
        said = f"Erased {' and '.join(p for p in parts if p)} for good"
        if self.snapshots:
            said += f", from the database and {_count(self.snapshots, 'snapshot', 'snapshots')}"
        if not self.wal_truncated:
            # Another program was reading the file; SQLite empties the WAL at the next chance.
            said += "; a copy stays in the database's write-ahead log until Reverie closes"
        return said + "."


class Eraser:
    """Erases deletions from *database*, the snapshots in *snapshots_dir* and
    the working set file (``MEMORIES.md``), keeping each deletion restorable
    for *kept_days* (a callable: the setting may change while Reverie runs)."""

    def __init__(
        self,
        database: Database,
        store: MemoryStore,
        *,
        snapshots_dir: Path,
        working_set_file: Path,
        working_set_size: Callable[[], int],
        kept_days: Callable[[], float],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._purge = PurgeStore(database)
        self._store = store
        self._snapshots_dir = snapshots_dir
        self._working_set_file = working_set_file
        self._working_set_size = working_set_size
        self._kept_days = kept_days
        self._clock = clock

    def erase_memories(self, memory_ids: Iterable[int]) -> Erasure:
        """Erase these memories now, whatever their status ("Delete now")."""
        return self._erase(Erasable(memory_ids=tuple(memory_ids)))

    def erase_conversations(self, conversation_ids: Iterable[int]) -> Erasure:
        """Erase these conversations and their messages now ("Delete now")."""
        return self._erase(Erasable(conversation_ids=tuple(conversation_ids)))

    def erase_expired(self) -> Erasure:
        """Erase what was deleted longer ago than the restore window."""
        return self._erase(self._purge.expired(self._clock() - self._kept_days() * DAY))

    def erase_after_dream(self) -> str:
        """``erase_expired`` for the end of a dream: what it did, or why it
        could not, as a sentence for the dream's report (the dream itself
        is done either way)."""
        try:
            return self.erase_expired().describe()
        except EnvironmentProblem as problem:
            log.warning("erasing expired deletions failed: %s", problem)
            return f"Expired deletions were not erased: {problem}"

    def erased_on(self, memory_ids: Iterable[int]) -> dict[int, float]:
        """When each deleted one of *memory_ids* will be erased for good."""
        window = self._kept_days() * DAY
        return {i: at + window for i, at in self._purge.deleted_at(memory_ids).items()}

    def conversation_erased_on(self, deleted_at: float) -> float:
        """When a conversation deleted at *deleted_at* will be erased for good."""
        return deleted_at + self._kept_days() * DAY

    def _erase(self, items: Erasable) -> Erasure:
        erased = self._purge.erase(items, self._clock()) if items else Erasable()
        if not erased:
            return Erasure(0, 0, 0, wal_truncated=True)
        # Ids only: the point is that the text is gone, from the log too.
        log.info(
            "erasing for good: memories %s, conversations %s",
            list(erased.memory_ids),
            list(erased.conversation_ids),
        )
        compacted = self._purge.compact()
        snapshots = self._purge_snapshots()
        if erased.memory_ids:
            self._rewrite_working_set()
        return Erasure(
            len(erased.memory_ids), len(erased.conversation_ids), snapshots, compacted.wal_truncated
        )

    def _purge_snapshots(self) -> int:
        """Erase everything ever erased from every snapshot; how many held some."""
        if not self._snapshots_dir.is_dir():
            return 0
        everything = self._purge.erased()
        return sum(
            self._purge.purge_copy(path, everything)
            # What an interrupted copy left is not a snapshot: the next one removes it.
            for path in complete_snapshots(self._snapshots_dir)
        )

    def _rewrite_working_set(self) -> None:
        if not self._working_set_file.exists():
            return  # no dream wrote one yet: nothing in it to take out
        try:
            write_working_set(self._store, self._working_set_file, self._working_set_size())
        except OSError as error:
            raise EnvironmentProblem(
                f"The memories were erased, but MEMORIES.md could not be written again: {error}",
                "It still lists them until it is written; free some disk space, then dream.",
            ) from error


def _count(n: int, one: str, many: str) -> str:
    return "" if n == 0 else f"1 {one}" if n == 1 else f"{n} {many}"
