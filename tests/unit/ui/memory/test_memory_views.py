"""The memory browser's pieces on their own: list lines and search-result order."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from pytestqt.qtbot import QtBot

from desktop.core.db import Database, MemoryQuery, MemorySort, MemoryStore
from desktop.core.db.clock import Clock
from desktop.ui.memory.views import HistoryView, first_line, meta_line, sorted_memories


class Ticking:
    """A clock a second further on at every reading, so times differ."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 1
        return self.now


@pytest.mark.parametrize("sort", ["recent", "created", "importance", "reinforced", "alphabetical"])
def test_search_results_are_sorted_as_the_store_sorts(database: Database, sort: MemorySort) -> None:
    clock: Clock = Ticking()
    store = MemoryStore(database, clock=clock)
    for text, importance in [("banana", 0.2), ("Apple", 0.9), ("cherry", 0.5), ("apple pie", 0.5)]:
        store.add(
            f"{text} is liked",
            embedding=None,
            source_kind="harvested",
            actor="harvest",
            importance=importance,
        )
    store.reinforce(3, "harvest")
    store.set_pinned(1, True, "user")
    stored = store.browse(MemoryQuery(sort=sort))
    shuffled = [stored[i] for i in (2, 0, 3, 1)]

    assert sorted_memories(shuffled, sort) == stored
    assert sorted_memories(shuffled, "relevance") == shuffled  # best match first, as found


def test_a_memory_reads_as_its_first_line_and_a_line_of_facts(database: Database) -> None:
    store = MemoryStore(database)
    memory = store.add(
        "First line\nsecond line",
        embedding=None,
        source_kind="dream_merged",
        actor="dream:merge",
        category="music",
        flags=["instruction_like"],
    )
    assert first_line(memory.content) == "First line …"
    assert first_line("  just one  ") == "just one"
    assert meta_line(memory).startswith("⚠ music · from dreaming · seen once · last seen ")
    archived = store.set_status(memory.id, "archived", "user")
    assert meta_line(archived).endswith(" · archived")


def test_history_shows_text_with_quotes_and_markup_as_written(
    qtbot: QtBot, database: Database
) -> None:
    store = MemoryStore(database)
    memory = store.add(
        'The user\'s <b>cat</b> & "Miso"', embedding=None, source_kind="harvested", actor="harvest"
    )
    [added] = store.history(memory.id)

    view = HistoryView(added)
    qtbot.addWidget(view)

    doc = QTextDocument()
    doc.setHtml(view.change.text())
    assert doc.toPlainText() == 'The user\'s <b>cat</b> & "Miso"'
    assert view.change.textFormat() == Qt.TextFormat.RichText
