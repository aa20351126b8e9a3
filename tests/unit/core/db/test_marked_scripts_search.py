"""Schema v17: a word of a script written with marks on its letters (the
vowel signs of Hindi, Bengali or Tamil, the tone marks of Thai) is one word
to the indexes and to a query, and Thai, Lao, Khmer and Burmese, written
without spaces between words, are searched by pairs of neighbouring letters
with their marks, as Chinese is by pairs of characters.

Before, FTS5's tokenizer and the query's words broke a word at each mark:
"दिल्ली" (Delhi) was searched as the letters द, ल, ल, so every Hindi text
holding them matched; a Thai word inside a sentence matched nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, MemoryStore, open_database
from desktop.core.db.connection import Database
from desktop.core.db.fts import indexed_text, match_query
from desktop.core.db.message_search import MessageSearch
from desktop.core.db.migrations import MIGRATIONS, applied_versions
from tests.fakes import HashingEmbedder
from tests.unit.core.db.test_unspaced_search import _add, _found

WORDS_WITH_MARKS = [
    # (a sentence, a word of it, a sentence sharing the word's letters, not the word)
    ("मैं अगले हफ्ते दिल्ली जा रहा हूँ", "दिल्ली", "दल बदल की राजनीति"),  # Hindi
    ("আমি কলকাতায় থাকি", "কলকাতায়", "কাল আমি তাকে দেখলাম"),  # Bengali
    ("நான் நாளை சென்னைக்கு போகிறேன்", "சென்னைக்கு", "நான் சொன்னேன்"),  # Tamil
]
UNSPACED_WITH_MARKS = [
    ("ฉันชอบกินข้าวมันไก่ที่ร้านใกล้บ้าน", "ข้าวมันไก่", "วันนี้ฝนตกหนัก"),  # Thai
    ("ຂ້ອຍຈະໄປວຽງຈັນອາທິດໜ້າ", "ວຽງຈັນ", "ມື້ນີ້ຝົນຕົກ"),  # Lao
    ("ខ្ញុំរស់នៅភ្នំពេញ", "ភ្នំពេញ", "ថ្ងៃនេះភ្លៀង"),  # Khmer
    ("ကျွန်တော် ရန်ကုန်မှာ နေတယ်", "ရန်ကုန်", "ဒီနေ့ မိုးရွာတယ်"),  # Burmese
]
CASES = WORDS_WITH_MARKS + UNSPACED_WITH_MARKS
SCRIPTS = ["hindi", "bengali", "tamil", "thai", "lao", "khmer", "burmese"]


def test_a_word_keeps_its_marks_and_an_unspaced_script_is_searched_by_its_pairs() -> None:
    assert match_query("दिल्ली") == '"दिल्ली"'
    assert match_query("ข้าวมัน") == '"ข้ า" OR "า ว" OR "ว มั" OR "มั น"'
    assert indexed_text("กินข้าว") == " กิ  น  ข้  า  ว "


@pytest.mark.parametrize(("content", "query", "other"), CASES, ids=SCRIPTS)
def test_a_word_with_marks_is_found_and_its_bare_letters_are_not(
    memories: MemoryStore, embedder: HashingEmbedder, content: str, query: str, other: str
) -> None:
    wanted = _add(memories, embedder, content)
    _add(memories, embedder, other)

    assert _found(memories, query) == [wanted.id]


@pytest.mark.parametrize(("content", "query", "other"), CASES, ids=SCRIPTS)
def test_past_messages_are_found_by_such_a_word(
    db: Database, conversations: ConversationStore, content: str, query: str, other: str
) -> None:
    there = conversations.create("there")
    said = conversations.add_message(there.id, "user", content)
    conversations.add_message(conversations.create("else").id, "user", other)

    assert [c.id for c in conversations.search(query)] == [there.id]
    assert [m.id for m in conversations.search_messages(query)] == [said.id]
    search = MessageSearch(db, embedding_model=lambda: "none")
    assert [i for i, _ in search.rank_by_words(query, 10)] == [said.id]


def test_a_version_16_database_has_its_old_texts_indexed_anew(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    content, query, _ = UNSPACED_WITH_MARKS[0]
    with open_database(path, migrations=tuple(m for m in MIGRATIONS if m.version < 17)) as old:
        memory = _add(MemoryStore(old), HashingEmbedder(), content)
        store = ConversationStore(old)
        said = store.add_message(store.create("บ้าน").id, "user", content)

    with open_database(path) as database:
        assert 17 in applied_versions(database)
        assert _found(MemoryStore(database), query) == [memory.id]
        assert [m.id for m in ConversationStore(database).search_messages(query)] == [said.id]
