"""``MessageIndexer``: gives past messages their vectors, in the background.

A message is found by its words as soon as it is stored (the full-text
index is kept by triggers); to be found by meaning it needs a vector, which
costs a model call.  That call never happens in the user's turn: the
product's background job (``index_missing``, beside ``embed_missing`` for
memories) embeds what is missing in small batches at background priority,
so a reply waits for none of it; the benchmark calls the same function.
Messages whose text changed lost their vector (schema_v12) and are embedded
again here; so are all of them after the user changes embedding models.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from desktop.core.db import Database
from desktop.core.db.message_search import MessageSearch
from desktop.core.memory.embedding import Embeddings, Labelled
from models.broker import InferenceBroker, Priority

EmbedTexts = Callable[[Sequence[str]], Labelled | None]
"""Vectors of texts to be found (one row each) with the model that made
them; None when no embedder can make them."""


def searched_with(database: Database, embeddings: Embeddings) -> MessageSearch:
    """*database*'s past messages, whose vectors are those of the model
    *embeddings* uses now (of its name and its vectors' length)."""
    return MessageSearch(
        database,
        embedding_model=lambda: embeddings.model_name,
        vector_length=embeddings.vector_length,
    )


class MessageIndexer:
    """Embeds the findable messages of *search* that have no vector of the
    model in use, with *embed* (in the product: the broker at background
    priority), each batch stored under the model that made it (the one in
    use may be switched while a batch is embedded)."""

    def __init__(self, search: MessageSearch, embed: EmbedTexts) -> None:
        self._search = search
        self._embed = embed

    @classmethod
    def over(cls, database: Database, broker: InferenceBroker) -> MessageIndexer:
        """The indexer of *database*'s messages, embedding through *broker*
        behind the chat's own calls (background priority)."""
        embeddings = Embeddings(broker)
        search = searched_with(database, embeddings)
        return cls(search, lambda texts: embeddings.labelled(texts, Priority.BACKGROUND))

    def index_missing(self, batch: int = 32, limit: int | None = None) -> int:
        """Embed missing messages, newest first, *batch* at a time, until
        none is missing (or *limit* were embedded); how many got a vector.
        0 when there is no embedder."""
        done = 0
        while limit is None or done < limit:
            wanted = batch if limit is None else min(batch, limit - done)
            pending = self._search.unembedded(wanted)
            if not pending:
                break
            made = self._embed([message.content for message in pending])
            if made is None:
                break
            stored = self._search.set_vectors(
                list(zip(pending, made.vectors, strict=True)), made.model
            )
            done += stored
            if stored == 0 or len(pending) < wanted:
                break  # changed meanwhile: the next run tries again
        return done
