"""A layout that sets its items side by side and starts a new row when one is
full, like words in a paragraph: Qt's flow layout example
(widgets/layouts/flowlayout), ported to PySide6.

Its height depends on its width (``heightForWidth``), so a row of chips in a
narrow window wraps instead of making the window wider; it is never wider
than its widest item.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget


class FlowLayout(QLayout):
    """Items left to right at their preferred size, wrapping into rows."""

    def __init__(
        self, parent: QWidget | None = None, *, h_spacing: int = 4, v_spacing: int = 4
    ) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._h_spacing = h_spacing
        self._v_spacing = v_spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem, /) -> None:
        self._items.append(item)

    def count(self, /) -> int:
        return len(self._items)

    def itemAt(self, index: int, /) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int, /) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self, /) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self, /) -> bool:
        return True

    def heightForWidth(self, width: int, /) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect, /) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self, /) -> QSize:
        return self.minimumSize()

    def minimumSize(self, /) -> QSize:
        size = QSize(0, 0)
        for item in self._items:
            if not item.isEmpty():
                size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        """Place the items in *rect* (only measure unless *move*); the height used."""
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, row_height = area.x(), area.y(), 0
        for item in self._items:
            if item.isEmpty():  # a hidden widget takes no place
                continue
            size = item.sizeHint().boundedTo(QSize(max(area.width(), 0), item.sizeHint().height()))
            if x > area.x() and x + size.width() > area.x() + area.width():
                x, y, row_height = area.x(), y + row_height + self._v_spacing, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), size))
            x += size.width() + self._h_spacing
            row_height = max(row_height, size.height())
        return y + row_height - rect.y() + margins.bottom()
