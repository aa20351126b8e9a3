"""Moves a broker job's streamed chunks onto the Qt event loop.

``ReplyStreamer`` is a QObject that lives on its own QThread: it blocks on
the job's chunk queue there and re-emits each chunk as a queued signal, so
the window never waits on the model.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal, Slot

from models.broker import Job

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReplyFinished:
    text: str
    finish_reason: str


@dataclass(frozen=True)
class ReplyFailed:
    message: str


class ReplyStreamer(QObject):
    """Streams one job at a time.

    Signals:
        chunk(str): the next piece of the reply.
        finished(ReplyFinished): the whole reply and why it ended.
        failed(ReplyFailed): the job raised; the message is for the user.
    """

    chunk = Signal(str)
    finished = Signal(object)
    failed = Signal(object)

    @Slot(object)
    def stream(self, job: Job) -> None:
        parts: list[str] = []
        reason = "stop"
        try:
            for piece in job.chunks():
                if piece.text:
                    parts.append(piece.text)
                    self.chunk.emit(piece.text)
                reason = piece.finish_reason or reason
        except Exception as error:  # thread boundary: the error becomes a signal
            log.exception("reply failed")
            self.failed.emit(ReplyFailed(str(error) or type(error).__name__))
            return
        self.finished.emit(ReplyFinished("".join(parts), reason))
