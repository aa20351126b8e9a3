"""The tray icon and its menu (with a plain-window fallback where no tray exists).

The icon shows what dreaming is doing: idle (the moon), dreaming (a halo and
a "z", also while it waits for the user to finish chatting) or paused.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal, SignalInstance
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from desktop.ui.widgets.bidi import stored_order

_TOOLTIPS = {
    "idle": "Reverie",
    "dreaming": "Reverie is dreaming: tidying its memories",
    "waiting": "Reverie is dreaming (waiting while you chat)",
    "paused": "Reverie: dreaming is paused",
}


def tray_available() -> bool:
    return QSystemTrayIcon.isSystemTrayAvailable()


class Tray(QObject):
    """Signals:
    open_chat_requested(): the user asked for the chat window.
    memories_requested(): the user asked for the memory browser.
    dream_requested(): the user chose Dream now.
    dreaming_paused(bool): the user paused (True) or resumed (False) dreaming.
    dream_report_requested(): the user asked for the dream report.
    tasks_requested(): the user asked for the tasks window.
    skills_requested(): the user asked for the skill editor.
    work_requested(): the user asked for the Work window (background workers).
    settings_requested(): the user asked for the settings window.
    transfer_requested(): the user asked to import or export (the Import and export window).
    data_folder_requested(): the user asked to see the folder of their data.
    logs_requested(): the user asked to see the folder of Reverie's logs.
    quit_requested(): the user chose Quit.
    """

    open_chat_requested = Signal()
    memories_requested = Signal()
    dream_requested = Signal()
    dreaming_paused = Signal(bool)
    dream_report_requested = Signal()
    tasks_requested = Signal()
    skills_requested = Signal()
    work_requested = Signal()
    settings_requested = Signal()
    transfer_requested = Signal()
    data_folder_requested = Signal()
    logs_requested = Signal()
    quit_requested = Signal()

    def __init__(self, icons: dict[str, QIcon], parent: QObject | None = None) -> None:
        """*icons*: by dreaming state ("idle", "dreaming", "paused")."""
        super().__init__(parent)
        self._icons = icons
        self.menu = QMenu()
        self.open_action = self._action("Open chat", self.open_chat_requested)
        self.memories_action = self._action("Memories…", self.memories_requested)
        self.tasks_action = self._action("Tasks…", self.tasks_requested)
        self.skills_action = self._action("Skills…", self.skills_requested)
        self.work_action = self._action("Work…", self.work_requested)
        self.menu.addSeparator()
        self.dream_action = self._action("Dream now", self.dream_requested)
        self.pause_action = QAction("Pause dreaming", self.menu)
        self.pause_action.setCheckable(True)
        self.pause_action.toggled.connect(self.dreaming_paused)
        self.menu.addAction(self.pause_action)
        self.report_action = self._action("Dream report…", self.dream_report_requested)
        self.menu.addSeparator()
        self.settings_action = self._action("Settings…", self.settings_requested)
        self.transfer_action = self._action("Import or export…", self.transfer_requested)
        self.data_folder_action = self._action("Open data folder", self.data_folder_requested)
        self.logs_action = self._action("Open logs", self.logs_requested)
        self.menu.addSeparator()
        self.quit_action = self._action("Quit Reverie", self.quit_requested)
        self.icon = QSystemTrayIcon(icons["idle"], self)
        self.icon.setToolTip(_TOOLTIPS["idle"])
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)
        self.state = "idle"

    def _action(self, text: str, signal: SignalInstance) -> QAction:
        action = QAction(text, self.menu)
        action.triggered.connect(signal)
        self.menu.addAction(action)
        return action

    def set_dreaming_available(self, available: bool) -> None:
        for action in (self.dream_action, self.pause_action, self.report_action):
            action.setEnabled(available)

    def set_dream_state(self, state: str) -> None:
        """Show what dreaming does: "idle", "dreaming", "waiting" or "paused"."""
        self.state = state
        self.icon.setIcon(self._icons["dreaming" if state == "waiting" else state])
        self.icon.setToolTip(_TOOLTIPS[state])
        self.dream_action.setEnabled(state in ("idle",))
        self.pause_action.blockSignals(True)
        self.pause_action.setChecked(state == "paused")
        self.pause_action.blockSignals(False)

    def notify(self, title: str, text: str) -> None:
        if self.icon.isVisible() and QSystemTrayIcon.supportsMessages():
            # A task's or a worker's words, in their stored order.
            self.icon.showMessage(
                stored_order(title), stored_order(text), self._icons["idle"], 8000
            )

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.open_chat_requested.emit()
