"""Dreams on their own thread: a ``DreamWorker`` QObject moved to a QThread.

The dream itself is plain, Qt-free code (``Dreamer.run``); the worker gives
it a ``DreamControl`` whose progress becomes a signal, and the
``DreamRunner`` on the UI thread starts, pauses and resumes it.  Pausing
stops the dream at its next step (the model call in flight is cut) and
keeps new dreams from starting until dreaming is resumed; the paused run
then goes on from its checkpoint.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Literal

from PySide6.QtCore import QObject, QThread, Signal, Slot

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.dreaming.activity import UserActivity
from desktop.core.dreaming.control import DreamControl, DreamProgress
from desktop.core.dreaming.dreamer import Dreamer, DreamReport

log = logging.getLogger(__name__)

DreamState = Literal["idle", "dreaming", "waiting", "paused"]


class DreamWorker(QObject):
    """Runs one dream at a time, on the thread it was moved to.

    Signals:
        progress(DreamProgress): the dream moved on, or waits for the user.
        finished(DreamReport): the dream completed, or stopped (paused, cancelled).
        failed(str): the dream could not run; the message is for the user.
    """

    progress = Signal(object)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, dreamer: Dreamer, activity: UserActivity, quiet_seconds: float) -> None:
        super().__init__()
        self._dreamer = dreamer
        self._activity = activity
        self._quiet_seconds = quiet_seconds
        self._lock = threading.Lock()
        self._control: DreamControl | None = None

    def new_control(self) -> DreamControl:
        """The control of the next dream (made on the UI thread, so it can be
        stopped before the dream even starts)."""
        control = DreamControl(self._activity, self._quiet_seconds, self.progress.emit)
        with self._lock:
            self._control = control
        return control

    def stop(self, reason: Literal["paused", "cancelled"]) -> None:
        with self._lock:
            control = self._control
        if control is not None:
            control.stop(reason)

    @Slot(str, object)
    def dream(self, trigger: str, control: DreamControl) -> None:
        try:
            report = self._dreamer.run(trigger, control)
        except EnvironmentProblem as error:  # a full disk, no safety copy: the user's to fix
            log.warning("the dream could not be done: %s", error)
            self.failed.emit(str(error))
            return
        except Exception as error:  # thread boundary: the error becomes a signal
            log.exception("the dream failed")
            self.failed.emit(str(error) or type(error).__name__)
            return
        finally:
            with self._lock:
                if self._control is control:
                    self._control = None
        self.finished.emit(report)


class DreamRunner(QObject):
    """Starts dreams on the worker's thread and knows what dreaming is doing.

    Signals:
        requested(str, object): hands a dream to the worker (queued).
        state_changed(str): "idle", "dreaming", "waiting" (for the user) or "paused".
        finished(DreamReport): a dream ended (also when it was paused).
        failed(str): a dream could not run.
    """

    requested = Signal(str, object)
    state_changed = Signal(str)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        dreamer: Dreamer,
        activity: UserActivity,
        quiet_seconds: float,
        parent: QObject | None = None,
        *,
        refusal: Callable[[], str] = str,
    ) -> None:
        """*refusal*: why no dream may start now ("" if one may), asked of
        every start, a resumed dream's too."""
        super().__init__(parent)
        self.dreamer = dreamer
        self.refusal = refusal
        self.qthread = QThread(self)
        self.qthread.setObjectName("dreaming")
        self.worker = DreamWorker(dreamer, activity, quiet_seconds)
        self.worker.moveToThread(self.qthread)
        self.qthread.finished.connect(self.worker.deleteLater)
        self.requested.connect(self.worker.dream)
        self.worker.progress.connect(self._on_progress)
        self.worker.finished.connect(self._on_finished)
        self.worker.failed.connect(self._on_failed)
        self._running = False
        self._paused = False
        self._resume_when_stopped = False
        self.state: DreamState = "idle"
        self.qthread.start()

    @property
    def running(self) -> bool:
        return self._running

    @property
    def paused(self) -> bool:
        return self._paused

    def dream(self, trigger: str) -> bool:
        """Start a dream now; False if one is running, dreaming is paused or
        ``refusal`` says why not."""
        if self._running or self._paused or self.refusal():
            return False
        self._running = True
        self._set_state("dreaming")
        self.requested.emit(trigger, self.worker.new_control())
        return True

    def pause(self) -> None:
        """Stop the dream at its next step and start none until ``resume``."""
        self._paused = True
        self._resume_when_stopped = False
        self.worker.stop("paused")
        if not self._running:
            self._set_state("paused")

    def resume(self) -> None:
        """Dreaming may go on; a paused dream continues from its checkpoint
        (once it has stopped, if it is still winding down)."""
        if not self._paused:
            return
        self._paused = False
        if self._running:
            self._resume_when_stopped = True
            self._set_state("dreaming")
            return
        self._go_on()

    def _go_on(self) -> None:
        if self.dreamer.dreams.unfinished() is None or not self.dream("resume"):
            self._set_state("idle")

    def stop(self) -> None:
        """Quit: stop the dream in flight (it resumes next time) and the thread."""
        self.worker.stop("paused")
        self.qthread.quit()
        self.qthread.wait()

    def _on_progress(self, progress: DreamProgress) -> None:
        if self._running and not self._paused:
            self._set_state("waiting" if progress.waiting else "dreaming")

    def _on_finished(self, report: DreamReport) -> None:
        self._stopped()
        self.finished.emit(report)
        self._resume_if_asked()

    def _on_failed(self, message: str) -> None:
        self._stopped()
        self.failed.emit(message)
        self._resume_if_asked()

    def _stopped(self) -> None:
        self._running = False
        if not self._resume_when_stopped:
            self._set_state("paused" if self._paused else "idle")

    def _resume_if_asked(self) -> None:
        """Resume pressed while the paused dream was still winding down."""
        if self._resume_when_stopped:
            self._resume_when_stopped = False
            self._go_on()

    def _set_state(self, state: DreamState) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)
