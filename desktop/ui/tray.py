"""The tray icon and its menu (with a plain-window fallback where no tray exists)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon


def tray_available() -> bool:
    return QSystemTrayIcon.isSystemTrayAvailable()


class Tray(QObject):
    """Signals:
    open_chat_requested(): the user asked for the chat window.
    memories_requested(): the user asked for the memory browser.
    quit_requested(): the user chose Quit.
    """

    open_chat_requested = Signal()
    memories_requested = Signal()
    quit_requested = Signal()

    def __init__(self, icon: QIcon, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.menu = QMenu()
        self.open_action = QAction("Open chat", self.menu)
        self.open_action.triggered.connect(self.open_chat_requested)
        self.memories_action = QAction("Memories…", self.menu)
        self.memories_action.triggered.connect(self.memories_requested)
        self.quit_action = QAction("Quit Reverie", self.menu)
        self.quit_action.triggered.connect(self.quit_requested)
        self.menu.addAction(self.open_action)
        self.menu.addAction(self.memories_action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)
        self.icon = QSystemTrayIcon(icon, self)
        self.icon.setToolTip("Reverie")
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.open_chat_requested.emit()
