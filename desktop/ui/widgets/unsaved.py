"""Unsaved edits are never dropped silently: before they would go (another
item chosen, the window closed, the app quitting) the window asks whether
to save them, discard them, or keep editing.

The question opens window-modal and answers through a callback, so the
window's event loop (and every test) goes on while it waits; Enter saves and
Esc keeps editing, so no key loses work by accident.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

Choice = Literal["save", "discard", "stay"]


def ask_unsaved(
    parent: QWidget, what: str, doing: str, answered: Callable[[Choice], None]
) -> QMessageBox:
    """Ask about *what* (e.g. "the skill “Brew tea”") before *doing* (e.g.
    "closing"); *answered* gets the choice once (Esc, or a window closed
    under it, is "stay")."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Unsaved changes",
        f"You changed {what} and did not save it. Save before {doing}?",
        parent=parent,
    )
    box.setObjectName("unsaved-changes")
    box.setTextFormat(Qt.TextFormat.PlainText)  # *what* quotes a name as written
    save = box.addButton("Save", QMessageBox.ButtonRole.AcceptRole)
    discard = box.addButton("Discard changes", QMessageBox.ButtonRole.DestructiveRole)
    stay = box.addButton("Keep editing", QMessageBox.ButtonRole.RejectRole)
    save.setAccessibleName(f"Save {what}")
    discard.setAccessibleName(f"Discard the changes to {what}")
    stay.setAccessibleName("Keep editing, change nothing")
    box.setDefaultButton(save)
    box.setEscapeButton(stay)
    box.setWindowModality(Qt.WindowModality.WindowModal)

    def finished() -> None:
        box.deleteLater()
        clicked = box.clickedButton()
        answered("save" if clicked is save else "discard" if clicked is discard else "stay")

    box.finished.connect(finished)
    box.open()
    return box


class UnsavedGuard:
    """Asks, for one editing *window*, before its unsaved edits would go.

    *dirty* says whether there are any, *what* names them ("task #3"),
    *save* saves them (False: refused, and the window said why) and
    *discard* drops them.
    """

    def __init__(
        self,
        window: QWidget,
        *,
        dirty: Callable[[], bool],
        what: Callable[[], str],
        save: Callable[[], bool],
        discard: Callable[[], None],
    ) -> None:
        self._window = window
        self._dirty = dirty
        self._what = what
        self._save = save
        self._discard = discard
        self._closing = False
        self.dialog: QMessageBox | None = None
        """The question while it is open."""

    def resolve(self, doing: str, then: Callable[[], object]) -> None:
        """Run *then* once nothing is unsaved: at once, or after asking whether
        to save or discard the edits before *doing* (if the user keeps
        editing, or saving is refused, *then* never runs)."""
        if not self._dirty():
            then()
            return
        if self.dialog is not None:
            return  # already asking
        if not self._window.isVisible():
            self._window.show()  # the question is about this window
            self._window.raise_()
            self._window.activateWindow()

        def answered(choice: Choice) -> None:
            self.dialog = None
            if choice == "discard":
                self._discard()
            if choice == "discard" or (choice == "save" and self._save()):
                then()

        self.dialog = ask_unsaved(self._window, self._what(), doing, answered)

    def may_close(self) -> bool:
        """For the window's ``closeEvent``: may it close now?  If not, the
        question is asked, and the window closes once it is answered so."""
        if self._closing or not self._dirty():
            self._closing = False
            return True
        self.resolve("closing", self._close_again)
        return False

    def _close_again(self) -> None:
        self._closing = True
        self._window.close()

    def dismiss(self) -> None:
        """Close the question, if open, as "keep editing" (the app is going)."""
        if self.dialog is not None:
            self.dialog.reject()
