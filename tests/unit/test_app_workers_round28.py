"""Round 28: each report of background work was shown as it came: the open
conversation read again whole (its history, its last messages) for every
report, or a notification for every report into another conversation.
Cancelling the first of a chain reports every worker behind it, one by one:
300 reports held the chat window 24 seconds, and 1,000 would notify 1,000
times.  Reports are now gathered: the conversation is read again once a
batch, and one notification says the batch ended."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore
from desktop.ui.shell.application import ReverieApplication
from desktop.ui.shell.parts import Core
from tests.unit.test_app_workers import app_paths, started

__all__ = ["app_paths", "started"]  # the fixtures, as the app's worker tests have them

REPORTS = 200


@pytest.fixture
def with_tray(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The app built with its tray icon (none shows offscreen: it says
    nothing); the conftest sets the one QApplication of the tests back to
    quit on its last window closed, as the app with a tray does not."""
    monkeypatch.setattr("desktop.ui.shell.application.tray_available", lambda: True)
    yield


@pytest.mark.model
def test_a_burst_of_reports_reads_the_conversation_once_and_notifies_once(
    qtbot: QtBot,
    with_tray: None,
    started: tuple[ReverieApplication, Core],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, core = started
    assert app.work is not None and app.tray is not None
    shown = app.window.conversation_id
    assert shown is not None
    assert core.database is not None
    other = ConversationStore(core.database).create("Elsewhere").id
    opened: list[int] = []
    notified: list[str] = []
    reopen = app.window.open_conversation

    def open_conversation(conversation_id: int, message_id: int | None = None) -> None:
        opened.append(conversation_id)
        reopen(conversation_id, message_id)

    monkeypatch.setattr(app.window, "open_conversation", open_conversation)
    monkeypatch.setattr(app.tray, "notify", lambda title, text: notified.append(text))

    for _ in range(REPORTS):  # as cancelling the first of a chain reports them
        app.work.reported.emit(shown)
        app.work.reported.emit(other)
    qtbot.waitUntil(lambda: bool(opened) and bool(notified), timeout=10_000)

    assert opened == [shown]
    assert notified == ["Background work ended; its report is in its conversation."]
