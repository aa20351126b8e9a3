"""The row under the message box: the buttons that open Reverie's other
windows (the way in where the desktop has no tray), then Stop and Send."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from desktop.ui.widgets.flow_layout import FlowLayout


def _button(label: str, name: str, accessible: str, tip: str) -> QPushButton:
    button = QPushButton(label)
    button.setObjectName(name)
    button.setAccessibleName(accessible)
    button.setToolTip(tip)
    return button


class ChatButtons(QWidget):
    """The buttons, in reading order; the app shows Tasks, Skills, Dreams and Work
    once it has what they open."""

    def __init__(self) -> None:
        super().__init__()
        self.memories = _button(
            "Memories…",
            "memories",
            "Open the memory browser",
            "What Reverie remembers about you (Ctrl+M)",
        )
        self.tasks = _button(
            "Tasks…", "tasks", "Open the tasks window", "What Reverie keeps for you to do"
        )
        self.skills = _button(
            "Skills…",
            "skills",
            "Open the skill editor",
            "The procedures Reverie has learned, to read and edit",
        )
        self.dreams = _button(
            "Dreams…",
            "dreams",
            "Open the dream report",
            "What dreaming changed in what Reverie remembers, to review and undo",
        )
        self.work = _button(
            "Work…",
            "work",
            "Open the Work window",
            "The background work Reverie was asked to do, to follow, cancel or retry",
        )
        self.settings = _button(
            "Settings…",
            "settings",
            "Open the settings",
            "Models, and how Reverie chats, remembers and dreams (Ctrl+,)",
        )
        self.stop = _button("Stop", "stop", "Stop the reply", "Stop (Esc)")
        self.stop.setEnabled(False)
        self.send = _button("Send", "send", "Send message", "Send (Enter)")
        for hidden in (self.tasks, self.skills, self.dreams, self.work):
            hidden.hide()
        openers = FlowLayout()  # onto a second row in a narrow window
        openers.setContentsMargins(0, 0, 0, 0)
        for opener in (
            self.memories,
            self.tasks,
            self.skills,
            self.dreams,
            self.work,
            self.settings,
        ):
            openers.addWidget(opener)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(openers, 1)
        layout.addWidget(self.stop, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.send, 0, Qt.AlignmentFlag.AlignTop)
