"""Schema v16: memories and past messages are found by a word inside a
sentence of Chinese, Japanese or Korean, and by compatibility forms
("file" finds "ﬁle"), whatever the search (the memory browser, the
conversation search, recall for a reply)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, MemoryStore, open_database
from desktop.core.db.connection import Database
from desktop.core.db.fts import indexed_text, match_query
from desktop.core.db.memory_rows import Memory
from desktop.core.db.message_search import MessageSearch
from desktop.core.db.migrations import MIGRATIONS, applied_versions
from tests.fakes import HashingEmbedder


def _add(store: MemoryStore, embedder: HashingEmbedder, content: str) -> Memory:
    return store.add(
        content,
        embedding=embedder.embed([content])[0],
        source_kind="harvested",
        actor="harvest",
        embedding_model=embedder.name,
    )


def _found(store: MemoryStore, query: str) -> list[int]:
    return [hit.memory.id for hit in store.search_text(query, 10)]


def test_a_run_of_unspaced_characters_is_searched_as_its_pairs() -> None:
    assert match_query("东京") == '"东 京"'
    assert match_query("猫") == '"猫"'
    assert match_query("去东京吗") == '"去 东" OR "东 京" OR "京 吗"'
    assert match_query("iPhone手机 new") == '"iPhone" OR "手 机" OR "new"'
    assert match_query("東京", every_word=True) == '"東 京"'


def test_the_index_holds_compatibility_forms_and_unspaced_characters_alone() -> None:
    assert indexed_text("a ﬁle, \uff26\uff29\uff2c\uff25 x²") == "a file, FILE x2"
    assert indexed_text("我去东京") == " 我  去  东  京 "
    assert indexed_text("ｶﾀｶﾅ") == " カ  タ  カ  ナ "  # half-width katakana made full
    assert indexed_text("plain ascii stays") == "plain ascii stays"


@pytest.mark.parametrize(
    ("content", "query"),
    [
        ("我下周去东京出差", "东京"),
        ("来週は東京に行きます", "東京"),
        ("저는 서울에 살아요", "서울"),
        ("Bought a new ﬁle cabinet", "file"),
        ("\uff37\uff29\uff26\uff29 router in the hall", "wifi"),  # full-width letters
        ("ｶﾀｶﾅ is written in half-width", "カタカナ"),
    ],
)
def test_a_word_inside_an_unspaced_sentence_or_a_compatibility_form_is_found(
    memories: MemoryStore, embedder: HashingEmbedder, content: str, query: str
) -> None:
    wanted = _add(memories, embedder, content)
    _add(memories, embedder, "京都的秋天很美")  # shares a character, not the word
    _add(memories, embedder, "Walks the dog every morning")

    assert _found(memories, query) == [wanted.id]


def test_the_memory_sharing_more_of_the_questions_pairs_ranks_first(
    memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    trip = _add(memories, embedder, "我下周去东京出差\uff0c住在新宿")
    other = _add(memories, embedder, "东京的地铁很方便")

    assert _found(memories, "我什么时候去东京出差") == [trip.id, other.id]


def test_conversations_and_past_messages_are_found_by_a_word_inside_a_sentence(
    db: Database, conversations: ConversationStore
) -> None:
    trip = conversations.create("旅行")
    said = conversations.add_message(trip.id, "user", "来週は大阪で友達に会います")
    elsewhere = conversations.create("other")
    conversations.add_message(elsewhere.id, "user", "今日は雨です")

    assert [c.id for c in conversations.search("大阪")] == [trip.id]
    assert [m.id for m in conversations.search_messages("大阪")] == [said.id]
    search = MessageSearch(db, embedding_model=lambda: "none")
    assert [i for i, _ in search.rank_by_words("大阪で誰に会う", 10)] == [said.id]


def test_a_changed_or_erased_text_is_no_longer_found_by_its_old_words(
    db: Database, memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    moved = _add(memories, embedder, "住在东京")
    gone = _add(memories, embedder, "喜欢东京的夜景")

    memories.update_content(moved.id, "住在大阪", None, "user")
    with db.transaction() as tx:  # as an erasure does
        tx.execute("DELETE FROM memories WHERE id = ?", (gone.id,))

    assert db.fetch_value("SELECT count(*) FROM memories_fts WHERE rowid = ?", (gone.id,)) == 0
    assert _found(memories, "东京") == []
    assert _found(memories, "大阪") == [moved.id]


def test_a_version_15_database_has_its_old_texts_indexed_anew(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    embedder = HashingEmbedder()
    with open_database(path, migrations=tuple(m for m in MIGRATIONS if m.version < 16)) as old:
        memory = _add(MemoryStore(old), embedder, "妹妹住在上海")
        store = ConversationStore(old)
        said = store.add_message(store.create("家").id, "user", "妹妹下个月来上海")
        assert _found(MemoryStore(old), "上海") == []  # one word to the old tokenizer

    with open_database(path) as database:
        assert 16 in applied_versions(database)
        assert _found(MemoryStore(database), "上海") == [memory.id]
        assert [m.id for m in ConversationStore(database).search_messages("上海")] == [said.id]
