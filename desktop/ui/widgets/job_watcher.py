"""Delivers a broker job's completion, and a long job's progress, to the Qt event loop."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from models.broker import Job


class JobWatcher(QObject):
    """Signals:
    done(Job): emitted on this object's thread once the watched job is done.
    """

    done = Signal(object)

    def watch(self, job: Job) -> None:
        # The callback runs on the broker thread; emitting to a QObject that
        # lives on the GUI thread queues the call there.
        job.add_done_callback(self.done.emit)


class ProgressWatcher(QObject):
    """Hands on the steps a job reports from its own thread (``report`` is
    its listener); receivers on the GUI thread get them there, queued.

    Signals:
    progressed(object): a step of the job's progress (a frozen dataclass).
    """

    progressed = Signal(object)

    def report(self, step: object) -> None:
        self.progressed.emit(step)
