"""The question asked before anything is erased for good ("Delete now").

Deleting is restorable for a while; erasing is not, so it is always asked
first, in a window-modal box that says so, with Cancel as the default
button (Enter never erases by accident).  The box is opened, not run: the
event loop goes on, and *on_yes* runs when the user confirms.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.core.base.text import cut

ERASE_BUTTON_TEXT = "Delete now"
CANNOT_BE_UNDONE = (
    "This cannot be undone: the text is erased from Reverie's database, its files "
    "and its snapshots, and cannot be restored."
)
"""Said of every kind: a memory's text is in ``MEMORIES.md`` too, a skill's in its file."""
QUOTED_CHARS = 60
"""How much of an item's text or name the question quotes to say which it is."""


def one_named(kind: str, text: str) -> str:
    """The item of *kind* whose text or name is *text*, as the question names it:
    'the task “Call the office about the…”'."""
    return f"the {kind} “{cut(' '.join(text.split()), QUOTED_CHARS)}”"


def ask_to_erase(parent: QWidget, what: str, on_yes: Callable[[], None]) -> QMessageBox:
    """Ask whether to erase *what* ("2 memories") for good; *on_yes* runs if so.

    Returns the open box (tests answer it through its buttons); it deletes
    itself once answered.
    """
    box = QMessageBox(parent)
    box.setObjectName("erase-confirm")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Delete for good")
    box.setTextFormat(Qt.TextFormat.PlainText)  # a quoted title's "<b>" is shown, not obeyed
    box.setText(f"Delete {what} now, for good?")
    box.setInformativeText(CANNOT_BE_UNDONE)
    erase = box.addButton(ERASE_BUTTON_TEXT, QMessageBox.ButtonRole.DestructiveRole)
    erase.setObjectName("erase-confirm-yes")
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    cancel.setObjectName("erase-confirm-cancel")
    box.setDefaultButton(cancel)
    box.setEscapeButton(cancel)

    def answered() -> None:
        if box.clickedButton() is erase:
            on_yes()
        box.deleteLater()

    box.finished.connect(answered)
    box.open()
    return box
