"""Round 25 of issue 15 against the Work window: a worker's steps.

The window read every worker again and built its list anew at every step a
running worker took (its time and transcript grew, nothing else): a worker
the user had folded unfolded again, the list scrolled back to the worker
selected, and with a thousand workers in it each step held the window for
half a second.  A step now changes the running workers' times and the
transcript shown, and nothing else; a change of state, which does build
the list anew, keeps what was folded and where it was scrolled."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import Database
from desktop.core.db.workers import NewWorker, WorkerStore
from desktop.ui.chat.window import ChatWindow
from desktop.ui.shell.scheduler import Clock
from desktop.ui.shell.work import work_parts
from desktop.ui.workers.runner import WorkRunner
from desktop.ui.workers.views import duration
from desktop.ui.workers.window import WorkWindow
from models.broker import InferenceBroker
from tests.work import FiveWorkers, five_workers, workers_over

EARLIER = 200
"""Ended workers below the running one: enough for the list to scroll."""


@pytest.fixture
def work(
    qtbot: QtBot,
    window: ChatWindow,
    database: Database,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> Iterator[tuple[FiveWorkers, WorkWindow, WorkRunner]]:
    workers = workers_over(database, broker, prompts)
    dag = five_workers(workers, database)
    store = WorkerStore(database)
    with store.transaction() as tx:
        for index in range(EARLIER):
            ended = store.add(
                NewWorker(dag.conversation_id, f"earlier {index}", "minimal", (), 3, 60.0), tx
            )
            store.cancel(ended, tx)
    parent = QObject()
    view, runner = work_parts(workers, window, None, Clock(), parent, lambda: "")
    qtbot.addWidget(view)
    view.show()
    view.refresh()
    yield dag, view, runner
    runner.stop()
    view.shutdown()


def _row(view: WorkWindow, worker_id: int) -> QTreeWidgetItem:
    return next(i for i in view._items() if i.data(0, Qt.ItemDataRole.UserRole) == worker_id)


def test_a_step_keeps_the_list_as_the_user_left_it_and_shows_the_time(
    qtbot: QtBot,
    database: Database,
    work: tuple[FiveWorkers, WorkWindow, WorkRunner],
) -> None:
    dag, view, runner = work
    view.select(dag.running)
    running = _row(view, dag.running)
    assert running.childCount() == 1 and running.isExpanded()  # the worker it spawned
    running.setExpanded(False)  # the user folds it
    bar = view.list.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())  # and scrolls down to the workers that ended

    store = WorkerStore(database)
    store.add_message(dag.running, "assistant", "Shop two sells sencha for 12 euros.")
    used = store.add_time(dag.running, 5.0)
    runner.stepped.emit()  # as its thread tells of the step

    row = _row(view, dag.running)
    assert row.text(3) == duration(used)
    assert not row.isExpanded()
    assert bar.value() == bar.maximum()
    assert "12 euros" in view.transcript.toPlainText()  # the transcript shown grew
    assert view.current_id() == dag.running


def test_a_worker_ending_keeps_the_list_as_the_user_left_it(
    database: Database, work: tuple[FiveWorkers, WorkWindow, WorkRunner]
) -> None:
    """The list is read again when a worker ends (or is spawned, cancelled):
    what the user folded stayed folded, the list where they scrolled it."""
    dag, view, _ = work
    view.select(dag.running)
    _row(view, dag.running).setExpanded(False)
    bar = view.list.verticalScrollBar()
    bar.setValue(bar.maximum())

    store = WorkerStore(database)
    with store.transaction() as tx:
        store.finish(dag.running, "completed", "Sencha costs 12 euros at most.", tx)
    view.refresh()  # as the app does at every change of state

    row = _row(view, dag.running)
    assert row.text(1) == "Completed"
    assert not row.isExpanded()
    assert bar.value() == bar.maximum()
    assert view.current_id() == dag.running
