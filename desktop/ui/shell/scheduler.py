"""The clock: APScheduler's background scheduler, and nothing more.

A scheduled job does no work and touches no widget: it emits ``due(name)``,
which reaches its receivers on their own threads as a queued signal; they
ask a worker to start.  Missed runs (the computer slept) are coalesced into
one, and a job never runs twice at once.
"""

from __future__ import annotations

from datetime import datetime

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger
from PySide6.QtCore import QObject, Signal

MISSED_RUN_GRACE_S = 12 * 3600
MINUTE_GRACE_S = 60


class Clock(QObject):
    """Signals:
    due(str): the job of that name is due.
    """

    due = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._scheduler = BackgroundScheduler(
            daemon=True,
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 300},
        )

    def every(self, name: str, minutes: float, missed_run_grace_s: int = 300) -> None:
        """Emit ``due(name)`` every *minutes*, starting *minutes* from now."""
        self._set(name, IntervalTrigger(minutes=minutes), missed_run_grace_s)

    def each_minute(self, name: str) -> None:
        """Emit ``due(name)`` as every minute starts (task schedules are whole
        minutes, so a task due at 09:00 is asked for at 09:00:00).

        Ticks missed while the computer slept are coalesced into one on
        waking; what is due is for the receiver to know (the tasks' stored
        run times), so a lost tick only delays it to the next.
        """
        self._set(name, CronTrigger(second=0), MINUTE_GRACE_S)

    def daily_at(self, name: str, hour: int, minute: int = 0) -> None:
        """Emit ``due(name)`` every day at *hour*:*minute* local time.

        A run missed while the computer slept happens once on waking, within
        half a day; after that it waits for the next day.
        """
        self._set(name, CronTrigger(hour=hour, minute=minute), MISSED_RUN_GRACE_S)

    def once_at(self, name: str, moment: datetime) -> None:
        """Emit ``due(name)`` once at *moment* (aware), in place of the time
        job *name* was set for before.  A moment missed while the computer
        slept still fires on waking, however late: what is due is for the
        receiver to know (a worker's stored time gate)."""
        self._set(name, DateTrigger(run_date=moment), None)

    def _set(self, name: str, trigger: BaseTrigger, missed_run_grace_s: int | None) -> None:
        """Job *name* emits ``due(name)`` at *trigger*'s times, in place of
        what it was set to before; a run missed by more than the grace is
        dropped (None: however late)."""
        self._scheduler.add_job(
            self.due.emit,
            trigger,
            args=[name],
            id=name,
            name=name,
            replace_existing=True,
            misfire_grace_time=missed_run_grace_s,
        )

    def next_time(self, name: str) -> datetime | None:
        """When job *name* is due next (None if it is not scheduled)."""
        job = self._scheduler.get_job(name)
        return None if job is None else job.next_run_time

    def run_soon(self, name: str) -> None:
        """Make job *name* due now (its interval goes on from there)."""
        self._scheduler.modify_job(name, next_run_time=datetime.now().astimezone())

    def start(self) -> None:
        self._scheduler.start()

    def stop(self) -> None:
        if self._scheduler.running:
            # APScheduler marks itself stopped before it takes its job stores'
            # lock, so a one-shot job that fired then was looked for among its
            # pending jobs when dropped, and raised in its thread.  Removing
            # every job first waits for that lock: nothing is left to drop.
            self._scheduler.remove_all_jobs()
            self._scheduler.shutdown(wait=True)
