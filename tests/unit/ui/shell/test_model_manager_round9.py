"""Round 9 of issue 15 against the settings window's Test of a server, as
Reverie quits.

Quitting (``ModelManager.shutdown``) waited for the Test's probe with no
bound: against a server that holds its answer, for the probe's read
timeout; against one that drips it, for good.  Now quitting stops the
probes in flight first.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.app import build_core
from desktop.core.base.paths import resolve_paths
from desktop.ui.chat.window import ChatWindow
from desktop.ui.shell.model_manager import ModelManager
from tests.unit.models.test_server_http_round9 import JOIN_S, SlowServer

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])


@pytest.mark.timeout(60)
def test_quitting_stops_a_test_of_a_server_that_holds_its_answer(
    qtbot: QtBot, tmp_path: Path
) -> None:
    core = build_core(resolve_paths({"REVERIE_HOME": str(tmp_path / "home")}))
    window = ChatWindow(None, None, hide_on_close=False)
    qtbot.addWidget(window)
    manager = ModelManager(core, window)
    answers: list[object] = []
    try:
        with SlowServer(hold=True) as server:
            manager._probe(server.url, None, answers.append, answers.append)
            assert server.asked.wait(JOIN_S)
            started = time.monotonic()
            manager.shutdown()
            took = time.monotonic() - started
    finally:
        window.shutdown()
        core.close()
    assert took < 2.0
    assert answers == []  # quitting: nothing is left to show it in


def test_an_address_that_cannot_be_one_is_answered_at_once(qtbot: QtBot, tmp_path: Path) -> None:
    core = build_core(resolve_paths({"REVERIE_HOME": str(tmp_path / "home")}))
    window = ChatWindow(None, None, hide_on_close=False)
    qtbot.addWidget(window)
    manager = ModelManager(core, window)
    failures: list[object] = []
    try:
        manager._probe("http://user:secret@box:8080/v1", None, failures.append, failures.append)
        assert failures == [
            "A server address may not hold a user name or password. Give an API key instead."
        ]
    finally:
        manager.shutdown()
        window.shutdown()
        core.close()
