"""Whether the user is in the middle of a chat turn, for background work to give way.

The chat reports each turn's start and end; a dream asks to wait until no
turn is running and the last one ended a little while ago.  Thread-safe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class UserActivity:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._condition = threading.Condition()
        self._turns = 0
        self._last_ended = float("-inf")

    def turn_started(self) -> None:
        with self._condition:
            self._turns += 1
            self._condition.notify_all()

    def turn_ended(self, *, by_user: bool = True) -> None:
        """A turn ended; the quiet period starts again only after one *by_user*:
        a greeting Reverie said on its own is not the user mid-conversation."""
        with self._condition:
            self._turns = max(0, self._turns - 1)
            if by_user:
                self._last_ended = self._clock()
            self._condition.notify_all()

    @property
    def busy(self) -> bool:
        with self._condition:
            return self._turns > 0

    def quiet(self, quiet_seconds: float) -> bool:
        """No turn runs and the last one ended *quiet_seconds* ago (or more)."""
        with self._condition:
            return self._turns == 0 and self._clock() - self._last_ended >= quiet_seconds

    def wake(self) -> None:
        """Make waiters look at their stop condition again (e.g. a dream was paused)."""
        with self._condition:
            self._condition.notify_all()

    def wait_until_quiet(self, quiet_seconds: float, should_stop: Callable[[], bool]) -> bool:
        """Block until no turn runs and the last ended *quiet_seconds* ago;
        False if *should_stop* became true first (call ``wake`` after it does)."""
        with self._condition:
            while not should_stop():
                if self._turns == 0:
                    remaining = self._last_ended + quiet_seconds - self._clock()
                    if remaining <= 0:
                        return True
                    self._condition.wait(remaining)
                else:
                    self._condition.wait()
            return False
