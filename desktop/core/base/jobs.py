"""Model jobs seen from the application: what a failure means for the user,
and stopping work made of several jobs."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from desktop.core.base.errors import EnvironmentProblem
from models.broker import Job, Role
from models.errors import ModelError

CHAT = "Chat"
BACKGROUND = "Background work (remembering, dreaming)"
EMBEDDER = "Memory search (the embedding model)"
ROLE_NAMES = {Role.CHAT: CHAT, Role.BACKGROUND: BACKGROUND, Role.EMBEDDINGS: EMBEDDER}
"""What each role is called in a sentence for the user."""


def failure_message(what: str, job: Job) -> str | None:
    """Wait for *job*; a user-facing sentence if it failed, else None."""
    try:
        job.result()
    except (ModelError, EnvironmentProblem, OSError) as error:
        return f"{what} is unavailable: {error}"
    return None


class JobControl:
    """Stops a piece of work that runs several model jobs one after another.

    ``cancel()`` cancels the job running now and every job started later, so
    a Stop pressed between two jobs is not lost.  Inside ``scope()``, jobs
    started on the same thread by code that does not know the control (the
    embedding of a search for memories) are stopped with it too.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._job: Job | None = None

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            job = self._job
        if job is not None:
            job.cancel()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def job(self) -> Job | None:
        """The job it tracks now (the last one started under it)."""
        return self._job

    @contextmanager
    def scope(self) -> Iterator[None]:
        """Make this the control of the jobs this thread starts meanwhile
        (see ``active_control``)."""
        token = _ACTIVE.set(self)
        try:
            yield
        finally:
            _ACTIVE.reset(token)

    def run(self, job: Job) -> Job:
        """Track *job* as the current one (cancelled at once if Stop came first)."""
        with self._lock:
            self._job = job
            cancelled = self._cancelled
        if cancelled:
            job.cancel()
        return job


_ACTIVE: ContextVar[JobControl | None] = ContextVar("reverie_job_control", default=None)


def active_control() -> JobControl | None:
    """The control whose ``scope()`` this thread is in, if any."""
    return _ACTIVE.get()
