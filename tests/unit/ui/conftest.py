"""The chat window on a real database and broker thread, with a scripted model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.chat import ChatService
from desktop.ui.chat_window import ChatWindow
from tests.fakes import ScriptedChatModel

WAIT_MS = 10_000


@pytest.fixture
def window(qtbot: QtBot, chat: ChatService, model: ScriptedChatModel) -> Iterator[ChatWindow]:
    win = ChatWindow(chat, chat.latest_or_new_conversation().id, hide_on_close=False)
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.turn_ended, timeout=WAIT_MS):  # the new conversation's greeting
        win.set_chat_available(True, "")
    model.requests.clear()  # each test counts its own
    win.show()
    yield win
    win.shutdown()
    assert not win._worker.qthread.isRunning()


def say(qtbot: QtBot, window: ChatWindow, text: str) -> None:
    """Type *text* and press Enter; return once the turn ended."""
    window.input.setPlainText(text)
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        qtbot.keyClick(window.input, Qt.Key.Key_Return)


def send_by_enter(qtbot: QtBot, window: ChatWindow, text: str) -> None:
    window.input.setFocus()
    qtbot.keyClicks(window.input, text)
    qtbot.keyClick(window.input, Qt.Key.Key_Return)
