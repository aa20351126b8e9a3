"""Tests of the clock: jobs become ``due`` signals on the Qt side."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta

import pytest
from apscheduler.triggers.date import DateTrigger
from PySide6.QtCore import QThread
from pytestqt.qtbot import QtBot

from desktop.ui.shell.scheduler import MINUTE_GRACE_S, MISSED_RUN_GRACE_S, Clock


def test_a_due_job_arrives_as_a_signal_on_the_receivers_thread(qtbot: QtBot) -> None:
    clock = Clock()
    clock.every("tidy", minutes=60)
    seen: list[tuple[str, bool]] = []
    clock.due.connect(lambda name: seen.append((name, QThread.currentThread() is clock.thread())))
    clock.start()
    try:
        with qtbot.waitSignal(clock.due, timeout=10_000) as due:
            clock.run_soon("tidy")
    finally:
        clock.stop()
    assert due.args == ["tidy"]
    assert seen == [("tidy", True)]  # queued onto the Qt thread, not APScheduler's


def test_stop_joins_the_scheduler_thread_and_is_safe_twice() -> None:
    before = set(threading.enumerate())
    clock = Clock()
    clock.every("tidy", minutes=1)
    clock.start()
    clock.stop()
    clock.stop()
    assert [t for t in threading.enumerate() if t not in before and t.is_alive()] == []


def test_a_daily_job_is_due_next_at_its_hour_and_forgives_a_long_sleep() -> None:
    clock = Clock()
    clock.daily_at("dream", hour=1, minute=30)
    clock.start()
    try:
        due = clock.next_time("dream")
        job = clock._scheduler.get_job("dream")
    finally:
        clock.stop()
    now = datetime.now().astimezone()
    assert due is not None and (due.hour, due.minute) == (1, 30)
    assert now < due <= now + timedelta(days=1)
    # Missed while asleep: run once on waking (coalesced), not skipped, not twice.
    assert job.misfire_grace_time == MISSED_RUN_GRACE_S and job.coalesce
    assert job.max_instances == 1


def test_a_minute_job_is_due_as_each_minute_starts_and_never_stacks() -> None:
    clock = Clock()
    clock.each_minute("tasks")
    clock.start()
    try:
        due = clock.next_time("tasks")
        job = clock._scheduler.get_job("tasks")
    finally:
        clock.stop()
    now = datetime.now().astimezone()
    assert due is not None and due.second == 0 and due.microsecond == 0
    assert now < due <= now + timedelta(minutes=1)
    assert job.coalesce and job.max_instances == 1
    assert job.misfire_grace_time == MINUTE_GRACE_S


def test_a_job_once_at_a_moment_replaces_the_last_and_fires_however_late(qtbot: QtBot) -> None:
    clock = Clock()
    later = (datetime.now().astimezone() + timedelta(hours=3)).replace(microsecond=0)
    clock.once_at("gate", later + timedelta(hours=1))
    clock.once_at("gate", later)  # the earliest gate now: it replaces the one before
    clock.start()
    try:
        assert clock.next_time("gate") == later
        assert clock._scheduler.get_job("gate").misfire_grace_time is None
        with qtbot.waitSignal(clock.due, timeout=10_000) as due:
            clock.once_at("gate", datetime.now().astimezone() - timedelta(minutes=5))
        assert due.args == ["gate"]
        qtbot.waitUntil(lambda: clock.next_time("gate") is None, timeout=10_000)
    finally:
        clock.stop()


class _HeldDateTrigger(DateTrigger):  # type: ignore[misc]  # APScheduler is untyped
    """Fires once, then holds the scheduler's thread just before it drops
    the job (up to a second), where a stop is most likely to come."""

    def __init__(self, moment: datetime, holding: threading.Event) -> None:
        super().__init__(run_date=moment)
        self.holding = holding

    def get_next_fire_time(
        self, previous_fire_time: datetime | None, now: datetime
    ) -> datetime | None:
        if previous_fire_time is not None:  # asked after it fired: the job is dropped next
            self.holding.set()
            time.sleep(1.0)
        when: datetime | None = super().get_next_fire_time(previous_fire_time, now)
        return when


def test_stopping_as_a_one_shot_job_fires_raises_nowhere(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # APScheduler marks itself stopped before it takes its job stores' lock:
    # a fired job dropped in between was looked for among its pending jobs,
    # and JobLookupError was raised in its thread.
    raised: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_value))
    holding = threading.Event()
    clock = Clock()
    clock.start()
    moment = datetime.now().astimezone() - timedelta(seconds=1)
    clock._scheduler.add_job(
        clock.due.emit, _HeldDateTrigger(moment, holding), args=["gate"], id="gate"
    )
    assert holding.wait(10)
    clock.stop()
    assert raised == []
