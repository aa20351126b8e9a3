"""``MessageIndexer`` and ``ExcerptRetriever`` as the product builds them: through
the inference broker, each message embedded once by the model in use."""

from __future__ import annotations

from desktop.core.db import ConversationStore, Database
from desktop.core.db.message_search import MessageSearch
from desktop.core.memory.embedding import Labelled
from desktop.core.memory.excerpts import ExcerptRetriever
from desktop.core.memory.message_index import MessageIndexer
from desktop.core.privacy.redaction import Redactor
from models.broker import InferenceBroker
from tests.fakes import HashingEmbedder


def test_messages_are_embedded_once_through_the_broker_and_recalled(
    database: Database, broker: InferenceBroker
) -> None:
    store = ConversationStore(database)
    earlier = store.create("plants")
    said = store.add_message(earlier.id, "user", "My fern is called Gerald")
    store.add_message(earlier.id, "assistant", "")  # nothing to embed
    now = store.create("today")
    store.add_message(now.id, "user", "What is my fern called?")
    indexer = MessageIndexer.over(database, broker)

    assert indexer.index_missing(batch=1) == 2
    assert indexer.index_missing() == 0
    models = database.fetch_all("SELECT DISTINCT model FROM message_embeddings")
    assert [row[0] for row in models] == [broker.embedder_name]

    found = ExcerptRetriever.over(database, broker, Redactor()).retrieve(
        "fern Gerald", other_than=now.id
    )
    assert [r.excerpt.message_id for r in found] == [said.id]


def test_a_new_embedding_model_gets_every_message_embedded_again(database: Database) -> None:
    store = ConversationStore(database)
    conversation = store.create("c")
    store.add_message(conversation.id, "user", "one thing")
    store.add_message(conversation.id, "assistant", "another thing")
    in_use = {"model": "old"}
    search = MessageSearch(database, embedding_model=lambda: in_use["model"])
    embedder = HashingEmbedder()
    indexer = MessageIndexer(search, lambda texts: Labelled(embedder.embed(texts), in_use["model"]))

    assert indexer.index_missing() == 2
    in_use["model"] = "new"
    assert search.rank_by_meaning(embedder.embed(["thing"])[0], 5) == []
    assert indexer.index_missing() == 2
    assert indexer.index_missing() == 0
    assert len(search.rank_by_meaning(embedder.embed(["thing"])[0], 5)) == 2
