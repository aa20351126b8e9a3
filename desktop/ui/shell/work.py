"""Background workers in the shell: their thread (``WorkRunner``) and the
Work window, opened from the chat's Work… button and the tray, the window
following every change, and the clock set to the next time gate.  When
they start and where a report is shown is the application's."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import QObject

from desktop.core.workers.service import Workers
from desktop.ui.chat.window import ChatWindow
from desktop.ui.shell.scheduler import Clock
from desktop.ui.shell.tray import Tray
from desktop.ui.workers.runner import WorkRunner
from desktop.ui.workers.window import WorkWindow

log = logging.getLogger(__name__)

WORKERS_JOB = "workers-time-gate"
"""The clock's one-shot job: the earliest time gate of a waiting worker."""


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
