"""``VectorSearch``: search by meaning over a table of vectors, in two passes (see schema_v3).

A ``VectorTable`` names where one kind of item keeps its vectors, its change
log and its filters: memories (``MEMORY_VECTORS``) and messages (see
``message_vectors``) are searched by the same code.

Only vectors of one embedding model are ever compared (see schema_v4): the
index holds the sign bits of the model searched last, and a search with
another model loads that model's.  A search compares only vectors of the
query's length: a model replaced under the same name by one of another
size (a file or a server's model swapped) left vectors of the old size
under the name, which no query of the new size can be compared with.

The first pass ranks every memory that passes the filters by the Hamming
distance of its sign bits to the query's (``SignIndex``, in memory); the
second re-scores the best ``OVERSAMPLE`` times as many as asked exactly, by
cosine distance over their float vectors read by primary key.  The in-memory
sign bits catch up with the database from ``memory_vector_changes`` before
each search, so a change made by anyone (another store, another process, a
trigger) is seen by the next search.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from desktop.core.db.connection import Database
from desktop.core.db.sign_index import IndexRow, Mark, SignIndex

OVERSAMPLE = 4
"""Sign-bit candidates re-scored per result wanted.  On 20,000 real user
turns (LongMemEval) with the default embedder, 4x keeps 99% of the exact
top 10 and 98% of the exact top 20 in the re-scored top 50 (2x: 99% and 95%)."""
MIN_CANDIDATES = 32
RELOAD_SHARE = 8
"""Past one change in this many memories, reloading beats patching."""
Scope = tuple[bool, str | None, int]
"""Which vectors an index holds: whether of one model, its name, and their sign bytes."""


def of_length(parameter: int) -> str:
    """SQL: the vector ``e.embedding`` (float32) has the length given by the
    query's parameter ``?parameter``, the model in use's (0: not known yet)."""
    return f"(?{parameter} = 0 OR length(e.embedding) = 4 * ?{parameter})"


@dataclass(frozen=True)
class VectorTable:
    """Where items of one kind keep their vectors (``embeddings``, keyed by
    ``key``, with ``embedding`` and ``signs`` columns) and log their changes
    (``changes``, with ``seq``, ``key`` and ``token``).  ``rows`` selects, for
    the ``SignIndex``, each vector's item id, sign bits, status and category
    (aliases ``e`` for the vectors); ``of_model`` is its condition for the
    vectors of one model (one parameter)."""

    embeddings: str
    key: str
    changes: str
    rows: str
    of_model: str


MEMORY_VECTORS = VectorTable(
    "memory_embeddings",
    "memory_id",
    "memory_vector_changes",
    "SELECT e.memory_id, e.signs, m.status, m.category"
    " FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id",
    "m.embedding_model IS ?",
)
_CHUNK = 500  # ids per IN (...) list, well under SQLite's limit on parameters
_ATTEMPTS = 4  # catching up while others write: then search with what there is


class VectorSearch:
    """The vectors in *table* of *database*, searched by meaning."""

    def __init__(self, database: Database, table: VectorTable = MEMORY_VECTORS) -> None:
        self._db = database
        self._table = table
        self._index = SignIndex()
        self._scope: Scope | None = None
        self._scope_lock = threading.Lock()

    def nearest(
        self,
        vector: bytes,
        k: int,
        statuses: Sequence[str],
        category: str | None,
        by_model: bool = False,
        model: str | None = None,
        *,
        other_than: str | None = None,
    ) -> list[tuple[int, float]]:
        """The ids of the *k* items nearest to *vector* (float32 bytes) by
        cosine distance, with their distances, nearest first; only items
        with one of *statuses* (any, if empty) and *category* (any, if None;
        never *other_than*) whose vectors are of *vector*'s length and, if
        *by_model*, *model*'s (None: stored without a model's name)."""
        signs: bytes = self._db.fetch_value("SELECT vec_quantize_binary(?)", (vector,))
        scope: Scope = (by_model, model, len(signs))
        index = self._index_of(scope)
        self._catch_up(index, scope)
        with index.lock:
            candidates = index.nearest(
                signs, max(k * OVERSAMPLE, MIN_CANDIDATES), statuses, category, other_than
            )
        if not candidates:
            return []
        ids: list[int] = []
        blobs: list[bytes] = []
        key, table = self._table.key, self._table.embeddings
        for chunk in _chunks(candidates):
            for row in self._db.fetch_all(
                f"SELECT {key}, embedding FROM {table}"
                f" WHERE {key} IN ({_marks(chunk)}) AND length(embedding) = ?",
                (*chunk, len(vector)),
            ):
                ids.append(int(row[0]))
                blobs.append(row[1])
        if not ids:  # none, or the model changed between embedding and searching
            return []
        vectors = np.frombuffer(b"".join(blobs), np.float32).reshape(len(ids), -1)
        query = np.frombuffer(vector, np.float32)
        norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(query)
        distances = 1.0 - (vectors @ query) / np.where(norms > 0, norms, 1.0)
        order = np.lexsort((np.asarray(ids), distances))[:k]
        return [(ids[i], float(distances[i])) for i in order]

    def _index_of(self, scope: Scope) -> SignIndex:
        """The index of the vectors in *scope* (a fresh one, if it held others)."""
        with self._scope_lock:
            if scope != self._scope:
                self._scope, self._index = scope, SignIndex()
            return self._index

    def _catch_up(self, index: SignIndex, scope: Scope) -> None:
        """Bring the sign bits up to date: patch the memories logged as
        changed, or reload all when never loaded, too far behind, or when the
        last change applied is not in the log any more (rolled back).

        The database is read without the index's lock (a thread inside a
        transaction holds the database's), and what was read is applied only
        if no one else moved the index meanwhile; then look again.
        """
        log, key = self._table.changes, self._table.key
        for _ in range(_ATTEMPTS):
            with index.lock:
                seen = index.seen
            latest, at_seen = self._db.fetch_one(
                f"SELECT coalesce(max(seq), 0), (SELECT token FROM {log} WHERE seq = ?) FROM {log}",
                (seen[0],),
            ) or (0, None)
            intact = 0 <= seen[0] <= latest and (seen[0] == 0 or at_seen == seen[1])
            if intact and seen[0] == latest:
                return
            limit = max(256, len(index) // RELOAD_SHARE)
            changes = (
                self._db.fetch_all(
                    f"SELECT seq, {key}, token FROM {log} WHERE seq > ? ORDER BY seq LIMIT ?",
                    (seen[0], limit + 1),
                )
                if intact
                else []
            )
            if changes and len(changes) <= limit and changes[0][0] == seen[0] + 1:
                changed = sorted({int(row[1]) for row in changes})
                rows = self._rows(scope, changed)
                mark: Mark = (int(changes[-1][0]), bytes(changes[-1][2]))
                with index.lock:
                    if index.seen == seen:
                        index.update(changed, rows, mark)
                continue
            last = self._db.fetch_one(f"SELECT seq, token FROM {log} ORDER BY seq DESC LIMIT 1")
            mark = (0, None) if last is None else (int(last[0]), bytes(last[1]))
            rows = self._rows(scope, None)
            with index.lock:
                if index.seen == seen:
                    index.load(rows, mark)

    def _rows(self, scope: Scope, item_ids: Sequence[int] | None) -> list[IndexRow]:
        """What the index of *scope* holds of *item_ids* (all items, if None)."""
        by_model, model, size = scope
        table = self._table
        select = f"{table.rows} WHERE length(e.signs) = ?"
        given: tuple[str | int | None, ...] = (size,)
        if by_model:
            select, given = f"{select} AND {table.of_model}", (size, model)
        if item_ids is None:
            batches = [self._db.fetch_all(select, given)]
        else:
            batches = [
                self._db.fetch_all(f"{select} AND e.{table.key} IN ({_marks(c)})", (*given, *c))
                for c in _chunks(item_ids)
            ]
        return [(int(r[0]), bytes(r[1]), str(r[2]), str(r[3])) for rows in batches for r in rows]


def _chunks(ids: Sequence[int]) -> Iterator[list[int]]:
    for start in range(0, len(ids), _CHUNK):
        yield list(ids[start : start + _CHUNK])


def _marks(ids: Sequence[int]) -> str:
    return ", ".join("?" * len(ids))
