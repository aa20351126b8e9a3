"""The Work window over a real database: every worker with its state, the
tree of who spawned whom, the dependencies named, the transcript; Cancel
fails the dependents, Retry starts a failed one again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QLabel, QTreeWidgetItem
from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import Database
from desktop.core.db.workers import WorkerStore
from desktop.core.workers.service import Workers
from desktop.ui.workers.window import WorkWindow
from models.broker import InferenceBroker
from tests.work import FiveWorkers, five_workers, workers_over

WAIT_MS = 10_000


@pytest.fixture
def workers(database: Database, broker: InferenceBroker, prompts: PromptLibrary) -> Workers:
    return workers_over(database, broker, prompts)


@pytest.fixture
def dag(workers: Workers, database: Database) -> FiveWorkers:
    return five_workers(workers, database)


@pytest.fixture
def window(qtbot: QtBot, workers: Workers, dag: FiveWorkers) -> Iterator[WorkWindow]:
    shown = WorkWindow(workers)
    qtbot.addWidget(shown)
    shown.show()
    yield shown
    shown.shutdown()


def _rows(window: WorkWindow) -> dict[int, QTreeWidgetItem]:
    return {int(item.data(0, Qt.ItemDataRole.UserRole)): item for item in window._items()}


def test_every_worker_shows_its_state_mode_time_and_what_it_waits_on(
    window: WorkWindow, dag: FiveWorkers
) -> None:
    rows = _rows(window)
    states = {worker_id: rows[worker_id].text(1) for worker_id in rows}
    assert states[dag.completed] == "Completed"
    assert states[dag.running] == "Running"
    assert states[dag.waiting_deps] == "Waiting on dependencies"
    assert states[dag.waiting_time] == "Waiting for its time"
    assert rows[dag.waiting_time].toolTip(1).startswith("Waiting for its time (")
    assert states[dag.failed] == "Failed"
    assert rows[dag.running].text(2) == "full"
    assert rows[dag.completed].text(3) == "42 s"
    assert rows[dag.running].text(3) == "1 min 35 s"
    assert rows[dag.waiting_deps].text(4) == f"#{dag.completed}, #{dag.running}"
    assert rows[dag.completed].text(0).endswith("Research the history of green tea in Japan")
    assert window.count_label.text() == "5 workers, 3 not ended"


def test_a_spawned_worker_sits_under_the_worker_that_spawned_it(
    window: WorkWindow, dag: FiveWorkers
) -> None:
    rows = _rows(window)
    assert rows[dag.failed].parent() is rows[dag.running]
    tops = [window.list.topLevelItem(n) for n in range(window.list.topLevelItemCount())]
    assert rows[dag.failed] not in tops and rows[dag.running] in tops
    assert rows[dag.running].isExpanded()


def test_the_detail_pane_shows_the_result_the_dependencies_and_the_transcript(
    window: WorkWindow, dag: FiveWorkers
) -> None:
    window.select(dag.completed)
    assert window.heading.text().endswith("Research the history of green tea in Japan")
    assert "Green tea came to Japan from China around 800." in window.transcript.toPlainText()
    assert "Result:" in _facts(window) and "Tea came to Japan" in _facts(window)
    assert not window.cancel_button.isEnabled() and not window.retry_button.isEnabled()
    window.select(dag.waiting_deps)
    assert f"#{dag.completed} Research the history" in _facts(window)
    assert window.transcript.toPlainText() == "Nothing said yet."
    assert window.cancel_button.isEnabled()


def test_cancel_fails_the_workers_waiting_on_it(
    qtbot: QtBot, window: WorkWindow, workers: Workers, dag: FiveWorkers
) -> None:
    window.select(dag.running)
    with qtbot.waitSignal(window.cancel_ended, timeout=WAIT_MS):  # done off the UI thread
        qtbot.mouseClick(window.cancel_button, Qt.MouseButton.LeftButton)
    assert [_state(workers, dag.running), _state(workers, dag.waiting_deps)] == [
        "cancelled",
        "failed",
    ]
    rows = _rows(window)
    assert rows[dag.running].text(1) == "Cancelled"
    assert rows[dag.waiting_deps].text(1) == "Failed"
    assert window.notice.isVisible() and "Cancelled" in window.notice.text()
    window.select(dag.waiting_deps)
    assert "cancelled" in _facts(window)


def test_retry_runs_a_failed_worker_again_and_selects_it(
    qtbot: QtBot, window: WorkWindow, workers: Workers, dag: FiveWorkers
) -> None:
    window.select(dag.failed)
    assert window.retry_button.isEnabled() and not window.cancel_button.isEnabled()
    assert "the model could not be reached" in _facts(window)
    qtbot.mouseClick(window.retry_button, Qt.MouseButton.LeftButton)
    new_id = window.current_id()
    assert new_id is not None and new_id != dag.failed
    again = workers.get(new_id)
    assert again is not None and again.retry_of == dag.failed
    failed = workers.get(dag.failed)
    assert failed is not None and again.objective == failed.objective
    assert _rows(window)[new_id].text(1).startswith("Waiting")


def test_the_keyboard_reaches_every_control_and_delete_cancels(
    qtbot: QtBot, window: WorkWindow, workers: Workers, dag: FiveWorkers
) -> None:
    for control in (window.list, window.transcript, window.cancel_button, window.retry_button):
        assert control.accessibleName()
        assert control.focusPolicy() & Qt.FocusPolicy.TabFocus
    window.activateWindow()
    window.list.setFocus()
    window.select(dag.waiting_time)
    with qtbot.waitSignal(window.cancel_ended, timeout=WAIT_MS):
        qtbot.keyClick(window.list, Qt.Key.Key_Delete)
    assert _state(workers, dag.waiting_time) == "cancelled"


def test_an_empty_window_says_how_work_gets_here(
    qtbot: QtBot, database: Database, broker: InferenceBroker, prompts: PromptLibrary
) -> None:
    shown = WorkWindow(workers_over(database, broker, prompts))
    qtbot.addWidget(shown)
    assert shown.listing.currentWidget() is shown.listing.empty_label
    assert not shown.cancel_button.isEnabled() and not shown.retry_button.isEnabled()
    shown.shutdown()


def _state(workers: Workers, worker_id: int) -> str:
    worker = workers.get(worker_id)
    assert worker is not None
    return worker.state


def _facts(window: WorkWindow) -> str:
    """The detail pane's lines, "What: value"."""
    labels = window.findChildren(QLabel)
    layout = window.facts
    lines = []
    for row in range(layout.rowCount()):
        items = [
            layout.itemAt(row, role)
            for role in (QFormLayout.ItemRole.LabelRole, QFormLayout.ItemRole.FieldRole)
        ]
        what, value = (None if item is None else item.widget() for item in items)
        assert isinstance(what, QLabel) and isinstance(value, QLabel) and value in labels
        lines.append(f"{what.text()} {value.text()}")
    return "\n".join(lines)


def test_a_worker_continued_after_its_time_ran_out_shows_its_next_hop_under_it(
    window: WorkWindow, database: Database, dag: FiveWorkers
) -> None:
    store = WorkerStore(database)
    with store.transaction() as tx:
        next_hop = store.continue_chain(dag.running, tx)
    assert next_hop is not None

    window.refresh()

    rows = _rows(window)
    assert rows[dag.running].text(1) == "Continuing"
    assert rows[next_hop].parent() is rows[dag.running]
    assert rows[next_hop].text(0) == f"#{next_hop} continued, hop 2"
    assert window.count_label.text() == "5 workers, 3 not ended"  # a chain is one worker


def test_a_transcript_growing_while_it_is_read_stays_at_its_end_or_its_place(
    window: WorkWindow, dag: FiveWorkers, database: Database
) -> None:
    store = WorkerStore(database)
    for n in range(40):
        store.add_message(dag.running, "assistant", f"Shop {n}: sencha costs {n} euros.")
    window.select(dag.running)
    bar = window.transcript.verticalScrollBar()
    bar.setValue(bar.maximum())

    store.add_message(dag.running, "assistant", "Shop 40: the last one.")
    store.add_time(dag.running, 5.0)
    window.refresh()  # as after a step the worker took

    assert window.transcript.toPlainText().endswith("Shop 40: the last one.")
    assert bar.value() == bar.maximum() > 0
    assert _rows(window)[dag.running].text(3) == "1 min 40 s"
    bar.setValue(3)
    store.add_message(dag.running, "assistant", "Shop 41: one more.")
    window.refresh()
    assert bar.value() == 3
