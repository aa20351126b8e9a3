"""``MemoryStore``: all the SQL of the memory tables.

A memory lives in four places that must agree: the ``memories`` row, its
full-text row (kept by triggers), its vector (``memory_embeddings``, float32
and sign bits: see schema_v3 and schema_v4) and ``memory_history``.  Every
change writes all the affected places and a history row in one transaction
(``MemoryWrites``).  Searches by meaning go through ``VectorSearch``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop.core.db.clock import Clock, system_clock
from desktop.core.db.connection import Database, Transaction
from desktop.core.db.errors import RowNotFound
from desktop.core.db.follow_ups import last_owed, mark_done, queue_follow_up
from desktop.core.db.fts import any_word, match_query
from desktop.core.db.memory_rows import (
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
from desktop.core.db.memory_writes import MemoryWrites, checked_blob, vector_blob
from desktop.core.db.purge import rewrite_quotes
from desktop.core.db.vector_search import VectorSearch, of_length
from desktop.core.db.word_search import telling_words_in

Embedding = npt.NDArray[np.floating[Any]]

_OF_MODEL = "(NOT ?1 OR m.embedding_model IS ?2)"
"""A memory's vector is of the model in use (given ``MemoryStore._in_use()``)."""
_OF_LENGTH = of_length(3)
"""Its vector ``e`` has the length of the model in use's."""
_NEEDS_VECTOR = (
    f"(NOT {_OF_MODEL} OR NOT EXISTS (SELECT 1 FROM memory_embeddings e"
    f" WHERE e.memory_id = m.id AND {_OF_LENGTH}))"
)
MAX_K = 4096  # sqlite-vec's limit on k, kept for the callers that rely on it
_IN_CHUNK = 500  # ids per IN (...) list, well under SQLite's limit on parameters
_FILES_FOLLOW_UP = "secret named later: files written from the memories"
"""A memory rewritten in place whose old text a file written from the
memories (``MEMORIES.md``) may still hold (``files_owed``)."""
Ranking = list[tuple[int, float]]
"""Memory ids with their scores (lower is better), best first."""
_SORT_ORDER = {
    "recent": "m.last_seen_at DESC, m.id DESC",
    "created": "m.created_at DESC, m.id DESC",
    "importance": "m.pinned DESC, m.importance DESC, m.last_seen_at DESC, m.id DESC",
    "reinforced": "m.reinforcement_count DESC, m.last_seen_at DESC, m.id DESC",
    "alphabetical": "m.content COLLATE NOCASE, m.id",
}


class MemoryStore:
    """Memories, their provenance, vectors and history.

    Vectors of several embedding models may be stored (the user changed
    models, and the memories are being embedded again).  Given
    *embedding_model* (the name of the model in use, or None while there is
    none), every search by meaning and every vector read sees only that
    model's vectors, and memories without one are "without vectors".  A
    store without it (tests, tools) treats every vector as usable, searching
    those of the query's length.  Given *vector_length* too (the numbers in
    a vector of the model in use, 0 while not known), a vector of another
    length is not that model's, whatever name it is stored under: another
    model took the name (a file or a server's model replaced), and the
    memory is embedded again.
    """

    def __init__(
        self,
        database: Database,
        *,
        clock: Clock = system_clock,
        embedding_model: Callable[[], str | None] | None = None,
        vector_length: Callable[[], int] | None = None,
    ) -> None:
        self._db = database
        self._clock = clock
        self._model = embedding_model
        self._length = vector_length
        self._vectors = VectorSearch(database)

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

    def rewrite_holding(
        self, holding: Sequence[str], rewrite: Callable[[str], str], tx: Transaction
    ) -> list[int]:
        """Give every memory holding one of *holding*, whatever its status,
        and every old text its history keeps, what *rewrite* makes of them,
        in place (no new version: the text is taken out, not changed), with
        its vector dropped (it was made from the old text; the next
        re-index makes one from the new); and the same to every quote of
        them in the dream tables (a change's summary and recorded texts, a
        pass's log: ``purge.rewrite_quotes``), kept for good otherwise; all
        in *tx*, a caller's transaction.  The caller queues the old words'
        removal from the search index and the write-ahead log with it, and
        finishes that once *tx* committed (``ConversationStore.rewrote`` and
        ``finish_rewrite``).  What was written from the memories (a file)
        is owed again, in *tx* too (``files_owed``): a kill or a full disk
        after the commit must not keep the old text there.  The ids of the
        memories whose text or history was rewritten."""
        if not holding:
            return []
        found = " OR ".join(["instr(content, ?)"] * len(holding))
        lived = " OR ".join(
            ["instr(coalesce(old_content, ''), ?) OR instr(coalesce(new_content, ''), ?)"]
            * len(holding)
        )
        rows = tx.fetch_all(f"SELECT id, content FROM memories WHERE {found}", holding)
        history = tx.fetch_all(
            f"SELECT id, memory_id, old_content, new_content FROM memory_history WHERE {lived}",
            [value for value in holding for _ in range(2)],
        )
        for memory_id, content in rows:
            text = rewrite(content)
            tx.execute(
                "UPDATE memories SET content = ?, content_hash = ?, embedding_model = NULL"
                " WHERE id = ?",
                (text, content_hash(text), memory_id),
            )
            tx.execute("DELETE FROM memory_embeddings WHERE memory_id = ?", (memory_id,))
        for entry_id, _, old, new in history:
            tx.execute(
                "UPDATE memory_history SET old_content = ?, new_content = ? WHERE id = ?",
                (
                    None if old is None else rewrite(old),
                    None if new is None else rewrite(new),
                    entry_id,
                ),
            )
        rewrite_quotes(tx, holding, rewrite)
        if rows or history:  # a file written before an edit holds the old text
            queue_follow_up(tx, _FILES_FOLLOW_UP, self._clock())
        return sorted({row[0] for row in rows} | {row[1] for row in history})

    def files_owed(self) -> int | None:
        """Whether a memory was rewritten in place (``rewrite_holding``)
        since the files written from the memories were last written again
        (``files_written``): the newest such rewrite (a job's id), or None."""
        return last_owed(self._db, (_FILES_FOLLOW_UP,))

    def files_written(self, through: int) -> None:
        """The files written from the memories were written again after the
        rewrite *through* (``files_owed``): it and those before are done."""
        with self._db.transaction() as tx:
            mark_done(tx, (_FILES_FOLLOW_UP,), through, self._clock())

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

    def source_messages(self, memory_ids: Sequence[int]) -> set[int]:
        """The messages any of *memory_ids* was learned from."""
        found: set[int] = set()
        for start in range(0, len(memory_ids), _IN_CHUNK):
            chunk = list(memory_ids[start : start + _IN_CHUNK])
            rows = self._db.fetch_all(
                "SELECT DISTINCT message_id FROM memory_sources WHERE message_id IS NOT NULL"
                f" AND memory_id IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            found.update(int(row[0]) for row in rows)
        return found

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
        """Memories with no vector of the model in use (stored while no
        embedder was loaded, or embedded by another model), active ones first."""
        rows = self._db.fetch_all(
            f"SELECT {select_columns('m')} FROM memories m WHERE {_NEEDS_VECTOR}"
            " ORDER BY m.status <> 'active', m.id LIMIT ?",
            (*self._in_use(), limit),
        )
        return [memory_from_row(row) for row in rows]

    def count_without_vectors(self) -> int:
        """How many memories ``without_vectors`` has left to give."""
        return int(
            self._db.fetch_value(
                f"SELECT count(*) FROM memories m WHERE {_NEEDS_VECTOR}", self._in_use()
            )
        )

    def search_text(
        self, query: str, limit: int = 10, status: MemoryStatus | None = "active"
    ) -> list[MemoryHit]:
        """Memories matching the telling words of *query* (typed by a person),
        best bm25 first (see ``rank_by_words``)."""
        return self._hits(self.rank_by_words(query, limit, () if status is None else (status,)))

    def search_vector(
        self,
        embedding: Embedding,
        k: int = 10,
        status: MemoryStatus | None = "active",
        category: str | None = None,
    ) -> list[MemoryHit]:
        """The *k* nearest memories by cosine distance, nearest first (see ``rank_by_meaning``)."""
        statuses = () if status is None else (status,)
        return self._hits(self.rank_by_meaning(embedding, k, statuses, category))

    def rank_by_words(
        self,
        query: str,
        limit: int = 10,
        statuses: Sequence[MemoryStatus] = ("active",),
        category: str | None = None,
    ) -> Ranking:
        """Ids of the memories matching the telling words of *query* with
        their bm25 scores (lower is better), best first; only memories with
        one of *statuses* (any, if empty) and *category* (any, if None).

        Stopwords and words in most memories are left out, and the search
        scores at most about ``TEXT_SEARCH_BUDGET`` rows (``fts.telling_words``).
        """
        fts_query = any_word(self._telling_words(query)) if limit >= 1 else None
        if fts_query is None:
            return []
        ranked = (
            "SELECT rowid, bm25(memories_fts) AS score FROM memories_fts"
            " WHERE memories_fts MATCH ? ORDER BY score LIMIT ?"
        )
        if not statuses and category is None:
            rows = self._db.fetch_all(ranked, (fts_query, limit))
            return [(int(r[0]), float(r[1])) for r in rows]
        # FTS5 ranks by bm25 cheaply inside its own ORDER BY ... LIMIT; joined
        # to another table it scores every match at many times the cost.  So
        # rank first and filter after, asking for more if the filters left
        # too few and there may be more.
        depth = 2 * limit
        while True:
            rows = self._db.fetch_all(
                f"SELECT f.rowid, f.score, m.status, m.category FROM ({ranked}) AS f"
                " JOIN memories m ON m.id = f.rowid ORDER BY f.score",
                (fts_query, depth),
            )
            ranking = [
                (int(r[0]), float(r[1]))
                for r in rows
                if (not statuses or r[2] in statuses) and category in (None, r[3])
            ]
            if len(ranking) >= limit or len(rows) < depth:
                return ranking[:limit]
            depth *= 4

    def _telling_words(self, query: str) -> list[str]:
        return telling_words_in(self._db, "memories_fts", "memories", query)

    def rank_by_meaning(
        self,
        embedding: Embedding,
        k: int = 10,
        statuses: Sequence[MemoryStatus] = ("active",),
        category: str | None = None,
    ) -> Ranking:
        """Ids of the *k* memories nearest to *embedding* with their cosine
        distances, nearest first; only memories with one of *statuses* (any,
        if empty) and *category* (any, if None).

        The filters apply while the candidates are chosen, so up to *k*
        matching memories come back however many nearer ones they exclude.
        Exact for small stores; past a few hundred memories the candidates
        come from sign bits (see ``VectorSearch``).
        """
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k must be between 1 and {MAX_K}, not {k}")
        by_model, model, _ = self._in_use()
        return self._vectors.nearest(vector_blob(embedding), k, statuses, category, by_model, model)

    def get_many(self, memory_ids: Sequence[int]) -> dict[int, Memory]:
        """The memories among *memory_ids* that exist, by id."""
        found: dict[int, Memory] = {}
        for start in range(0, len(memory_ids), _IN_CHUNK):
            chunk = list(memory_ids[start : start + _IN_CHUNK])
            rows = self._db.fetch_all(
                f"SELECT {select_columns('m')} FROM memories m"
                f" WHERE m.id IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            found.update((memory.id, memory) for memory in map(memory_from_row, rows))
        return found

    def changed_since(self, since: float | None, limit: int = 10_000) -> list[Memory]:
        """Active memories added or changed after *since* (all, if None), oldest change first."""
        rows = self._db.fetch_all(
            f"SELECT {select_columns('m')} FROM memories m WHERE m.status = 'active'"
            " AND (? IS NULL OR m.updated_at > ?) ORDER BY m.updated_at, m.id LIMIT ?",
            (since, since, limit),
        )
        return [memory_from_row(row) for row in rows]

    def unseen_since(self, before: float, limit: int = 100_000) -> list[Memory]:
        """Active, unpinned memories last seen before *before*, longest unseen first."""
        rows = self._db.fetch_all(
            f"SELECT {select_columns('m')} FROM memories m WHERE m.status = 'active'"
            " AND NOT m.pinned AND m.last_seen_at < ? ORDER BY m.last_seen_at, m.id LIMIT ?",
            (before, limit),
        )
        return [memory_from_row(row) for row in rows]

    def vectors(self, memory_ids: Sequence[int]) -> dict[int, Embedding]:
        """The stored vectors of *memory_ids* (those that have one of the model in use)."""
        found: dict[int, Embedding] = {}
        in_use = self._in_use()
        for start in range(0, len(memory_ids), 500):
            chunk = list(memory_ids[start : start + 500])
            rows = self._db.fetch_all(
                "SELECT e.memory_id, e.embedding FROM memory_embeddings e"
                f" JOIN memories m ON m.id = e.memory_id WHERE {_OF_MODEL} AND {_OF_LENGTH}"
                f" AND e.memory_id IN ({', '.join('?' * len(chunk))})",
                (*in_use, *chunk),
            )
            found.update((int(r[0]), np.frombuffer(r[1], dtype=np.float32)) for r in rows)
        return found

    def count_active(self) -> int:
        return int(self._db.fetch_value("SELECT count(*) FROM memories WHERE status = 'active'"))

    def count_erased(self, tx: Transaction | None = None) -> int:
        """How many memories were ever erased for good (as read in *tx*, if
        given): a reader holding texts across a model call sees by it that
        one may have gone meanwhile (no text of it is kept to compare)."""
        reader = self._db if tx is None else tx
        return int(reader.fetch_value("SELECT count(*) FROM erased_items WHERE kind = 'memory'"))

    def count_added_since(self, since: float) -> int:
        """Memories created after *since* but not by a dream, whatever became of them."""
        return int(
            self._db.fetch_value(
                "SELECT count(*) FROM memories m WHERE m.created_at > ? AND NOT EXISTS ("
                " SELECT 1 FROM memory_history h WHERE h.memory_id = m.id"
                " AND h.operation = 'add' AND h.actor GLOB 'dream:*')",
                (since,),
            )
        )

    # -- writing -----------------------------------------------------------

    @contextmanager
    def writing(self, actor: str, *, dream_run_id: int | None = None) -> Iterator[MemoryWrites]:
        """The changes of one short transaction, all by *actor*."""
        check_actor(actor)
        with self._db.transaction() as tx:
            yield self.writes_in(tx, actor, dream_run_id=dream_run_id)

    def writes_in(
        self,
        tx: Transaction,
        actor: str,
        *,
        dream_run_id: int | None = None,
        dream_change_id: int | None = None,
    ) -> MemoryWrites:
        """Memory changes inside *tx*, a transaction the caller holds (a dream
        pass applies all its changes, to several tables, in one)."""
        return MemoryWrites(
            tx,
            now=self._clock(),
            actor=actor,
            dream_run_id=dream_run_id,
            dream_change_id=dream_change_id,
        )

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
        blobs = [checked_blob(item) for item in items]
        if not items:
            return []
        with self.writing(actor, dream_run_id=dream_run_id) as writes:
            return [writes.add(item, blob) for item, blob in zip(items, blobs, strict=True)]

    def reinforce(
        self,
        memory_id: int,
        actor: str,
        *,
        source_message_ids: Iterable[int] = (),
        external_refs: Iterable[str] = (),
        dream_run_id: int | None = None,
    ) -> Memory:
        """The memory was seen again: bump its count and last-seen time, unless
        every source named already is one of its own (a message counts once)."""
        with self.writing(actor, dream_run_id=dream_run_id) as writes:
            writes.reinforce(memory_id, source_message_ids, external_refs)
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
        with self.writing(actor, dream_run_id=dream_run_id) as writes:
            writes.set_status(memory_id, status, superseded_by=superseded_by)
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
        blob = None if embedding is None else vector_blob(embedding)
        with self.writing(actor, dream_run_id=dream_run_id) as writes:
            writes.update_content(
                memory_id,
                new_content,
                blob,
                embedding_model=embedding_model,
                expected_content=expected_content,
                flags=flags,
            )
        return self._require(memory_id)

    def set_pinned(
        self, memory_id: int, pinned: bool, actor: str, *, dream_run_id: int | None = None
    ) -> Memory:
        """Pin a memory (always kept, never decayed) or unpin it."""
        with self.writing(actor, dream_run_id=dream_run_id) as writes:
            writes.set_pinned(memory_id, pinned)
        return self._require(memory_id)

    def set_vector(
        self, memory_id: int, content: str, embedding: Embedding, embedding_model: str | None
    ) -> bool:
        """Give a memory its vector, if its text is still *content* (what was
        embedded); False if the text changed meanwhile.  Not a history event:
        the memory itself is unchanged."""
        blob = vector_blob(embedding)
        with self.writing("system") as writes:
            if writes.current(memory_id).content != content:
                return False
            writes.set_vector(memory_id, blob, embedding_model)
        return True

    # -- helpers -----------------------------------------------------------

    def _in_use(self) -> tuple[bool, str | None, int]:
        """Whether vectors are told apart by model, the model in use and the
        length of its vectors (0: any)."""
        if self._model is None:
            return False, None, 0
        return True, self._model(), 0 if self._length is None else self._length()

    def _hits(self, ranking: Ranking) -> list[MemoryHit]:
        found = self.get_many([memory_id for memory_id, _ in ranking])
        return [MemoryHit(found[i], score) for i, score in ranking if i in found]

    def _require(self, memory_id: int) -> Memory:
        memory = self.get(memory_id)
        if memory is None:
            raise RowNotFound("memories", memory_id)
        return memory
