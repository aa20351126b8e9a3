"""Delivers a broker job's completion, and a long job's progress, to the Qt event loop."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal

from models.broker import Job


class JobWatcher(QObject):
    """Signals:
    done(Job): emitted on this object's thread once the watched job is done,
    always from its event loop, never inside ``watch``.
    """

    done = Signal(object)
    _finished = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Queued even when the job is done already and ``watch`` runs on this
        # thread: a job done before its receivers were connected (a model
        # server "loads" at once, while the application is still being
        # built) reached none of the later ones, and the memories' upkeep
        # after the embedding model loaded never ran.
        self._finished.connect(self.done, Qt.ConnectionType.QueuedConnection)

    def watch(self, job: Job) -> None:
        job.add_done_callback(self._finished.emit)


class ProgressWatcher(QObject):
    """Hands on the steps a job reports from its own thread (``report`` is
    its listener); receivers on the GUI thread get them there, queued.

    Signals:
    progressed(object): a step of the job's progress (a frozen dataclass).
    """

    progressed = Signal(object)

    def report(self, step: object) -> None:
        self.progressed.emit(step)
