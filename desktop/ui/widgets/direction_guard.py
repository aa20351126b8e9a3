"""The warnings under an editor: direction controls in its text, a paste cut.

What a window shows drops the explicit direction controls (``bidi``), but an
editor shows the text it will hand on and cannot drop them: a command pasted
into a skill as "\u202eevil\u202c tab" read "live tab" while it was edited
(and was saved as "evil tab", as skills, tasks, titles and memories are kept
without them; a message is sent as written).  So under each editor of text
someone else may have written (a skill, a task, a memory, a message, a name,
a search) a bar says the text holds them, shows the affected line as written
with each one named ("[RLO]evil[PDF] tab"), and offers to remove them in one
click (Ctrl+Z puts them back).  The text is left as the user leaves it.

A one-line field keeps at most Qt's 32,767 characters unless told otherwise,
and cuts a longer paste without a word: the bar says so too.
"""

from __future__ import annotations

from PySide6.QtCore import QRegularExpression, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.widgets.bidi import (
    DIRECTION_CONTROLS,
    affected_line,
    has_direction_controls,
    stored_order,
)
from desktop.ui.widgets.labels import named

Editor = QLineEdit | QPlainTextEdit

_CONTROLS = QRegularExpression(DIRECTION_CONTROLS)
_SAID = "Hidden direction controls make this text read on screen in another order than written."
QT_LINE_LIMIT = 32_767
"""What a ``QLineEdit`` holds unless its own limit was set (one that was says so itself)."""


class TextWarningBar(QFrame):
    """The warnings under *editor*, shown while its text holds direction
    controls or a line field is full (a paste was cut to fit it)."""

    def __init__(self, editor: Editor) -> None:
        super().__init__()
        named(self, "direction-controls")
        self._editor = editor
        self.label = named(QLabel(), "direction-controls-text", "Direction controls")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.cut = named(
            QLabel(
                f"This field holds at most {QT_LINE_LIMIT:,} characters; the rest was left out."
            ),
            "text-cut",
            "Text cut",
        )
        self.cut.setWordWrap(True)
        self.cut.setTextFormat(Qt.TextFormat.PlainText)
        self.remove_button = named(
            QPushButton("Remove them"), "direction-controls-remove", "Remove direction controls"
        )
        self.remove_button.setToolTip("Take them out of the text (Ctrl+Z puts them back)")
        self.remove_button.setAutoDefault(False)  # Enter in a dialog accepts it, never removes
        self.remove_button.clicked.connect(self.remove)
        controls = QHBoxLayout()
        controls.addWidget(self.label, 1)
        controls.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addLayout(controls)
        layout.addWidget(self.cut)
        editor.textChanged.connect(self.refresh)
        self.refresh()

    def text(self) -> str:
        editor = self._editor
        return editor.text() if isinstance(editor, QLineEdit) else editor.toPlainText()

    def refresh(self) -> None:
        controls, full = self._holds_controls(), self._full()
        if controls:
            self.label.setText(f"{_SAID}\nAs written: {affected_line(self.text())}")
        self.label.setVisible(controls)
        self.remove_button.setVisible(controls)
        self.cut.setVisible(full)
        self.setVisible(controls or full)

    def _full(self) -> bool:
        editor = self._editor
        return (
            isinstance(editor, QLineEdit)
            and editor.maxLength() == QT_LINE_LIMIT
            and len(editor.text()) >= QT_LINE_LIMIT
        )

    def _holds_controls(self) -> bool:
        editor = self._editor
        if isinstance(editor, QLineEdit):
            return has_direction_controls(editor.text())
        # Looked for in the document: a pasted page of 450 KB copied out
        # at each key took 6.5 ms (15 ms with accents), the search 0.9 ms.
        return not editor.document().find(_CONTROLS).isNull()

    def remove(self) -> None:
        """Take the controls out, as one edit the editor can undo, and go
        back to the editor (the button hides: the focus fell out of a
        dialog, and Enter no longer accepted it)."""
        kept = stored_order(self.text())
        editor = self._editor
        editor.setFocus()
        if isinstance(editor, QLineEdit):
            editor.selectAll()
            editor.insert(kept)
            return
        cursor = QTextCursor(editor.document())
        cursor.beginEditBlock()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(kept)
        cursor.endEditBlock()


def guarded(editor: Editor) -> QWidget:
    """*editor* with its warning under it, to lay out in its place."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(4)
    layout.addWidget(editor, 1)
    layout.addWidget(TextWarningBar(editor))
    return box


def guard_dialog(dialog: QInputDialog) -> None:
    """The warning in a text dialog, above its buttons."""
    [editor] = dialog.findChildren(QLineEdit)
    dialog.setOkButtonText(dialog.okButtonText())  # builds its layout now (else when shown)
    layout = dialog.layout()
    assert isinstance(layout, QVBoxLayout), "QInputDialog lays out in a column"
    layout.insertWidget(layout.count() - 1, TextWarningBar(editor))


def ask_text(parent: QWidget, title: str, label: str, text: str) -> tuple[str, bool]:
    """``QInputDialog.getText``, with the warning."""
    dialog = QInputDialog(parent)
    dialog.setWindowTitle(title)
    dialog.setLabelText(label)
    dialog.setTextValue(text)
    guard_dialog(dialog)
    accepted = bool(dialog.exec())
    text = dialog.textValue()
    dialog.deleteLater()
    return text, accepted
