"""The box the user writes in, and the bar saying a message is being edited.

Enter sends and Shift+Enter starts a new line, as in every chat app.  Tab
moves the focus on (a keyboard user must be able to leave the box);
Ctrl+Tab types a tab.  Up in an empty box asks to edit the last message.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton

_EDITING = (
    "Editing your last message: Enter sends it in place of the old one, and "
    "Reverie answers it again. Esc cancels."
)


class MessageInput(QPlainTextEdit):
    """Signals:
    submitted(): the user pressed Enter.
    edit_last_requested(): Up in the empty box: edit the last message.
    """

    submitted = Signal()
    edit_last_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("input")
        self.setAccessibleName("Message")
        self.setPlaceholderText(
            "Write a message. Enter sends, Shift+Enter adds a line, /help lists commands."
        )
        self.setAccessibleDescription(
            "Enter sends, Shift+Enter adds a line, Tab moves on, Ctrl+Tab types a tab, "
            "Up in an empty box edits your last message."
        )
        self.setFixedHeight(84)
        self.setTabChangesFocus(True)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key, modifiers = event.key(), event.modifiers()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if not modifiers & Qt.KeyboardModifier.ShiftModifier:
                self.submitted.emit()
                return
        elif key == Qt.Key.Key_Tab and modifiers & Qt.KeyboardModifier.ControlModifier:
            self.insertPlainText("\t")
            return
        elif key == Qt.Key.Key_Up and not self.toPlainText():
            self.edit_last_requested.emit()
            return
        super().keyPressEvent(event)

    def has_text(self) -> bool:
        return bool(self.toPlainText().strip())


class EditingBar(QFrame):
    """Shown above the box while the user rewrites their last message.

    Signals:
        cancelled(): the user gave up the edit.
    """

    cancelled = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("editing-bar")
        label = QLabel(_EDITING)
        label.setWordWrap(True)
        cancel = QPushButton("Cancel edit")
        cancel.setAccessibleName("Cancel editing the last message")
        cancel.clicked.connect(self.cancelled)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(label, 1)
        layout.addWidget(cancel)
        self.hide()
