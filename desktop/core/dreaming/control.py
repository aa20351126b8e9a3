"""How a running dream is steered: stopped, made to wait for the user, heard from.

``DreamControl`` is what the Qt-free dream code sees; the worker that runs
it (on its own thread) supplies a progress callback that becomes a signal.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from desktop.core.base.errors import ReverieError
from desktop.core.base.jobs import JobControl
from desktop.core.dreaming.activity import UserActivity

StopReason = Literal["paused", "cancelled"]


class DreamStopped(ReverieError):
    """The dream was paused or cancelled; it resumes from its last checkpoint."""

    def __init__(self, reason: StopReason) -> None:
        super().__init__(f"the dream was {reason}")
        self.reason: StopReason = reason


@dataclass(frozen=True)
class DreamProgress:
    pass_name: str
    message: str
    step: int
    """Passes done so far (of ``steps``)."""
    steps: int
    waiting: bool = False
    """Held back for the user (a chat turn is running or just ended)."""


class DreamControl:
    def __init__(
        self,
        activity: UserActivity | None = None,
        quiet_seconds: float = 0.0,
        on_progress: Callable[[DreamProgress], None] | None = None,
    ) -> None:
        self._activity = activity or UserActivity()
        self._quiet_seconds = quiet_seconds
        self._on_progress = on_progress
        self._lock = threading.Lock()
        self._stopped: StopReason | None = None
        self.jobs = JobControl()
        """Model jobs of the dream: stopping the dream cancels the one in flight."""

    def stop(self, reason: StopReason = "cancelled") -> None:
        with self._lock:
            if self._stopped is None:
                self._stopped = reason
        self.jobs.cancel()
        self._activity.wake()

    @property
    def stopped(self) -> StopReason | None:
        with self._lock:
            return self._stopped

    def check(self) -> None:
        """Raise ``DreamStopped`` if the dream should stop now."""
        reason = self.stopped
        if reason is not None:
            raise DreamStopped(reason)

    def give_way(self, progress: DreamProgress) -> None:
        """Wait while the user is chatting (and a little after); then go on.

        Called before every model call and every write, so a dream never
        competes with a reply for the model or the database.
        """
        self.check()
        if not self._activity.quiet(self._quiet_seconds):
            self.report(replace(progress, waiting=True))
            if not self._activity.wait_until_quiet(
                self._quiet_seconds, lambda: self.stopped is not None
            ):
                self.check()
        self.report(progress)

    def report(self, progress: DreamProgress) -> None:
        if self._on_progress is not None:
            self._on_progress(progress)
