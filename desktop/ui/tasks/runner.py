"""Scheduled tasks and agenda reviews off the UI thread.

The work is plain, Qt-free code (``RoutineRunner.run_due``,
``AgendaReviewer.review_due``); a ``TaskWorker`` QObject on its own QThread
runs it and reports each task run and each review as it ends.  The
``TaskRunner`` on the UI thread starts the work when the clock says so.
Due tasks and reviews have a thread each, so a review (a model call per
conversation, waiting while the user chats) never keeps a reminder waiting.

Nothing stacks: due tasks asked for while they run are looked at once more
when the run ends (a task that came due meanwhile is not left for the next
tick); a review asked for while one runs is dropped (the running one sees
the same changes, the next is far off).  Stopping cancels the work in
flight: a routine cut short stays due and runs at the next start.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal

from PySide6.QtCore import QObject, QThread, Signal, Slot

from desktop.core.base.jobs import JobControl
from desktop.core.tasks.agenda import AgendaReviewer
from desktop.core.tasks.routines import RoutineRunner

log = logging.getLogger(__name__)

Job = Literal["tasks", "agenda"]
Work = Callable[[JobControl, Callable[[Any], None]], object]
"""Runs a job under a control, reporting each finished piece to the callback."""


class TaskWorker(QObject):
    """Runs one job at a time, on the thread it was moved to.

    Signals:
        reported(object): a piece of the job ended (a ``TaskRun``, an ``AgendaReview``).
        finished(str): the job of that name ended, done, stopped or failed.
        failed(str): the job failed; the message is for the user.
    """

    reported = Signal(object)
    finished = Signal(str)
    failed = Signal(str)

    def __init__(self, job: Job, work: Work) -> None:
        super().__init__()
        self._job = job
        self._work = work

    @Slot(object)
    def run(self, control: JobControl) -> None:
        try:
            self._work(control, self.reported.emit)
        except Exception as error:  # thread boundary: the error becomes a signal
            log.exception("the %s job failed", self._job)
            self.failed.emit(str(error) or type(error).__name__)
        finally:
            self.finished.emit(self._job)


class _Lane(QObject):
    """A worker on its own named thread, and the job it is running.

    Signals:
        requested(object): hands a job's control to the worker (queued).
    """

    requested = Signal(object)

    def __init__(self, job: Job, thread_name: str, work: Work, parent: QObject) -> None:
        super().__init__(parent)
        self.qthread = QThread(self)
        self.qthread.setObjectName(thread_name)
        self.worker = TaskWorker(job, work)
        self.worker.moveToThread(self.qthread)
        self.qthread.finished.connect(self.worker.deleteLater)
        self.requested.connect(self.worker.run)
        self.control: JobControl | None = None
        self.again = False
        self.qthread.start()


class TaskRunner(QObject):
    """Starts due tasks and agenda reviews on their threads.

    Signals:
        ran(TaskRun): a due task spoke up, or could not (``problem`` says why).
        reviewed(AgendaReview): a conversation's tasks were reviewed.
        idle(str): the job ("tasks" or "agenda") ended and none follows.
        failed(str): a job failed unexpectedly; the message is for the user.
    """

    ran = Signal(object)
    reviewed = Signal(object)
    idle = Signal(str)
    failed = Signal(str)

    def __init__(
        self, routines: RoutineRunner, agenda: AgendaReviewer, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._lanes: dict[str, _Lane] = {
            "tasks": _Lane("tasks", "scheduled-tasks", routines.run_due, self),
            "agenda": _Lane("agenda", "agenda-review", agenda.review_due, self),
        }
        self._lanes["tasks"].worker.reported.connect(self.ran)
        self._lanes["agenda"].worker.reported.connect(self.reviewed)
        for lane in self._lanes.values():
            lane.worker.failed.connect(self.failed)
            lane.worker.finished.connect(self._on_finished)

    def run_due(self) -> bool:
        """Run the tasks that are due; False if that is already under way
        (it looks again when it ends)."""
        return self._start("tasks", again=True)

    def review(self) -> bool:
        """Review the agenda of every conversation due for it; False (and
        nothing more) if a review is under way."""
        return self._start("agenda", again=False)

    def busy(self, job: Job) -> bool:
        return self._lanes[job].control is not None

    def stop(self) -> None:
        """Quit: cancel the work in flight and stop the threads."""
        for lane in self._lanes.values():
            lane.again = False
            if lane.control is not None:
                lane.control.cancel()
            lane.qthread.quit()
        for lane in self._lanes.values():
            lane.qthread.wait()

    def _start(self, job: str, *, again: bool) -> bool:
        lane = self._lanes[job]
        if lane.control is not None:
            lane.again = lane.again or again
            return False
        lane.control = JobControl()
        lane.requested.emit(lane.control)
        return True

    @Slot(str)
    def _on_finished(self, job: str) -> None:
        lane = self._lanes[job]
        lane.control = None
        if lane.again:
            lane.again = False
            self._start(job, again=False)
        else:
            self.idle.emit(job)
