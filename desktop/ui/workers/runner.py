"""Background workers on their own thread: a ``WorkLoop`` QObject moved to a QThread.

The work is plain, Qt-free code (``Workers.run_one``); the loop runs the
ready workers one at a time, each at background priority and giving way to
the user between its steps exactly as a dream does (``WorkerRunner``), and
looks again as each ends, so a dependency's end starts its dependents at
once.  The ``WorkRunner`` on the UI thread starts the loop when asked
(``wake``: a worker spawned or ended, the clock's time gate, the start), and
tells the host when the earliest time gate opens, for its clock: nothing
polls.  Stopping (quitting) cuts the run in flight; it resumes from its
saved messages at the next start.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QThread, Signal, Slot

from desktop.core.workers.service import Workers

log = logging.getLogger(__name__)


class WorkLoop(QObject):
    """Runs what is ready until nothing is, on the thread it was moved to.

    Signals:
        finished(): the loop ended (nothing ready, stopped, or failed).
        failed(str): a run raised (a bug, the database gone); for the user.
    """

    finished = Signal()
    failed = Signal(str)

    def __init__(self, workers: Workers) -> None:
        super().__init__()
        self._workers = workers
        self._stopping = threading.Event()

    def stop(self) -> None:
        """Stop at once (from any thread): the run in flight is cut."""
        self._stopping.set()
        self._workers.stop()

    @Slot(bool)
    def run(self, recover: bool) -> None:
        """Run every ready worker, oldest first, until none is; first
        ``recover`` (the start) when *recover*."""
        try:
            if recover:
                self._workers.recover()
            while not self._stopping.is_set() and (ready := self._workers.ready()):
                for worker_id in ready:
                    if self._stopping.is_set():
                        break
                    self._workers.run_one(worker_id, self._stopping.is_set)
        except Exception as error:  # thread boundary: the error becomes a signal
            log.exception("a background worker failed")
            self.failed.emit(str(error) or type(error).__name__)
        finally:
            self.finished.emit()


class WorkRunner(QObject):
    """Starts the loop on its thread and says when the next time gate opens.

    Signals:
        requested(bool): hands a run to the loop (queued); True: recover first.
        changed(): a worker was spawned, ended, cancelled or retried (from
            any thread; queued to this one).
        stepped(): a running worker took a step (its transcript and time grew).
        reported(int): a report went into this conversation (id).
        idle(): the loop ended and nothing more was asked meanwhile.
        next_wake(float): the earliest time gate opens at this unix time.
        failed(str): a run failed unexpectedly; the message is for the user.
    """

    requested = Signal(bool)
    changed = Signal()
    stepped = Signal()
    reported = Signal(int)
    idle = Signal()
    next_wake = Signal(float)
    failed = Signal(str)

    def __init__(
        self,
        workers: Workers,
        parent: QObject | None = None,
        *,
        refusal: Callable[[], str] = str,
    ) -> None:
        """*refusal*: why no worker may run now ("" if they may), asked of
        every start (the app's gate: never on a database found damaged)."""
        super().__init__(parent)
        self.workers = workers
        self.refusal = refusal
        self.qthread = QThread(self)
        self.qthread.setObjectName("background-workers")
        self.loop = WorkLoop(workers)
        self.loop.moveToThread(self.qthread)
        self.qthread.finished.connect(self.loop.deleteLater)
        self.requested.connect(self.loop.run)
        self.loop.finished.connect(self._on_finished)
        self.loop.failed.connect(self.failed)
        self.changed.connect(self.wake)
        workers.when_changed(self._tell_changed)
        workers.when_reported(self._tell_reported)
        workers.when_stepped(self._tell_stepped)
        self._running = False
        self._again = False
        self._recovered = False
        self._stopped = False
        self.qthread.start()

    @property
    def running(self) -> bool:
        return self._running

    def wake(self) -> bool:
        """Run what is ready now (after recovering, the first time); False
        if refused (``refusal``) or stopped.  Asked while the loop runs, it
        looks once more when the loop ends."""
        if self._stopped or self.refusal():
            return False
        if self._running:
            self._again = True
            return True
        self._running = True
        self.requested.emit(not self._recovered)
        self._recovered = True
        return True

    def stop(self) -> None:
        """Quit: cut the run in flight (it resumes at the next start), stop the thread."""
        self._stopped = True
        self.loop.stop()
        self.qthread.quit()
        self.qthread.wait()

    def _tell_changed(self) -> None:
        """From any thread; nothing once stopped (the object may be gone)."""
        if not self._stopped:
            self.changed.emit()

    def _tell_stepped(self) -> None:
        if not self._stopped:
            self.stepped.emit()

    def _tell_reported(self, conversation_id: int) -> None:
        if not self._stopped:
            self.reported.emit(conversation_id)

    @Slot()
    def _on_finished(self) -> None:
        self._running = False
        if self._again and not self._stopped:
            self._again = False
            self.wake()
            return
        if self._stopped:
            return
        if (wake := self.workers.next_wake()) is not None:
            self.next_wake.emit(wake)
        self.idle.emit()
