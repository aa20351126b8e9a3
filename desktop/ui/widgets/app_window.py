"""What the windows beside the chat share (memories, dreams, skills, tasks).

Each opens in front when asked (``present``), reads its data again whenever
it is shown again (the model or a dream may have changed it meanwhile), and
has one line for a notice and one for a problem, never both at once.  Their
lists draw each item as a card, and say in a sentence when they are empty.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QListWidget, QStackedWidget, QStyledItemDelegate, QWidget

from desktop.ui.widgets.labels import named, plain_label


class AppWindow(QWidget):
    """A top-level window; subclasses build ``notice`` and ``problem``
    (``build_status_lines``) and implement ``refresh``."""

    notice: QLabel
    problem: QLabel

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)

    def refresh(self) -> None:
        raise NotImplementedError

    def present(self) -> None:
        """Show the window in front, up to date (from the tray or the chat)."""
        self.show()
        self.raise_()
        self.activateWindow()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not event.spontaneous():  # shown again: what it shows may have changed
            self.refresh()

    def build_status_lines(self, prefix: str) -> None:
        """``notice`` and ``problem``, hidden until there is something to say,
        as plain text (they may quote what the user wrote)."""
        self.notice = named(plain_label(), f"{prefix}-notice", "Notice")
        self.problem = named(plain_label(), f"{prefix}-problem", "Problem")
        for label in (self.notice, self.problem):
            label.setWordWrap(True)
            label.hide()

    def show_notice(self, text: str) -> None:
        self.problem.hide()
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def show_problem(self, text: str) -> None:
        self.notice.hide()
        self.problem.setText(text)
        self.problem.show()


def card_list(name: str, accessible: str, delegate: type[QStyledItemDelegate]) -> QListWidget:
    """A list whose items *delegate* draws as cards of one height."""
    items = named(QListWidget(), name, accessible)
    items.setItemDelegate(delegate(items))
    items.setMouseTracking(True)
    items.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    items.setUniformItemSizes(True)
    return items


class ListOrEmpty(QStackedWidget):
    """*items*, or in their place a sentence saying why there are none."""

    def __init__(self, items: QWidget, empty_text: str, empty_name: str) -> None:
        super().__init__()
        self.items = items
        self.empty_label = named(plain_label(empty_text), empty_name)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.addWidget(items)
        self.addWidget(self.empty_label)
