"""``MemoryStore``: all the SQL of the memory tables.

A memory lives in four places that must agree: the ``memories`` row, its
full-text row (kept by triggers), its vector row in ``memory_vectors`` (with
status and category copied as vec0 metadata, so a KNN search can filter
inside the search) and ``memory_history``.  Every change writes all the
affected places and a history row in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop.core.db.clock import Clock, system_clock
from desktop.core.db.connection import Database, Transaction
from desktop.core.db.errors import EditConflict, RowNotFound, VectorDimensionMismatch
from desktop.core.db.fts import match_query
from desktop.core.db.memory_rows import (
    MEMORY_STATUSES,
    HistoryOperation,
    Memory,
    MemoryHistoryEntry,
    MemoryHit,
    MemoryQuery,
    MemorySources,
    MemoryStatus,
    NewMemory,
    SourceKind,
    check_actor,
    content_hash,
    history_from_row,
    memory_from_row,
    select_columns,
)

Embedding = npt.NDArray[np.floating[Any]]

VECTOR_TABLE = "memory_vectors"
MAX_K = 4096  # sqlite-vec's limit on k

_SORT_ORDER = {
    "recent": "m.last_seen_at DESC, m.id DESC",
    "created": "m.created_at DESC, m.id DESC",
    "importance": "m.pinned DESC, m.importance DESC, m.last_seen_at DESC, m.id DESC",
    "reinforced": "m.reinforcement_count DESC, m.last_seen_at DESC, m.id DESC",
    "alphabetical": "m.content COLLATE NOCASE, m.id",
}

_STATUS_OPERATION: dict[MemoryStatus, HistoryOperation] = {
    "active": "restore",
    "superseded": "supersede",
    "archived": "archive",
    "deleted": "delete",
}


class MemoryStore:
    """Memories, their provenance, vectors and history."""

    def __init__(self, database: Database, *, clock: Clock = system_clock) -> None:
        self._db = database
        self._clock = clock

    # -- reading -----------------------------------------------------------

    def get(self, memory_id: int) -> Memory | None:
        row = self._db.fetch_one(
            f"SELECT {select_columns('m')} FROM memories m WHERE m.id = ?", (memory_id,)
        )
        return None if row is None else memory_from_row(row)

    def find_by_hash(self, digest: str, status: MemoryStatus | None = "active") -> list[Memory]:
        """Memories whose ``content_hash`` is *digest* (see ``content_hash``), newest first."""
        rows = self._db.fetch_all(
            f"SELECT {select_columns('m')} FROM memories m WHERE m.content_hash = ?"
            " AND (? IS NULL OR m.status = ?) ORDER BY m.id DESC",
            (digest, status, status),
        )
        return [memory_from_row(row) for row in rows]

    def listed(self, status: MemoryStatus = "active", limit: int = 200) -> list[Memory]:
        """Memories with *status*: pinned first, then the most important and
        most recently seen."""
        rows = self._db.fetch_all(
            f"SELECT {select_columns('m')} FROM memories m WHERE m.status = ?"
            " ORDER BY m.pinned DESC, m.importance DESC, m.last_seen_at DESC, m.id DESC LIMIT ?",
            (status, limit),
        )
        return [memory_from_row(row) for row in rows]

    def sources(self, memory_id: int) -> MemorySources:
        rows = self._db.fetch_all(
            "SELECT message_id, external_ref FROM memory_sources WHERE memory_id = ?"
            " ORDER BY message_id, external_ref",
            (memory_id,),
        )
        return MemorySources(
            message_ids=tuple(row[0] for row in rows if row[0] is not None),
            external_refs=tuple(row[1] for row in rows if row[1] is not None),
        )

    def history(self, memory_id: int) -> list[MemoryHistoryEntry]:
        rows = self._db.fetch_all(
            "SELECT * FROM memory_history WHERE memory_id = ? ORDER BY id", (memory_id,)
        )
        return [history_from_row(row) for row in rows]

    def browse(self, query: MemoryQuery) -> list[Memory]:
        """Memories matching *query*'s filters (and words, if any), in its order."""
        where: list[str] = ["1 = 1"]
        params: list[str | int] = []
        for column, values in (
            ("status", query.statuses),
            ("category", query.categories),
            ("source_kind", query.source_kinds),
        ):
            if values:
                where.append(f"m.{column} IN ({', '.join('?' * len(values))})")
                params += list(values)
        if query.pinned is not None:
            where.append("m.pinned = ?")
            params.append(int(query.pinned))
        if query.ids is not None:
            where.append(f"m.id IN ({', '.join('?' * len(query.ids))})")
            params += list(query.ids)
        fts_query = match_query(query.text) if query.text else None
        if query.text and fts_query is None:
            return []
        if fts_query is not None:
            source = "memories_fts JOIN memories m ON m.id = memories_fts.rowid"
            where.append("memories_fts MATCH ?")
            params.append(fts_query)
        else:
            source = "memories m"
        if query.sort != "relevance":
            order = _SORT_ORDER[query.sort]
        else:
            order = "bm25(memories_fts), m.id DESC" if fts_query else _SORT_ORDER["recent"]
        rows = self._db.fetch_all(
            f"SELECT {select_columns('m')} FROM {source} WHERE {' AND '.join(where)}"
            f" ORDER BY {order} LIMIT ? OFFSET ?",
            [*params, query.limit, query.offset],
        )
        return [memory_from_row(row) for row in rows]

    def categories(self) -> list[str]:
        rows = self._db.fetch_all("SELECT DISTINCT category FROM memories ORDER BY category")
        return [row[0] for row in rows]

    def without_vectors(self, limit: int = 64) -> list[Memory]:
        """Active memories with no vector yet (stored while no embedder was loaded)."""
        rows = self._db.fetch_all(
            f"SELECT {select_columns('m')} FROM memories m WHERE m.status = 'active'"
            " AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id)"
            " ORDER BY m.id LIMIT ?",
            (limit,),
        )
        return [memory_from_row(row) for row in rows]

    def vector_dimension(self) -> int:
        """The length of the embeddings the vector table accepts."""
        return int(
            self._db.fetch_value(
                "SELECT dimension FROM vector_index_meta WHERE table_name = ?", (VECTOR_TABLE,)
            )
        )

    def search_text(
        self, query: str, limit: int = 10, status: MemoryStatus | None = "active"
    ) -> list[MemoryHit]:
        """Memories matching any word of *query* (typed by a person), best bm25 first."""
        fts_query = match_query(query)
        if fts_query is None or limit < 1:
            return []
        rows = self._db.fetch_all(
            f"SELECT {select_columns('m')}, bm25(memories_fts) AS score"
            " FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid"
            " WHERE memories_fts MATCH ? AND (? IS NULL OR m.status = ?)"
            " ORDER BY score LIMIT ?",
            (fts_query, status, status, limit),
        )
        return [MemoryHit(memory_from_row(row), float(row["score"])) for row in rows]

    def search_vector(
        self,
        embedding: Embedding,
        k: int = 10,
        status: MemoryStatus | None = "active",
        category: str | None = None,
    ) -> list[MemoryHit]:
        """The *k* nearest memories by cosine distance, nearest first.

        The status and category filters run inside the KNN search (vec0
        metadata columns), so up to *k* matching rows come back however many
        nearer rows the filters exclude.
        """
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k must be between 1 and {MAX_K}, not {k}")
        filters = ""
        params: list[Any] = [self._vector_blob(embedding), k]
        if status is not None:
            filters += " AND status = ?"
            params.append(status)
        if category is not None:
            filters += " AND category = ?"
            params.append(category)
        rows = self._db.fetch_all(
            "WITH knn AS (SELECT memory_id, distance FROM memory_vectors"
            f" WHERE embedding MATCH ? AND k = ?{filters})"
            f" SELECT {select_columns('m')}, knn.distance AS score"
            " FROM knn JOIN memories m ON m.id = knn.memory_id ORDER BY knn.distance",
            params,
        )
        return [MemoryHit(memory_from_row(row), float(row["score"])) for row in rows]

    # -- writing -----------------------------------------------------------

    def add(
        self,
        content: str,
        *,
        embedding: Embedding | None,
        source_kind: SourceKind,
        actor: str,
        category: str = "general",
        importance: float = 0.5,
        source_message_ids: Iterable[int] = (),
        external_refs: Iterable[str] = (),
        embedding_model: str | None = None,
        flags: Iterable[str] = (),
        dream_run_id: int | None = None,
    ) -> Memory:
        """Store a new memory with its full-text row, vector, provenance and history."""
        item = NewMemory(
            content,
            embedding,
            source_kind,
            category=category,
            importance=importance,
            source_message_ids=tuple(source_message_ids),
            external_refs=tuple(external_refs),
            embedding_model=embedding_model,
            flags=tuple(flags),
        )
        [memory_id] = self.add_many([item], actor=actor, dream_run_id=dream_run_id)
        return self._require(memory_id)

    def add_many(
        self, items: Sequence[NewMemory], *, actor: str, dream_run_id: int | None = None
    ) -> list[int]:
        """Store *items* as ``add`` stores one, all in one transaction; their ids, in order.

        Every item is checked before anything is written, and a failure while
        writing rolls back the whole batch: all of them are stored or none.
        """
        check_actor(actor)
        blobs = [self._checked_blob(item) for item in items]
        if not items:
            return []
        now = self._clock()
        with self._db.transaction() as tx:
            return [
                self._insert_new(tx, item, blob, actor, dream_run_id, now)
                for item, blob in zip(items, blobs, strict=True)
            ]

    def reinforce(
        self,
        memory_id: int,
        actor: str,
        *,
        source_message_ids: Iterable[int] = (),
        external_refs: Iterable[str] = (),
        dream_run_id: int | None = None,
    ) -> Memory:
        """The memory was seen again: bump its count and last-seen time."""
        check_actor(actor)
        now = self._clock()
        with self._db.transaction() as tx:
            count = tx.fetch_value(
                "UPDATE memories SET reinforcement_count = reinforcement_count + 1,"
                " last_seen_at = ?, updated_at = ? WHERE id = ? RETURNING reinforcement_count",
                (now, now, memory_id),
            )
            if count is None:
                raise RowNotFound("memories", memory_id)
            self._add_sources(tx, memory_id, source_message_ids, external_refs)
            details = {"reinforcement_count": count}
            self._record(tx, memory_id, "reinforce", None, None, actor, dream_run_id, now, details)
        return self._require(memory_id)

    def set_status(
        self,
        memory_id: int,
        status: MemoryStatus,
        actor: str,
        *,
        superseded_by: int | None = None,
        dream_run_id: int | None = None,
    ) -> Memory:
        """Move a memory to *status*; ``superseded`` needs the memory that replaces it."""
        check_actor(actor)
        if status not in MEMORY_STATUSES:
            raise ValueError(f"unknown memory status {status!r}")
        if (status == "superseded") != (superseded_by is not None):
            raise ValueError("superseded_by is given exactly when the status is 'superseded'")
        if superseded_by == memory_id:
            raise ValueError("a memory cannot supersede itself")
        now = self._clock()
        with self._db.transaction() as tx:
            old = self._current(tx, memory_id)
            if superseded_by is not None:
                self._current(tx, superseded_by)
            tx.execute(
                "UPDATE memories SET status = ?, superseded_by = ?, updated_at = ? WHERE id = ?",
                (status, superseded_by, now, memory_id),
            )
            tx.execute(
                "UPDATE memory_vectors SET status = ? WHERE memory_id = ?", (status, memory_id)
            )
            details: dict[str, Any] = {"old_status": old.status, "new_status": status}
            if superseded_by is not None:
                details["superseded_by"] = superseded_by
            operation = _STATUS_OPERATION[status]
            self._record(tx, memory_id, operation, None, None, actor, dream_run_id, now, details)
        return self._require(memory_id)

    def update_content(
        self,
        memory_id: int,
        new_content: str,
        embedding: Embedding | None,
        actor: str,
        *,
        embedding_model: str | None = None,
        dream_run_id: int | None = None,
        expected_content: str | None = None,
        flags: Iterable[str] | None = None,
    ) -> Memory:
        """Rewrite a memory's text; the vector is replaced (or dropped if *embedding* is None).

        With *expected_content* (the text the writer started from), a memory
        changed by someone else meanwhile raises ``EditConflict`` instead of
        silently losing their change.  *flags* replace the old ones if given.
        """
        check_actor(actor)
        if not new_content.strip():
            raise ValueError("a memory needs some content")
        blob = None if embedding is None else self._vector_blob(embedding)
        now = self._clock()
        with self._db.transaction() as tx:
            old = self._current(tx, memory_id)
            if expected_content is not None and old.content != expected_content:
                raise EditConflict(memory_id, old.content)
            flag_list = list(old.flags if flags is None else flags)
            tx.execute(
                "UPDATE memories SET content = ?, content_hash = ?, embedding_model = ?,"
                " flags = ?, updated_at = ? WHERE id = ?",
                (
                    new_content,
                    content_hash(new_content),
                    embedding_model if blob is not None else None,
                    json.dumps(flag_list) if flag_list else None,
                    now,
                    memory_id,
                ),
            )
            # The old vector describes the old text; it must not outlive it.
            tx.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
            if blob is not None:
                self._insert_vector(tx, memory_id, blob, old.status, old.category)
            self._record(
                tx, memory_id, "update", old.content, new_content, actor, dream_run_id, now
            )
        return self._require(memory_id)

    def set_pinned(
        self, memory_id: int, pinned: bool, actor: str, *, dream_run_id: int | None = None
    ) -> Memory:
        """Pin a memory (always kept, never decayed) or unpin it."""
        check_actor(actor)
        now = self._clock()
        with self._db.transaction() as tx:
            changed = tx.execute(
                "UPDATE memories SET pinned = ?, updated_at = ? WHERE id = ?",
                (int(pinned), now, memory_id),
            ).rowcount
            if changed == 0:
                raise RowNotFound("memories", memory_id)
            operation: HistoryOperation = "pin" if pinned else "unpin"
            self._record(tx, memory_id, operation, None, None, actor, dream_run_id, now)
        return self._require(memory_id)

    def set_vector(
        self, memory_id: int, content: str, embedding: Embedding, embedding_model: str | None
    ) -> bool:
        """Give a memory its vector, if its text is still *content* (what was
        embedded); False if the text changed meanwhile.  Not a history event:
        the memory itself is unchanged."""
        blob = self._vector_blob(embedding)
        with self._db.transaction() as tx:
            current = self._current(tx, memory_id)
            if current.content != content:
                return False
            tx.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
            self._insert_vector(tx, memory_id, blob, current.status, current.category)
            tx.execute(
                "UPDATE memories SET embedding_model = ? WHERE id = ?",
                (embedding_model, memory_id),
            )
        return True

    # -- helpers -----------------------------------------------------------

    def _require(self, memory_id: int) -> Memory:
        memory = self.get(memory_id)
        if memory is None:
            raise RowNotFound("memories", memory_id)
        return memory

    @staticmethod
    def _current(tx: Transaction, memory_id: int) -> Memory:
        """The memory as this transaction sees it; reading it here avoids a race."""
        row = tx.fetch_one(
            f"SELECT {select_columns('m')} FROM memories m WHERE m.id = ?", (memory_id,)
        )
        if row is None:
            raise RowNotFound("memories", memory_id)
        return memory_from_row(row)

    def _vector_blob(self, embedding: Embedding) -> bytes:
        vector = np.asarray(embedding, dtype=np.float32)
        expected = self.vector_dimension()
        if vector.ndim != 1 or vector.shape[0] != expected:
            raise VectorDimensionMismatch(expected, int(vector.size))
        if not np.all(np.isfinite(vector)):
            raise ValueError("an embedding must be finite (no NaN or infinity)")
        return vector.tobytes()

    def _checked_blob(self, item: NewMemory) -> bytes | None:
        """Refuse a bad *item* before anything is written; its vector as stored."""
        if not item.content.strip():
            raise ValueError("a memory needs some content")
        if not 0.0 <= item.importance <= 1.0:
            raise ValueError(f"importance must be between 0 and 1, not {item.importance}")
        return None if item.embedding is None else self._vector_blob(item.embedding)

    def _insert_new(
        self,
        tx: Transaction,
        item: NewMemory,
        blob: bytes | None,
        actor: str,
        dream_run_id: int | None,
        now: float,
    ) -> int:
        memory_id: int = tx.fetch_value(
            "INSERT INTO memories (content, category, source_kind, importance,"
            " created_at, last_seen_at, valid_from, content_hash, embedding_model,"
            " flags, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                item.content,
                item.category,
                item.source_kind,
                item.importance,
                now,
                now,
                now,
                content_hash(item.content),
                item.embedding_model if blob is not None else None,
                json.dumps(list(item.flags)) if item.flags else None,
                now,
            ),
        )
        if blob is not None:
            self._insert_vector(tx, memory_id, blob, "active", item.category)
        self._add_sources(tx, memory_id, item.source_message_ids, item.external_refs)
        self._record(tx, memory_id, "add", None, item.content, actor, dream_run_id, now)
        return memory_id

    @staticmethod
    def _insert_vector(
        tx: Transaction, memory_id: int, blob: bytes, status: str, category: str
    ) -> None:
        tx.execute(
            "INSERT INTO memory_vectors (memory_id, embedding, status, category)"
            " VALUES (?, ?, ?, ?)",
            (memory_id, blob, status, category),
        )

    @staticmethod
    def _add_sources(
        tx: Transaction,
        memory_id: int,
        message_ids: Iterable[int],
        external_refs: Iterable[str],
    ) -> None:
        # OR IGNORE: naming a source twice (e.g. on reinforcement) is not an error.
        for message_id in message_ids:
            tx.execute(
                "INSERT OR IGNORE INTO memory_sources (memory_id, message_id) VALUES (?, ?)",
                (memory_id, message_id),
            )
        for ref in external_refs:
            tx.execute(
                "INSERT OR IGNORE INTO memory_sources (memory_id, external_ref) VALUES (?, ?)",
                (memory_id, ref),
            )

    @staticmethod
    def _record(
        tx: Transaction,
        memory_id: int,
        operation: HistoryOperation,
        old_content: str | None,
        new_content: str | None,
        actor: str,
        dream_run_id: int | None,
        now: float,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        tx.execute(
            "INSERT INTO memory_history (memory_id, operation, old_content, new_content,"
            " actor, dream_run_id, details, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                memory_id,
                operation,
                old_content,
                new_content,
                actor,
                dream_run_id,
                None if details is None else json.dumps(details),
                now,
            ),
        )
