"""``MessageSearch``: all the SQL of finding past messages by their words and meaning.

Only the user's and Reverie's own words (``user`` and ``assistant``
messages) of conversations that are kept and on the record can be found:
the filters are inside every search, so a deleted or off-the-record
conversation is never found, however close its words.  A search may leave
out one conversation (the one being replied in: it is in the prompt
already).  Vectors live in ``message_embeddings`` (see schema_v12) and are
searched in two passes by ``VectorSearch``, as memories are; in its index a
message's status is ``active`` while its conversation may be found and its
category is its conversation's id.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop.core.db.connection import Database
from desktop.core.db.conversations import FORGOTTEN, MessageRole
from desktop.core.db.fts import any_word
from desktop.core.db.memory_writes import vector_blob
from desktop.core.db.vector_search import VectorSearch, VectorTable, of_length
from desktop.core.db.word_search import telling_words_in

_SAID = "m.role IN ('user', 'assistant') AND trim(m.content) <> ''"
"""A message with words of the user's or Reverie's (not a tool's, not empty)."""
_FINDABLE = f"c.deleted_at IS NULL AND NOT c.off_record AND {_SAID} AND NOT {FORGOTTEN}"
"""A message that may be found: said, in a kept, on-record conversation, and
not what a deleted memory was learned from."""
MESSAGE_VECTORS = VectorTable(
    "message_embeddings",
    "message_id",
    "message_vector_changes",
    "SELECT e.message_id, e.signs,"
    f" CASE WHEN {_FINDABLE} THEN 'active' ELSE 'deleted' END, CAST(m.conversation_id AS TEXT)"
    " FROM message_embeddings e JOIN messages m ON m.id = e.message_id"
    " JOIN conversations c ON c.id = m.conversation_id",
    "e.model IS ?",
)
_IN_CHUNK = 500  # ids per IN (...) list, well under SQLite's limit on parameters
Ranking = list[tuple[int, float]]
"""Message ids with their scores (lower is better), best first."""
Embedding = npt.NDArray[np.floating[Any]]


@dataclass(frozen=True)
class Excerpt:
    """A message as recalled: what was said, by whom, when, and where."""

    message_id: int
    conversation_id: int
    conversation_title: str
    created_at: float
    role: MessageRole
    content: str


@dataclass(frozen=True)
class Unembedded:
    message_id: int
    content: str


class MessageSearch:
    """Past messages, found by words and meaning.

    Given *embedding_model* (the name of the model in use, or None while
    there is none), only that model's vectors are searched and messages
    without one are "unembedded"; without it (tests, tools) the vectors of
    the query's length are searched.  Given *vector_length* too (the numbers
    in a vector of the model in use, 0 while not known), a message whose
    vector has another length is unembedded: another model took the name.
    """

    def __init__(
        self,
        database: Database,
        *,
        embedding_model: Callable[[], str | None] | None = None,
        vector_length: Callable[[], int] | None = None,
    ) -> None:
        self._db = database
        self._model = embedding_model
        self._length = vector_length
        self._vectors = VectorSearch(database, MESSAGE_VECTORS)

    def model_in_use(self) -> str | None:
        return None if self._model is None else self._model()

    # -- indexing -------------------------------------------------------------
    def unembedded(self, limit: int) -> list[Unembedded]:
        """Up to *limit* findable messages without a vector of the model in
        use, newest first (what was said lately is the likeliest recalled)."""
        rows = self._db.fetch_all(
            "SELECT m.id, m.content FROM messages m"
            " JOIN conversations c ON c.id = m.conversation_id"
            f" WHERE {_FINDABLE} AND NOT EXISTS ("
            " SELECT 1 FROM message_embeddings e WHERE e.message_id = m.id AND e.model IS ?1"
            f"  AND {of_length(2)})"
            " ORDER BY m.id DESC LIMIT ?3",
            (self.model_in_use(), 0 if self._length is None else self._length(), limit),
        )
        return [Unembedded(int(r[0]), str(r[1])) for r in rows]

    def set_vectors(
        self, embedded: Sequence[tuple[Unembedded, Embedding]], model: str | None
    ) -> int:
        """Store each message's vector, made by *model* from its text; a
        message changed, deleted or taken off the record meanwhile gets none.
        How many were stored."""
        stored = 0
        with self._db.transaction() as tx:
            for message, vector in embedded:
                stored += tx.execute(
                    "INSERT INTO message_embeddings (message_id, model, embedding, signs)"
                    " SELECT m.id, ?2, ?3, vec_quantize_binary(?3) FROM messages m"
                    " JOIN conversations c ON c.id = m.conversation_id"
                    f" WHERE m.id = ?1 AND m.content = ?4 AND {_FINDABLE}"
                    " ON CONFLICT (message_id) DO UPDATE SET model = excluded.model,"
                    " embedding = excluded.embedding, signs = excluded.signs",
                    (message.message_id, model, vector_blob(vector), message.content),
                ).rowcount
        return stored

    # -- searching ------------------------------------------------------------
    def rank_by_words(self, query: str, limit: int, other_than: int | None = None) -> Ranking:
        """Ids of the findable messages matching the telling words of
        *query* with their bm25 scores, best first; never of conversation
        *other_than*.  Ranked first and filtered after (see
        ``MemoryStore.rank_by_words``), deeper while the filters leave too few."""
        words = telling_words_in(self._db, "messages_fts", "messages", query)
        fts_query = any_word(words) if limit >= 1 else None
        if fts_query is None:
            return []
        depth = 2 * limit
        while True:
            rows = self._db.fetch_all(
                "SELECT f.rowid, f.score FROM (SELECT rowid, bm25(messages_fts) AS score"
                " FROM messages_fts WHERE messages_fts MATCH ? ORDER BY score LIMIT ?) AS f"
                " JOIN messages m ON m.id = f.rowid"
                " JOIN conversations c ON c.id = m.conversation_id"
                f" WHERE {_FINDABLE} AND m.conversation_id IS NOT ? ORDER BY f.score, f.rowid",
                (fts_query, depth, other_than),
            )
            if len(rows) >= limit or self._matches(fts_query, depth) < depth:
                return [(int(r[0]), float(r[1])) for r in rows[:limit]]
            depth *= 4

    def _matches(self, fts_query: str, cap: int) -> int:
        return int(
            self._db.fetch_value(
                "SELECT count(*) FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ?"
                " LIMIT ?)",
                (fts_query, cap),
            )
        )

    def rank_by_meaning(
        self, embedding: Embedding, k: int, other_than: int | None = None
    ) -> Ranking:
        """Ids of the *k* findable messages nearest to *embedding* with their
        cosine distances, nearest first; never of conversation *other_than*."""
        model = self.model_in_use()
        return self._vectors.nearest(
            vector_blob(embedding),
            k,
            ("active",),
            None,
            self._model is not None,
            model,
            other_than=None if other_than is None else str(other_than),
        )

    def excerpts(self, message_ids: Sequence[int]) -> dict[int, Excerpt]:
        """The findable messages among *message_ids*, by id (read again after
        a search: a conversation may have been deleted in between)."""
        found: dict[int, Excerpt] = {}
        for start in range(0, len(message_ids), _IN_CHUNK):
            chunk = list(message_ids[start : start + _IN_CHUNK])
            rows = self._db.fetch_all(
                "SELECT m.id, m.conversation_id, c.title, m.created_at, m.role, m.content"
                " FROM messages m JOIN conversations c ON c.id = m.conversation_id"
                f" WHERE {_FINDABLE} AND m.id IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            found.update((int(r[0]), Excerpt(*r)) for r in rows)
        return found

    def neighbours(self, message_ids: Sequence[int]) -> dict[int, tuple[int, ...]]:
        """For each of *message_ids*, the findable messages said just before
        and just after it in its conversation (message order is the
        conversation's order)."""
        found: dict[int, tuple[int, ...]] = {}
        for start in range(0, len(message_ids), _IN_CHUNK):
            chunk = list(message_ids[start : start + _IN_CHUNK])
            rows = self._db.fetch_all(
                "SELECT x.id,"
                " (SELECT max(m.id) FROM messages m WHERE m.conversation_id = x.conversation_id"
                f"  AND m.id < x.id AND {_SAID}),"
                " (SELECT min(m.id) FROM messages m WHERE m.conversation_id = x.conversation_id"
                f"  AND m.id > x.id AND {_SAID})"
                f" FROM messages x WHERE x.id IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            found.update(
                (int(r[0]), tuple(int(n) for n in (r[1], r[2]) if n is not None)) for r in rows
            )
        return found
