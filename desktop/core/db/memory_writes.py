"""``MemoryWrites``: every change to a memory, inside one open transaction.

A memory lives in four places that must agree: its ``memories`` row, its
full-text row (kept by triggers), its vector row in ``memory_embeddings``
(tagged with the model that made it; the change log a search's sign index
catches up from is kept by triggers) and ``memory_history``.  Each method
here changes all the places it affects and writes the history row, so a
caller holding the transaction (a single ``MemoryStore`` call, or a dream
pass applying many changes at once) gets all of them or, on rollback, none.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop.core.base.errors import ReverieError
from desktop.core.db.connection import Transaction
from desktop.core.db.conversations import ConversationStore
from desktop.core.db.errors import EditConflict, RowNotFound, UnusableVector
from desktop.core.db.memory_rows import (
    MEMORY_STATUSES,
    HistoryOperation,
    Memory,
    MemorySources,
    MemoryStatus,
    NewMemory,
    check_actor,
    content_hash,
    memory_from_row,
    select_columns,
)

Embedding = npt.NDArray[np.floating[Any]]

_STATUS_OPERATION: dict[MemoryStatus, HistoryOperation] = {
    "active": "restore",
    "superseded": "supersede",
    "archived": "archive",
    "deleted": "delete",
}
RESTORED_FIELDS = (
    "category",
    "importance",
    "faded_importance",
    "pinned",
    "status",
    "superseded_by",
    "valid_to",
    "decayed_through",
)
"""What ``restore`` puts back: everything a dream may change but the text."""


class NoLongerActive(ReverieError):
    """A memory left the active list (merged, archived, deleted) after the
    writer read it; the edit was not applied.  ``str()`` says so, for the user."""

    def __init__(self, memory: Memory) -> None:
        self.memory_id = memory.id
        self.status = memory.status
        self.superseded_by = memory.superseded_by
        if memory.status == "superseded" and memory.superseded_by is not None:
            what = f"was merged into memory #{memory.superseded_by}"
            then = f"Correct memory #{memory.superseded_by} instead: it is the one Reverie uses."
        elif memory.status == "superseded":
            what, then = "was replaced by a newer memory", "Correct the newer memory instead."
        else:
            what, then = f"was {memory.status}", "Restore it first, then edit it again."
        super().__init__(
            f"Memory #{memory.id} {what} while you edited it, so your edit was not saved"
            f" into it. {then}"
        )


def vector_blob(embedding: Embedding) -> bytes:
    """*embedding* as sqlite-vec stores it; refused if it cannot be one."""
    vector = np.asarray(embedding, dtype=np.float32)
    if vector.ndim != 1 or vector.size == 0 or vector.size % 8:
        raise UnusableVector(int(vector.size))
    if not np.all(np.isfinite(vector)):
        raise ValueError("an embedding must be finite (no NaN or infinity)")
    return vector.tobytes()


def checked_blob(item: NewMemory) -> bytes | None:
    """Refuse a bad *item* before anything is written; its vector as stored."""
    if not item.content.strip():
        raise ValueError("a memory needs some content")
    if not 0.0 <= item.importance <= 1.0:
        raise ValueError(f"importance must be between 0 and 1, not {item.importance}")
    if item.reinforcement_count < 1:
        raise ValueError("a memory is seen at least once")
    return None if item.embedding is None else vector_blob(item.embedding)


class MemoryWrites:
    """The memory changes of transaction *tx*, all by *actor* at time *now*."""

    def __init__(
        self,
        tx: Transaction,
        *,
        now: float,
        actor: str,
        dream_run_id: int | None = None,
        dream_change_id: int | None = None,
    ) -> None:
        self._tx = tx
        self.now = now
        self._actor = check_actor(actor)
        self._dream_run_id = dream_run_id
        self._dream_change_id = dream_change_id

    @property
    def transaction(self) -> Transaction:
        """The transaction these changes belong to, for other stores' writes
        that must commit with them (a harvest's watermark)."""
        return self._tx

    def current(self, memory_id: int) -> Memory:
        """The memory as this transaction sees it; reading it here avoids a race."""
        row = self._tx.fetch_one(
            f"SELECT {select_columns('m')} FROM memories m WHERE m.id = ?", (memory_id,)
        )
        if row is None:
            raise RowNotFound("memories", memory_id)
        return memory_from_row(row)

    def sources(self, memory_id: int) -> MemorySources:
        rows = self._tx.fetch_all(
            "SELECT message_id, external_ref FROM memory_sources WHERE memory_id = ?"
            " ORDER BY message_id, external_ref",
            (memory_id,),
        )
        return MemorySources(
            message_ids=tuple(row[0] for row in rows if row[0] is not None),
            external_refs=tuple(row[1] for row in rows if row[1] is not None),
        )

    def erased_since(self, moment: float) -> bool:
        """Whether a memory was erased for good at or after *moment* (no text of it
        is kept: a writer that read before cannot tell whether it repeats it)."""
        found = self._tx.fetch_value(
            "SELECT 1 FROM erased_items WHERE kind = 'memory' AND erased_at >= ? LIMIT 1",
            (moment,),
        )
        return found is not None

    def blob(self, embedding: Embedding) -> bytes:
        """*embedding* as the vector table stores it."""
        return vector_blob(embedding)

    def add(self, item: NewMemory, blob: bytes | None = None) -> int:
        """Store *item* (its vector given as *blob*, see ``checked_blob``); its id."""
        first_seen = self.now if item.first_seen_at is None else item.first_seen_at
        last_seen = self.now if item.last_seen_at is None else item.last_seen_at
        memory_id: int = self._tx.fetch_value(
            "INSERT INTO memories (content, category, source_kind, importance,"
            " reinforcement_count, pinned, created_at, last_seen_at, valid_from,"
            " content_hash, embedding_model, flags, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                item.content,
                item.category,
                item.source_kind,
                item.importance,
                item.reinforcement_count,
                int(item.pinned),
                first_seen,
                last_seen,
                first_seen,
                content_hash(item.content),
                item.embedding_model if blob is not None else None,
                json.dumps(list(item.flags)) if item.flags else None,
                self.now,
            ),
        )
        if blob is not None:
            self._insert_vector(memory_id, blob)
        self.add_sources(memory_id, item.source_message_ids, item.external_refs)
        self._record(memory_id, "add", None, item.content)
        return memory_id

    def reinforce(
        self,
        memory_id: int,
        source_message_ids: Iterable[int] = (),
        external_refs: Iterable[str] = (),
    ) -> bool:
        """The memory was seen again: bump its count and last-seen time; it
        no longer fades (decay starts again from now).  Whether it counted.

        A message (or external source) is counted once however many readers
        find the memory in it (a dream's preference pass, then the harvest
        of the same conversation): when every source named is already one of
        the memory's, nothing was seen again and nothing changes.  Naming no
        source at all counts (nothing says it was counted before).

        An edit replaces a message, it does not say it again: a message said
        instead of one already a source (``REPLACES``, directly or through
        earlier edits) is that same sighting.  It joins the sources, taking
        the old one's place, and counts nothing.
        """
        messages, refs = set(source_message_ids), set(external_refs)
        if messages or refs:
            known = self.sources(memory_id)
            seen = set(known.message_ids)
            edits = ConversationStore.replaced_by_edits(self._tx, messages - seen)
            unseen = {m for m in messages - seen if not seen.intersection(edits.get(m, ()))}
            if not unseen and refs <= set(known.external_refs):
                self.current(memory_id)  # RowNotFound for a memory that is not there
                self.add_sources(memory_id, sorted(messages - seen), ())
                return False
        count = self._tx.fetch_value(
            "UPDATE memories SET reinforcement_count = reinforcement_count + 1,"
            " last_seen_at = ?, updated_at = ?, faded_importance = NULL, decayed_through = NULL"
            " WHERE id = ? RETURNING reinforcement_count",
            (self.now, self.now, memory_id),
        )
        if count is None:
            raise RowNotFound("memories", memory_id)
        self.add_sources(memory_id, sorted(messages), sorted(refs))
        self._record(memory_id, "reinforce", details={"reinforcement_count": count})
        return True

    def set_status(
        self,
        memory_id: int,
        status: MemoryStatus,
        *,
        superseded_by: int | None = None,
        valid_to: float | None = None,
    ) -> None:
        """Move a memory to *status*; ``superseded`` needs the memory that
        replaces it, and may end its validity at *valid_to*."""
        if status not in MEMORY_STATUSES:
            raise ValueError(f"unknown memory status {status!r}")
        if (status == "superseded") != (superseded_by is not None):
            raise ValueError("superseded_by is given exactly when the status is 'superseded'")
        if superseded_by == memory_id:
            raise ValueError("a memory cannot supersede itself")
        old = self.current(memory_id)
        if superseded_by is not None:
            self.current(superseded_by)
        ended = old.valid_to if valid_to is None else max(valid_to, old.valid_from)
        self._tx.execute(
            "UPDATE memories SET status = ?, superseded_by = ?, valid_to = ?, updated_at = ?"
            " WHERE id = ?",
            (status, superseded_by, ended, self.now, memory_id),
        )
        if status == "active" and old.status != "active":
            self._seen_by_the_user(memory_id)
        details: dict[str, Any] = {"old_status": old.status, "new_status": status}
        if superseded_by is not None:
            details["superseded_by"] = superseded_by
        if ended != old.valid_to:
            details["valid_to"] = ended
        self._record(memory_id, _STATUS_OPERATION[status], details=details)

    def update_content(
        self,
        memory_id: int,
        new_content: str,
        blob: bytes | None,
        *,
        embedding_model: str | None = None,
        expected_content: str | None = None,
        flags: Iterable[str] | None = None,
    ) -> None:
        """Rewrite a memory's text; the vector is replaced (or dropped if *blob* is None).

        With *expected_content* (the text the writer started from), a memory
        changed by someone else meanwhile raises ``EditConflict``, and one
        merged, archived or deleted meanwhile ``NoLongerActive``: an edit saved
        into a superseded memory would be reported saved and never used.
        """
        if not new_content.strip():
            raise ValueError("a memory needs some content")
        old = self.current(memory_id)
        if expected_content is not None and old.status != "active":
            raise NoLongerActive(old)
        if expected_content is not None and old.content != expected_content:
            raise EditConflict(memory_id, old.content)
        flag_list = list(old.flags if flags is None else flags)
        self._tx.execute(
            "UPDATE memories SET content = ?, content_hash = ?, embedding_model = ?,"
            " flags = ?, updated_at = ? WHERE id = ?",
            (
                new_content,
                content_hash(new_content),
                embedding_model if blob is not None else None,
                json.dumps(flag_list) if flag_list else None,
                self.now,
                memory_id,
            ),
        )
        self._seen_by_the_user(memory_id)
        details = self._told_by_the_user(old)
        # The old vector describes the old text; it must not outlive it.
        self._tx.execute("DELETE FROM memory_embeddings WHERE memory_id = ?", (memory_id,))
        if blob is not None:
            self._insert_vector(memory_id, blob)
        self._record(memory_id, "update", old.content, new_content, details)

    def _told_by_the_user(self, old: Memory) -> dict[str, Any] | None:
        """A memory the user rewrote says what they wrote: it is theirs, as one
        they told Reverie is.  Kept as learned, it lost a contradiction to any
        newer memory the harvest learned (perhaps wrongly), and the next dream
        superseded the user's correction without asking.  The change of source,
        for the history row (None if it was theirs already)."""
        if self._actor != "user" or old.source_kind == "user_explicit":
            return None
        self._tx.execute(
            "UPDATE memories SET source_kind = 'user_explicit' WHERE id = ?", (old.id,)
        )
        return {"source_kind": [old.source_kind, "user_explicit"]}

    def _seen_by_the_user(self, memory_id: int) -> None:
        """The user restored or rewrote the memory (or undid the dream change
        that retired it): they saw it, as a harvest finding it again does, so
        it is fresh again.  Fading and staleness go by when a memory was last
        seen; without this a memory the user restored from the archive, or
        whose archiving they undid, was archived again by the next dream, and
        one they had just corrected faded and went as unused.  What it had
        faded so far stands (an undo puts that back as it was); it fades no
        further until the grace period from now is over."""
        if self._actor == "user":
            self._tx.execute(
                "UPDATE memories SET last_seen_at = ? WHERE id = ?", (self.now, memory_id)
            )

    def set_pinned(self, memory_id: int, pinned: bool) -> None:
        """Pin a memory (always kept, never decayed) or unpin it."""
        changed = self._tx.execute(
            "UPDATE memories SET pinned = ?, updated_at = ? WHERE id = ?",
            (int(pinned), self.now, memory_id),
        ).rowcount
        if changed == 0:
            raise RowNotFound("memories", memory_id)
        self._record(memory_id, "pin" if pinned else "unpin")

    def decay(self, memory_id: int, faded: float, through: float) -> None:
        """The memory's importance faded to *faded*, for the time up to *through*.

        Not an edit: ``updated_at`` stays, so the memory is not judged again.
        """
        if not 0.0 <= faded <= 1.0:
            raise ValueError(f"importance must be between 0 and 1, not {faded}")
        old = self.current(memory_id)
        self._tx.execute(
            "UPDATE memories SET faded_importance = ?, decayed_through = ? WHERE id = ?",
            (faded, through, memory_id),
        )
        details = {"old_importance": old.current_importance, "new_importance": faded}
        self._record(memory_id, "decay", details=details)

    def set_vector(self, memory_id: int, blob: bytes, embedding_model: str | None) -> None:
        """Give a memory its (new) vector; not a history event, the memory is unchanged."""
        self.current(memory_id)
        self._tx.execute("DELETE FROM memory_embeddings WHERE memory_id = ?", (memory_id,))
        self._insert_vector(memory_id, blob)
        self._tx.execute(
            "UPDATE memories SET embedding_model = ? WHERE id = ?", (embedding_model, memory_id)
        )

    def restore(self, snapshot: Memory, fields: Iterable[str] = RESTORED_FIELDS) -> None:
        """Put back *fields* (some of ``RESTORED_FIELDS``) of a memory as
        *snapshot* had them (undo)."""
        fields = [name for name in RESTORED_FIELDS if name in set(fields)]
        if not fields:
            return
        old = self.current(snapshot.id)
        values = [getattr(snapshot, name) for name in fields]
        assignments = ", ".join(f"{name} = ?" for name in fields)
        self._tx.execute(
            f"UPDATE memories SET {assignments}, updated_at = ? WHERE id = ?",
            (*[int(v) if isinstance(v, bool) else v for v in values], self.now, snapshot.id),
        )
        changed = {
            name: [getattr(old, name), getattr(snapshot, name)]
            for name in fields
            if getattr(old, name) != getattr(snapshot, name)
        }
        if snapshot.status == "active" and old.status != "active":  # an undone retirement
            self._seen_by_the_user(snapshot.id)
        self._record(snapshot.id, "restore", details={"restored": changed})

    def remove(self, memory_id: int) -> None:
        """Take back a memory that should never have existed (undoing the
        change that made it): the row, its vector, sources and history go."""
        self.current(memory_id)
        if self._tx.fetch_value("SELECT 1 FROM memories WHERE superseded_by = ?", (memory_id,)):
            # Deleting it would leave them superseded by nothing.
            raise ValueError(f"memories still point at memory {memory_id}: restore them first")
        self._tx.execute("DELETE FROM memories WHERE id = ?", (memory_id,))

    def add_sources(
        self, memory_id: int, message_ids: Iterable[int], external_refs: Iterable[str]
    ) -> None:
        # OR IGNORE: naming a source twice (e.g. on reinforcement) is not an error.
        for message_id in message_ids:
            self._tx.execute(
                "INSERT OR IGNORE INTO memory_sources (memory_id, message_id) VALUES (?, ?)",
                (memory_id, message_id),
            )
        for ref in external_refs:
            self._tx.execute(
                "INSERT OR IGNORE INTO memory_sources (memory_id, external_ref) VALUES (?, ?)",
                (memory_id, ref),
            )

    def _insert_vector(self, memory_id: int, blob: bytes) -> None:
        self._tx.execute(
            "INSERT INTO memory_embeddings (memory_id, embedding, signs)"
            " VALUES (?, ?, vec_quantize_binary(?))",
            (memory_id, blob, blob),
        )

    def _record(
        self,
        memory_id: int,
        operation: HistoryOperation,
        old_content: str | None = None,
        new_content: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        self._tx.execute(
            "INSERT INTO memory_history (memory_id, operation, old_content, new_content,"
            " actor, dream_run_id, dream_change_id, details, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                memory_id,
                operation,
                old_content,
                new_content,
                self._actor,
                self._dream_run_id,
                self._dream_change_id,
                None if details is None else json.dumps(details),
                self.now,
            ),
        )


def snapshot(memory: Memory) -> dict[str, Any]:
    """*memory* as JSON-ready data (a dream change's before/after)."""
    data = asdict(memory)
    data["flags"] = list(memory.flags)
    return data


def from_snapshot(data: Mapping[str, Any]) -> Memory:
    return Memory(**{**data, "flags": tuple(data.get("flags") or ())})
