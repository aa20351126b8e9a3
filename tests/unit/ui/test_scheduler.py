"""Tests of the clock: jobs become ``due`` signals on the Qt side."""

from __future__ import annotations

import threading

from PySide6.QtCore import QThread
from pytestqt.qtbot import QtBot

from desktop.ui.scheduler import Clock


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
