"""Background workers in the whole app: built by the composition root, the
spawning tool given to the chat, a worker's report shown in the
conversation it came from, the clock set to a time gate, the Work window
opened from the chat; and no worker run on a database found damaged."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.app import build_core, load_models
from desktop.core.base.paths import AppPaths, resolve_paths
from desktop.core.base.settings import Settings, WorkerSettings, save_settings
from desktop.core.chat.tools.sub_sessions import SpawnCall
from desktop.core.chat.tools.toolbox import ToolContext
from desktop.core.db import ConversationStore, open_database
from desktop.core.db.workers import NewWorker, WorkerStore
from desktop.ui.shell.application import ReverieApplication
from desktop.ui.shell.parts import Core
from desktop.ui.shell.work import WORKERS_JOB
from tests.damage import filled, garble_an_index

WAIT_MS = 120_000


@pytest.fixture
def app_paths(tmp_path: Path, minilm_path: Path) -> AppPaths:
    """User dirs under tmp_path, the embedder already converted, and
    workers that need not wait for the user to go quiet."""
    paths = resolve_paths({"REVERIE_HOME": str(tmp_path / "home")})
    paths.ensure()
    for source in minilm_path.parent.iterdir():
        os.link(source, paths.models_dir / source.name)
    save_settings(Settings(workers=WorkerSettings(quiet_seconds=0)), paths.settings_file)
    return paths


@pytest.fixture
def started(qtbot: QtBot, app_paths: AppPaths) -> Iterator[tuple[ReverieApplication, Core]]:
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    qtbot.waitUntil(lambda: app.window.chat_available and not app.window.busy, timeout=WAIT_MS)
    yield app, core
    app.shutdown()
    assert app.work is not None and not app.work.qthread.isRunning()
    core.close()


@pytest.mark.model
def test_a_spawned_workers_report_arrives_in_its_conversation_and_the_work_window(
    qtbot: QtBot, started: tuple[ReverieApplication, Core]
) -> None:
    app, core = started
    assert core.workers is not None and core.chat is not None and app.work_view is not None
    conversation_id = app.window.conversation_id
    assert conversation_id is not None
    app.window.show()
    qtbot.mouseClick(app.window.work_button, Qt.MouseButton.LeftButton)
    assert app.work_view.isVisible() and app.work_view.current_id() is None  # none yet
    call = SpawnCall(objective="Name one green tea.")
    worker_id = core.workers.spawn(call, ToolContext(conversation_id))
    said = f"Background worker #{worker_id} "
    qtbot.waitUntil(lambda: said in app.window.transcript.plain_text(), timeout=WAIT_MS)
    assert "[SYSTEM EVENT]" not in app.window.transcript.plain_text()
    worker = core.workers.get(worker_id)
    assert worker is not None and worker.final and worker.reported
    # The open Work window followed the worker's changes by itself.
    view = app.work_view
    qtbot.waitUntil(lambda: view.current_id() == worker_id, timeout=WAIT_MS)
    # The window reads the change from a queued signal, after the report.
    qtbot.waitUntil(lambda: view._items()[0].text(1) in ("Completed", "Failed"), timeout=WAIT_MS)
    [row] = view._items()
    assert row.text(1).lower() == worker.state


def test_the_clock_is_set_to_a_workers_time_gate_and_deleting_its_conversation_cancels_it(
    qtbot: QtBot, started: tuple[ReverieApplication, Core]
) -> None:
    app, core = started
    assert core.workers is not None and core.chat is not None and app.work is not None
    conversation_id = app.window.conversation_id
    assert conversation_id is not None
    gate = (datetime.now().astimezone() + timedelta(hours=2)).replace(microsecond=0)
    call = SpawnCall(objective="Later", not_before=gate.isoformat())
    with qtbot.waitSignal(app.work.next_wake, timeout=WAIT_MS):
        worker_id = core.workers.spawn(call, ToolContext(conversation_id))
    app.clock.start()
    assert app.clock.next_time(WORKERS_JOB) == gate

    core.chat.delete(conversation_id)

    worker = core.workers.get(worker_id)
    assert worker is not None and worker.state == "cancelled"
    assert core.workers.next_wake() is None


def test_on_a_damaged_database_no_worker_runs(qtbot: QtBot, app_paths: AppPaths) -> None:
    filled(app_paths.database_file)
    with open_database(app_paths.database_file) as database:
        [conversation] = ConversationStore(database).list()
        store = WorkerStore(database)
        with store.transaction() as tx:
            worker_id = store.add(
                NewWorker(conversation.id, "Water the fern", "minimal", (), 8, 300.0), tx
            )
    garble_an_index(app_paths.database_file)
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    try:
        qtbot.waitUntil(lambda: "SQLite found" in app.window.banner.text(), timeout=WAIT_MS)
        assert app.work is not None and core.workers is not None
        app._start_work()  # as the start does once the check answered
        app._on_due(WORKERS_JOB)
        assert not app.work.wake() and not app.work.running
        worker = core.workers.get(worker_id)
        assert worker is not None and worker.state == "waiting_time"
        assert worker.started_at is None and core.workers.transcript(worker_id) == []
    finally:
        app.shutdown()
        core.close()
