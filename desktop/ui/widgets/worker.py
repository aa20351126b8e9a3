"""Runs chat work (a turn, a compaction, maintenance) off the UI thread.

``Worker`` is a QObject that lives on its own QThread.  A task is a plain
function given a listener (``desktop.core.chat.service.TurnListener``); the worker is
that listener and re-emits what it hears as queued signals, so the window
never waits on the model and the core never sees Qt.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.chat.service import Reply, ReplyKind, Stage, TurnListener
from desktop.core.chat.tools.toolbox import ToolCall
from models.errors import GenerationCancelled

log = logging.getLogger(__name__)

Task = Callable[[TurnListener], Any]


@dataclass(frozen=True)
class TaskDone:
    result: Any


@dataclass(frozen=True)
class TaskFailed:
    """A task that raised; ``stopped`` when its model work was stopped by
    its caller (a quit, a Stop) rather than failing."""

    message: str
    stopped: bool = False


class Worker(QObject):
    """Runs one task at a time, in the order they were asked for.

    Signals:
        stage(Stage): the turn moved on (compacting, reading, replying).
        reply_started(str): a reply ("seed" or "answer") begins.
        text(str): the next piece of the reply.
        reply_finished(Reply): a reply ended, stored or not.
        notice(str): something the user should know (a cut, a summary).
        tool_called(ToolCall): the model called a tool; what came of it.
        done(TaskDone): the task returned.
        failed(TaskFailed): the task raised; the message is for the user.
    """

    stage = Signal(object)
    reply_started = Signal(str)
    text = Signal(str)
    reply_finished = Signal(object)
    notice = Signal(str)
    tool_called = Signal(object)
    done = Signal(object)
    failed = Signal(object)

    @Slot(object)
    def run(self, task: Task) -> None:
        try:
            result = task(_Listener(self))
        except GenerationCancelled as error:  # cut short (the broker stopped at quit): no failure
            log.debug("chat work stopped: %s", error)
            self.failed.emit(TaskFailed(str(error) or type(error).__name__, stopped=True))
            return
        except EnvironmentProblem as error:  # the user's to fix, and told how: no bug
            log.warning("chat work could not be done: %s", error)
            self.failed.emit(TaskFailed(str(error)))
            return
        except Exception as error:  # thread boundary: the error becomes a signal
            log.exception("chat work failed")
            self.failed.emit(TaskFailed(str(error) or type(error).__name__))
            return
        self.done.emit(TaskDone(result))


class _Listener:
    """The TurnListener a task talks to: each call becomes a signal."""

    def __init__(self, worker: Worker) -> None:
        self._worker = worker

    def stage(self, stage: Stage) -> None:
        self._worker.stage.emit(stage)

    def reply_started(self, kind: ReplyKind) -> None:
        self._worker.reply_started.emit(kind)

    def text(self, piece: str) -> None:
        self._worker.text.emit(piece)

    def reply_finished(self, reply: Reply) -> None:
        self._worker.reply_finished.emit(reply)

    def notice(self, text: str) -> None:
        self._worker.notice.emit(text)

    def tool_called(self, call: ToolCall) -> None:
        self._worker.tool_called.emit(call)


class WorkerThread(QObject):
    """A ``Worker`` on its own named QThread, owned by *parent*.

    Signals:
        requested(object): hands a task to the worker (queued).
    """

    requested = Signal(object)

    def __init__(self, name: str, parent: QObject) -> None:
        super().__init__(parent)
        self.qthread = QThread(self)
        self.qthread.setObjectName(name)
        self.worker = Worker()
        self.worker.moveToThread(self.qthread)
        self.qthread.finished.connect(self.worker.deleteLater)
        self.requested.connect(self.worker.run)
        self.qthread.start()

    def submit(self, task: Task) -> None:
        self.requested.emit(task)

    def stop(self) -> None:
        self.qthread.quit()
        self.qthread.wait()


@dataclass(frozen=True)
class _Waiting:
    """What to do with the answer to one task sent to the worker."""

    done: Callable[[object], None]
    failed: Callable[[str], None]


class TaskQueue(QObject):
    """Plain tasks run one after another on a ``WorkerThread``, each answered
    on the owner's thread by its own callbacks (a window's searches, edits,
    approvals: the window never waits on them)."""

    def __init__(self, name: str, parent: QObject) -> None:
        super().__init__(parent)
        self.worker_thread = WorkerThread(name, self)
        self._waiting: deque[_Waiting] = deque()
        self.worker_thread.worker.done.connect(self._on_done)
        self.worker_thread.worker.failed.connect(self._on_failed)

    @property
    def busy(self) -> bool:
        """Is a task still running (or waiting to)?"""
        return bool(self._waiting)

    def run(
        self,
        task: Callable[[], object],
        done: Callable[[object], None],
        failed: Callable[[str], None],
    ) -> None:
        # The worker runs tasks in order and answers each exactly once (done
        # or failed), so answers meet their requests first in, first out.
        self._waiting.append(_Waiting(done, failed))
        self.worker_thread.submit(lambda _listener: task())

    def _on_done(self, done: TaskDone) -> None:
        self._waiting.popleft().done(done.result)

    def _on_failed(self, failure: TaskFailed) -> None:
        self._waiting.popleft().failed(failure.message)

    def stop(self) -> None:
        """Stop the thread, after the task in flight."""
        self.worker_thread.stop()
