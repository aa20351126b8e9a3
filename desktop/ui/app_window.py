"""What the windows beside the chat share (memories, dreams, skills, tasks).

Each opens in front when asked (``present``), reads its data again whenever
it is shown again (the model or a dream may have changed it meanwhile), and
has one line for a notice and one for a problem, never both at once.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QWidget


class AppWindow(QWidget):
    """A top-level window; subclasses build ``notice`` and ``problem`` and
    implement ``refresh``."""

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

    def show_notice(self, text: str) -> None:
        self.problem.hide()
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def show_problem(self, text: str) -> None:
        self.notice.hide()
        self.problem.setText(text)
        self.problem.show()
