"""The memory browser's search box, filters and order, on their own."""

from __future__ import annotations

from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from desktop.core.db import MemoryQuery
from desktop.core.db.memory_rows import MEMORY_STATUSES
from desktop.ui.memory.filters import SEARCH_DELAY_MS, MemoryFilters


def test_the_widgets_make_one_query(qtbot: QtBot) -> None:
    extra = QPushButton("Export…")
    filters = MemoryFilters([extra])
    qtbot.addWidget(filters)
    assert filters.query() == MemoryQuery()
    filters.set_categories(["people", "places"])
    changes: list[MemoryQuery] = []
    filters.changed.connect(lambda: changes.append(filters.query()))

    for combo, key in [
        (filters.category_filter, "places"),
        (filters.source_filter, "harvested"),
        (filters.status_filter, "all"),
        (filters.pinned_filter, "no"),
        (filters.sort_box, "alphabetical"),
    ]:
        combo.setCurrentIndex(combo.findData(key))

    assert len(changes) == 5  # each filter at once, no waiting
    assert changes[-1] == MemoryQuery(
        statuses=MEMORY_STATUSES,
        categories=("places",),
        source_kinds=("harvested",),
        pinned=False,
        sort="alphabetical",
    )
    filters.set_categories(["people"])  # "places" went: back to all categories
    assert filters.query().categories == ()
    assert extra.parent() is filters


def test_typing_is_answered_once_it_pauses_by_best_match(qtbot: QtBot) -> None:
    filters = MemoryFilters()
    qtbot.addWidget(filters)
    changes: list[MemoryQuery] = []
    filters.changed.connect(lambda: changes.append(filters.query()))

    with qtbot.waitSignal(filters.changed, timeout=SEARCH_DELAY_MS * 8):
        qtbot.keyClicks(filters.search, "green tea")
        assert changes == []
    assert [(q.text, q.sort) for q in changes] == [("green tea", "relevance")]

    filters.show_everything_with("archived")
    assert filters.query() == MemoryQuery(statuses=("archived",))
    assert len(changes) == 1  # quietly: the owner refills its list itself
