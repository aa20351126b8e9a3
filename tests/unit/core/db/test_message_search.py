"""Migration 12 and ``MessageSearch``: message vectors, what may be found, and
what takes a vector away (an edit, a deletion, an erasure, going off the record)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.db.message_search import MessageSearch
from desktop.core.db.migrations import MIGRATIONS, applied_versions
from desktop.core.db.purge import Erasable, PurgeStore
from desktop.core.memory.embedding import Labelled
from desktop.core.memory.message_index import MessageIndexer
from tests.fakes import HashingEmbedder

_BEFORE_V12 = tuple(m for m in MIGRATIONS if m.version < 12)


def _indexed(database: Database) -> tuple[MessageSearch, HashingEmbedder]:
    embedder = HashingEmbedder()
    search = MessageSearch(database, embedding_model=lambda: embedder.name)
    MessageIndexer(
        search, lambda texts: Labelled(embedder.embed(texts), embedder.name)
    ).index_missing()
    return search, embedder


def _vectors(database: Database) -> set[int]:
    return {int(r[0]) for r in database.fetch_all("SELECT message_id FROM message_embeddings")}


def test_a_version_11_database_gains_message_vectors_for_its_old_messages(
    tmp_path: Path,
) -> None:
    path = tmp_path / "reverie.sqlite3"
    with open_database(path, migrations=_BEFORE_V12) as old:
        assert max(applied_versions(old)) == 11
        store = ConversationStore(old)
        kept = store.create("before recall")
        said = store.add_message(kept.id, "user", "My sister Ines lives in Lisbon")

    with open_database(path) as database:
        assert 12 in applied_versions(database)
        search, embedder = _indexed(database)
        assert _vectors(database) == {said.id}
        vector = embedder.embed(["where does Ines live"])[0]
        assert [i for i, _ in search.rank_by_meaning(vector, 5)] == [said.id]


def test_only_the_words_of_kept_on_record_conversations_are_indexed_and_found(
    database: Database,
) -> None:
    store = ConversationStore(database)
    kept = store.create("kept")
    secret = store.create("private", off_record=True)
    gone = store.create("gone")
    found = store.add_message(kept.id, "user", "The piano tuner comes on Friday")
    store.add_message(kept.id, "tool", "piano tuner tool output")
    store.add_message(secret.id, "user", "The piano tuner is my secret crush")
    store.add_message(gone.id, "user", "The piano tuner cancelled")
    store.delete(gone.id)

    search, embedder = _indexed(database)

    assert _vectors(database) == {found.id}
    assert [i for i, _ in search.rank_by_words("piano tuner", 10)] == [found.id]
    vector = embedder.embed(["piano tuner"])[0]
    assert [i for i, _ in search.rank_by_meaning(vector, 10)] == [found.id]
    assert search.rank_by_words("piano tuner", 10, other_than=kept.id) == []
    assert search.rank_by_meaning(vector, 10, other_than=kept.id) == []


def test_a_deleted_conversation_is_not_found_and_a_restored_one_is_again(
    database: Database,
) -> None:
    store = ConversationStore(database)
    conversation = store.create("trip")
    said = store.add_message(conversation.id, "user", "We booked the ferry to Hydra")
    search, embedder = _indexed(database)
    vector = embedder.embed(["ferry to Hydra"])[0]
    assert [i for i, _ in search.rank_by_meaning(vector, 5)] == [said.id]

    store.delete(conversation.id)
    assert search.rank_by_meaning(vector, 5) == []
    assert search.rank_by_words("ferry Hydra", 5) == []
    assert search.excerpts([said.id]) == {}

    store.restore(conversation.id)
    assert [i for i, _ in search.rank_by_meaning(vector, 5)] == [said.id]


def test_a_changed_message_loses_its_vector_and_is_embedded_again(database: Database) -> None:
    store = ConversationStore(database)
    conversation = store.create("c")
    said = store.add_message(conversation.id, "user", "My locker code is on a note")
    search, embedder = _indexed(database)
    with store.transaction() as tx:
        store.rewrite_conversation(conversation.id, ["locker"], lambda t: t.replace("My", "A"), tx)

    assert _vectors(database) == set()
    assert [m.message_id for m in search.unembedded(10)] == [said.id]
    MessageIndexer(
        search, lambda texts: Labelled(embedder.embed(texts), embedder.name)
    ).index_missing()
    stored = database.fetch_value("SELECT embedding FROM message_embeddings")
    expected = embedder.embed(["A locker code is on a note"])[0]
    assert np.allclose(np.frombuffer(stored, np.float32), expected)


def test_a_vector_made_from_text_changed_meanwhile_is_not_stored(database: Database) -> None:
    store = ConversationStore(database)
    conversation = store.create("c")
    store.add_message(conversation.id, "user", "first words")
    embedder = HashingEmbedder()
    search = MessageSearch(database)
    pending = search.unembedded(10)
    with store.transaction() as tx:
        store.rewrite_conversation(conversation.id, ["first"], lambda t: "other words", tx)

    assert search.set_vectors([(pending[0], embedder.embed(["first words"])[0])], None) == 0


def test_erasing_a_conversation_or_going_off_the_record_takes_its_vectors(
    database: Database,
) -> None:
    store = ConversationStore(database)
    erased = store.create("erased")
    private = store.create("private later")
    store.add_message(erased.id, "user", "A thing to forget")
    store.add_message(private.id, "user", "A thing said before going off the record")
    _indexed(database)
    assert len(_vectors(database)) == 2

    store.delete(erased.id)
    with database.transaction() as tx:
        tx.execute("UPDATE conversations SET off_record = 1 WHERE id = ?", (private.id,))
    PurgeStore(database).erase(Erasable((), (erased.id,)), now=0.0)

    assert _vectors(database) == set()
    assert (
        database.fetch_value(
            "SELECT count(*) FROM messages WHERE conversation_id = ?", (erased.id,)
        )
        == 0
    )


def test_neighbours_are_the_messages_just_before_and_after_in_the_conversation(
    database: Database,
) -> None:
    store = ConversationStore(database)
    one, two = store.create("one"), store.create("two")
    first = store.add_message(one.id, "user", "a")
    store.add_message(two.id, "user", "elsewhere")
    store.add_message(one.id, "tool", "not said by anyone")
    second = store.add_message(one.id, "assistant", "b")
    third = store.add_message(one.id, "user", "c")

    search = MessageSearch(database)
    assert search.neighbours([first.id, second.id]) == {
        first.id: (second.id,),
        second.id: (first.id, third.id),
    }
