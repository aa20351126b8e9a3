"""The memory browser's search box, filters and sort order, as one query.

Searching sorts by best match; clearing the search brings back the order
chosen before.  Typing is debounced: ``changed`` fires once typing pauses,
and at once when a filter or the order changes.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from desktop.core.db import MemoryQuery, MemorySort, MemoryStatus
from desktop.core.db.memory_rows import MEMORY_STATUSES, SOURCE_KINDS
from desktop.ui.memory.views import SOURCE_NAMES
from desktop.ui.widgets.direction_guard import TextWarningBar
from desktop.ui.widgets.labels import named

SEARCH_DELAY_MS = 250  # search once typing pauses, not on every key
_STATUS_FILTERS: dict[str, tuple[str, tuple[MemoryStatus, ...]]] = {
    "active": ("Active", ("active",)),
    "archived": ("Archived", ("archived",)),
    "deleted": ("Deleted", ("deleted",)),
    "superseded": ("Replaced", ("superseded",)),
    "all": ("Any status", MEMORY_STATUSES),
}
_SORTS: dict[MemorySort, str] = {
    "relevance": "Best match",
    "recent": "Recently seen",
    "created": "Newest",
    "importance": "Most important",
    "reinforced": "Most often seen",
    "alphabetical": "A to Z",
}


class MemoryFilters(QWidget):
    """The search row (with the owner's *buttons* beside the box) over the filters row.

    Signals:
        changed(): the query changed; the owner refills its list.
    """

    changed = Signal()

    def __init__(self, buttons: Sequence[QWidget] = ()) -> None:
        super().__init__()
        self._sort_before_search: MemorySort | None = None
        self.search = named(QLineEdit(), "memory-search", "Search memories")
        self.search.setPlaceholderText("Search by words or meaning (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        sources = [(SOURCE_NAMES[kind].capitalize(), kind) for kind in SOURCE_KINDS]
        self.category_filter = _combo("memory-category", "Category", [("All categories", "")])
        self.source_filter = _combo(
            "memory-source-filter", "Source", [("All sources", ""), *sources]
        )
        self.status_filter = _combo(
            "memory-status", "Status", [(label, key) for key, (label, _) in _STATUS_FILTERS.items()]
        )
        self.pinned_filter = _combo(
            "memory-pinned",
            "Pinned",
            [("Pinned or not", ""), ("Pinned only", "yes"), ("Not pinned", "no")],
        )
        self.sort_box = _combo("memory-sort", "Sort", [(v, k) for k, v in _SORTS.items()])
        self.sort_box.setCurrentIndex(self.sort_box.findData("recent"))
        self._timer = QTimer(self, singleShot=True, interval=SEARCH_DELAY_MS)
        self._timer.timeout.connect(self.changed)
        self.search.textChanged.connect(self._on_search_edited)
        for combo in self._combos():
            combo.currentIndexChanged.connect(self._on_combo_changed)
        self._lay_out(buttons)

    def _lay_out(self, buttons: Sequence[QWidget]) -> None:
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        for button in buttons:
            top.addWidget(button)
        sort_label = named(QLabel("Sort:"), "memory-sort-label")
        sort_label.setBuddy(self.sort_box)
        filters = QHBoxLayout()
        for combo in self._combos()[:-1]:
            filters.addWidget(combo)
        filters.addStretch(1)
        filters.addWidget(sort_label)
        filters.addWidget(self.sort_box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(TextWarningBar(self.search))
        layout.addLayout(filters)

    def _combos(self) -> tuple[QComboBox, ...]:
        return (
            self.category_filter,
            self.source_filter,
            self.status_filter,
            self.pinned_filter,
            self.sort_box,
        )

    def query(self) -> MemoryQuery:
        """What the search box, the filters and the order ask for."""
        category = self.category_filter.currentData()
        source = self.source_filter.currentData()
        pinned = self.pinned_filter.currentData()
        return MemoryQuery(
            text=self.search.text().strip(),
            statuses=_STATUS_FILTERS[self.status_filter.currentData()][1],
            categories=(category,) if category else (),
            source_kinds=(source,) if source else (),
            pinned=None if not pinned else pinned == "yes",
            sort=self.sort_box.currentData(),
        )

    def settle(self) -> None:
        """Forget typing not yet acted on: the owner is refilling its list now."""
        self._timer.stop()

    def set_categories(self, categories: list[str]) -> None:
        """Offer *categories* (keeping the chosen one, if still there)."""
        combo = self.category_filter
        if categories == [combo.itemData(i) for i in range(1, combo.count())]:
            return
        current = combo.currentData()
        combo.blockSignals(True)
        while combo.count() > 1:
            combo.removeItem(1)
        for category in categories:
            combo.addItem(category.capitalize(), category)
        combo.setCurrentIndex(max(0, combo.findData(current)))
        combo.blockSignals(False)

    def show_everything_with(self, status: MemoryStatus) -> None:
        """No search and no filter but *status*, quietly: the owner refills its list."""
        for widget in (self.search, *self._combos()):
            widget.blockSignals(True)
        self.search.clear()
        self._sort_before_search = None
        for combo in (self.category_filter, self.source_filter, self.pinned_filter):
            combo.setCurrentIndex(0)
        self.status_filter.setCurrentIndex(self.status_filter.findData(status))
        if self.sort_box.currentData() == "relevance":
            self.sort_box.setCurrentIndex(self.sort_box.findData("recent"))
        for widget in (self.search, *self._combos()):
            widget.blockSignals(False)
        self._timer.stop()

    def _on_combo_changed(self) -> None:
        self._timer.stop()
        self.changed.emit()

    def _on_search_edited(self, text: str) -> None:
        searching, sort = bool(text.strip()), self.sort_box.currentData()
        self.sort_box.blockSignals(True)  # the timer tells the owner once typing pauses
        if searching and self._sort_before_search is None:
            self._sort_before_search = sort
            self.sort_box.setCurrentIndex(self.sort_box.findData("relevance"))
        elif not searching and self._sort_before_search is not None:
            if sort == "relevance":
                self.sort_box.setCurrentIndex(self.sort_box.findData(self._sort_before_search))
            self._sort_before_search = None
        self.sort_box.blockSignals(False)
        self._timer.start()


def _combo(name: str, accessible: str, entries: list[tuple[str, str]]) -> QComboBox:
    combo = named(QComboBox(), name, accessible)
    for label, key in entries:
        combo.addItem(label, key)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    return combo
