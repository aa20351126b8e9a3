"""Migration 13: where an imported conversation came from, from a blank
database and from version 12, and the store's writes of imported conversations."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database, ImportedMessage, QueryFailed, open_database
from desktop.core.db.migrations import MIGRATIONS, applied_versions

_BEFORE_V13 = tuple(m for m in MIGRATIONS if m.version < 13)


def _import(
    store: ConversationStore, external_id: str, *texts: str, source: str = "chatgpt"
) -> tuple[int, list[int]] | None:
    messages = [
        ImportedMessage("user" if i % 2 == 0 else "assistant", text, 1_600_000_000.0 + i)
        for i, text in enumerate(texts)
    ]
    with store.transaction() as tx:
        conversation = store.create_imported(
            "from elsewhere",
            imported_from=source,
            external_id=external_id,
            created_at=1_600_000_000.0,
            updated_at=1_600_000_100.0,
            tx=tx,
        )
        if conversation is None:
            return None
        return conversation.id, store.add_imported_messages(conversation.id, messages, tx)


def test_a_version_12_database_keeps_its_conversations_as_its_own(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    with open_database(path, migrations=_BEFORE_V13) as old:
        assert max(applied_versions(old)) == 12
        kept = ConversationStore(old).create("before imports")
        assert kept.imported_from is None  # read without the new columns

    with open_database(path) as database:
        assert 13 in applied_versions(database)
        store = ConversationStore(database)
        again = store.get(kept.id)
        assert again is not None
        assert (again.title, again.imported_from, again.external_id) == (
            "before imports",
            None,
            None,
        )
        assert _import(store, "abc", "hello") is not None
        assert {c.imported_from for c in store.list()} == {None, "chatgpt"}


def test_an_imported_conversation_keeps_its_own_times_and_is_found(db: Database) -> None:
    store = ConversationStore(db, clock=lambda: 1_800_000_000.0)
    imported = _import(store, "abc", "tell me about tomatoes", "they are red")
    assert imported is not None
    conversation_id, message_ids = imported
    conversation = store.get(conversation_id)
    assert conversation is not None
    assert (conversation.created_at, conversation.updated_at) == (1_600_000_000.0, 1_600_000_100.0)
    assert (conversation.imported_from, conversation.external_id) == ("chatgpt", "abc")
    messages = store.messages(conversation_id)
    assert [m.id for m in messages] == message_ids
    assert [m.created_at for m in messages] == [1_600_000_000.0, 1_600_000_001.0]
    assert [c.id for c in store.search("tomatoes")] == [conversation_id]
    assert [c.id for c in store.list()] == [conversation_id]
    checked = db.fetch_all("SELECT secrets_checked FROM messages")
    assert [row[0] for row in checked] == [1, 1]


def test_the_same_conversation_is_imported_once_per_source(db: Database) -> None:
    store = ConversationStore(db)
    assert _import(store, "abc", "first") is not None
    assert _import(store, "abc", "again") is None
    assert _import(store, "abc", "from claude", source="claude") is not None
    store.delete(store.imported("chatgpt", ["abc"])["abc"].id)
    assert _import(store, "abc", "after deleting") is None  # restorable, so still there
    assert set(store.imported("chatgpt", ["abc", "zzz"])) == {"abc"}
    assert db.fetch_value("SELECT count(*) FROM messages") == 2


def test_a_failed_import_leaves_no_half_conversation(db: Database) -> None:
    store = ConversationStore(db)
    with pytest.raises(QueryFailed), store.transaction() as tx:
        conversation = store.create_imported(
            "half",
            imported_from="chatgpt",
            external_id="x",
            created_at=1.0,
            updated_at=1.0,
            tx=tx,
        )
        assert conversation is not None
        store.add_imported_messages(conversation.id, [ImportedMessage("user", "ok", 1.0)], tx)
        store.add_imported_messages(
            conversation.id,
            [ImportedMessage("narrator", "no such role", 1.0)],  # type: ignore[arg-type]  # a role the table refuses
            tx,
        )
    assert db.fetch_value("SELECT count(*) FROM conversations") == 0
    assert db.fetch_value("SELECT count(*) FROM messages") == 0


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE conversations SET imported_from = 'gemini'",
        "UPDATE conversations SET external_id = ''",
    ],
)
def test_the_columns_refuse_what_they_cannot_mean(db: Database, sql: str) -> None:
    ConversationStore(db).create("mine")
    with pytest.raises(QueryFailed), db.transaction() as tx:
        tx.execute(sql)


def test_imported_conversations_are_not_compacted_when_idle(db: Database) -> None:
    store = ConversationStore(db)
    own = store.create("mine")
    for text in ("one", "two", "three"):
        store.add_message(own.id, "user", text)
    imported = _import(store, "abc", "one", "two", "three")
    assert imported is not None
    idle = store.idle_with_live_messages(idle_since=2_000_000_000.0, min_live_messages=3)
    assert [c.id for c in idle] == [own.id]
