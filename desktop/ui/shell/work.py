"""Background workers in the shell: their thread (``WorkRunner``) and the
Work window, opened from the chat's Work… button and the tray, the window
following every change, the clock set to the next time gate, and their
reports gathered into batches (``GatheredReports``).  When they start and
where a report is shown is the application's."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import QObject, QTimer, Signal

from desktop.core.workers.service import Workers
from desktop.ui.chat.window import ChatWindow
from desktop.ui.shell.scheduler import Clock
from desktop.ui.shell.tray import Tray
from desktop.ui.workers.runner import WorkRunner
from desktop.ui.workers.window import WorkWindow

log = logging.getLogger(__name__)

WORKERS_JOB = "workers-time-gate"
"""The clock's one-shot job: the earliest time gate of a waiting worker."""
REPORTS_GATHERED_MS = 250
"""Reports arriving within this long of the first are shown as one batch."""


class GatheredReports(QObject):
    """Reports of background work, handed on a batch at a time: cancelling
    the first of a chain reports every worker behind it, one by one, and
    showing each as it came read the open conversation again each time (300
    reports held the window 24 seconds) or notified once a report.

    Signals:
        gathered(object): the ids (a frozenset) of the conversations
            reported into since the last batch.
    """

    gathered = Signal(object)

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self._conversations: set[int] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REPORTS_GATHERED_MS)
        self._timer.timeout.connect(self._hand_on)

    def add(self, conversation_id: int) -> None:
        """A report went into *conversation_id*; handed on with the others of its batch."""
        self._conversations.add(conversation_id)
        if not self._timer.isActive():
            self._timer.start()

    def _hand_on(self) -> None:
        batch, self._conversations = frozenset(self._conversations), set()
        if batch:
            self.gathered.emit(batch)


def work_parts(
    workers: Workers,
    window: ChatWindow,
    tray: Tray | None,
    clock: Clock,
    parent: QObject,
    refusal: Callable[[], str],
) -> tuple[WorkWindow, WorkRunner]:
    """The Work window and the workers' runner (asking *refusal* before
    every run), wired to the chat window, the tray and the clock."""
    view = WorkWindow(workers)
    runner = WorkRunner(workers, parent, refusal=refusal)
    runner.next_wake.connect(
        lambda at: clock.once_at(WORKERS_JOB, datetime.fromtimestamp(at).astimezone())
    )
    runner.changed.connect(lambda: view.refresh() if view.isVisible() else None)
    runner.stepped.connect(lambda: view.show_steps() if view.isVisible() else None)
    runner.failed.connect(lambda message: log.warning("background work failed: %s", message))
    window.work_requested.connect(view.present)
    if tray is not None:
        tray.work_requested.connect(view.present)
    return view, runner
