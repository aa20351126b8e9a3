"""What a "Delete now" came to, in the words a window shows, and the part
of each window that asks, erases and says so (``EraseNow``).

An erasure whose rows went but whose tidying afterwards failed (compacting
the file or purging the snapshots on a full disk: ``ErasedNotFinished``)
did what was asked: the memory or conversation is gone, and the rest is
finished by the next erasure or the next start.  That is a notice, not an
error; the details stay at hand for whoever wants them.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMessageBox

from desktop.core.dreaming.erasure import ErasedNotFinished, Erasure
from desktop.ui.widgets.app_window import AppWindow
from desktop.ui.widgets.erase_confirm import ask_to_erase
from desktop.ui.widgets.labels import plain_tip
from desktop.ui.widgets.worker import TaskQueue


def erased_or_unfinished(erase: Callable[[], Erasure]) -> Erasure | ErasedNotFinished:
    """What *erase* did; an erasure left unfinished is an outcome, not a failure
    (any other error goes on as it is)."""
    try:
        return erase()
    except ErasedNotFinished as unfinished:
        return unfinished


def erasure_notice(outcome: object) -> str | None:
    """The notice for what *outcome* of ``erased_or_unfinished`` says (None for anything else)."""
    if isinstance(outcome, Erasure):
        return outcome.describe()
    if isinstance(outcome, ErasedNotFinished):
        return (
            f"{outcome.erasure.describe()} Clearing the last traces (in the file's free "
            "space or a snapshot) finishes at the next maintenance: the next erasure or start."
        )
    return None


def erasure_details(outcome: object) -> str | None:
    """Why an unfinished erasure stopped and what may hold the text meanwhile
    (for a tooltip); None for a finished one."""
    return str(outcome) if isinstance(outcome, ErasedNotFinished) else None


def show_erasure(window: AppWindow, outcome: object) -> None:
    """Say in *window*'s notice what *outcome* of ``erased_or_unfinished``
    came to, the details of an unfinished one in its tooltip."""
    notice = erasure_notice(outcome)
    if notice is not None:
        window.show_notice(notice)
        if (details := erasure_details(outcome)) is not None:
            window.notice.setToolTip(plain_tip(details))


class EraseNow:
    """ "Delete now" in *window*: the question first (``ask_to_erase``), then
    the erasure on *queue* (it rewrites the database file: seconds), and
    what came of it in the window's notice (``show_erasure``); *after*
    runs once it is said (the window lists what is left)."""

    def __init__(self, window: AppWindow, queue: TaskQueue, after: Callable[[], None]) -> None:
        self._window = window
        self._queue = queue
        self._after = after
        self.question: QMessageBox | None = None
        """The open "Delete now, for good?" question, if any."""

    def ask(self, what: str, erase: Callable[[], Erasure]) -> None:
        """Ask whether to erase *what* ("2 memories") for good; *erase* it if so."""
        self.question = ask_to_erase(self._window, what, lambda: self.run(what, erase))
        self.question.finished.connect(self._answered)

    def run(self, what: str, erase: Callable[[], Erasure]) -> None:
        """*erase* *what* for good now, on the queue (no question asked)."""
        self._window.show_notice(f"Erasing {what}…")
        self._queue.run(lambda: erased_or_unfinished(erase), self._erased, self._failed)

    def _answered(self) -> None:
        self.question = None

    def _erased(self, outcome: object) -> None:
        show_erasure(self._window, outcome)
        self._after()

    def _failed(self, message: str) -> None:
        self._window.show_problem(f"Erasing did not finish: {message}")
