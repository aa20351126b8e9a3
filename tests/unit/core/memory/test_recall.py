"""``Recall``: memories first, excerpts for what they do not already say, none when turned off."""

from __future__ import annotations

from desktop.core.db import ConversationStore, Database, MemoryStore
from desktop.core.db.message_search import MessageSearch
from desktop.core.memory.embedding import Labelled
from desktop.core.memory.excerpts import ExcerptRetriever
from desktop.core.memory.message_index import MessageIndexer
from desktop.core.memory.recall import Recall
from desktop.core.memory.retrieval import MemoryRetriever
from tests.fakes import HashingEmbedder


def test_an_excerpt_a_memory_was_learned_from_gives_way_to_the_memory(database: Database) -> None:
    embedder = HashingEmbedder()
    conversations = ConversationStore(database)
    earlier = conversations.create("boat")
    learned = conversations.add_message(earlier.id, "user", "My sailing boat is named Petrel")
    missed = conversations.add_message(earlier.id, "user", "The sailing club meets on Thursdays")
    memories = MemoryStore(database)
    memory = memories.add(
        "The user's sailing boat is named Petrel",
        embedding=embedder.embed(["The user's sailing boat is named Petrel"])[0],
        source_kind="harvested",
        actor="harvest",
        source_message_ids=[learned.id],
    )
    search = MessageSearch(database)
    MessageIndexer(search, lambda texts: Labelled(embedder.embed(texts), None)).index_missing()
    turned_on = {"excerpts": True}
    recall = Recall(
        MemoryRetriever(memories, embedder.embed),
        ExcerptRetriever(search, embedder.embed),
        memories.source_messages,
        lambda: turned_on["excerpts"],
    )

    found = recall.recall("sailing boat club", excerpts_k=2)

    assert [r.memory.id for r in found.memories] == [memory.id]
    assert [r.excerpt.message_id for r in found.excerpts] == [missed.id]
    turned_on["excerpts"] = False
    assert recall.recall("sailing boat club").excerpts == []
