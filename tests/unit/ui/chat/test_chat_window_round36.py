"""Round 36 of issue 15: a reply that brought no words.

An empty answer (a server whose stream opens with ``[DONE]``, a model that
ends at once) is now said, and the notice says to regenerate it; but
Regenerate was offered only on an answer, so there was no button to press
(Ctrl+R alone worked).  A last message of the user's with no answer now
offers it itself.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton
from pytestqt.qtbot import QtBot

from desktop.core.chat.service import EMPTY_REPLY
from desktop.ui.chat.window import ChatWindow
from tests.fakes import ScriptedChatModel
from tests.unit.ui.chat.test_chat_window import _actions
from tests.unit.ui.conftest import WAIT_MS, say


def test_a_message_whose_reply_was_empty_offers_regenerate_and_it_answers(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    model.queue("", "Pancakes.")
    say(qtbot, window, "And something sweet after?")
    assert EMPTY_REPLY in window.transcript.plain_text()
    assert _actions(window)["And something sweet after?"] == ["Edit", "Regenerate"]

    [again] = [
        button
        for button in window.transcript.messages[-1].findChildren(QToolButton, "message-action")
        if button.text() == "Regenerate"
    ]
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        qtbot.mouseClick(again, Qt.MouseButton.LeftButton)

    assert [v.text for v in window.transcript.messages[-2:]] == [
        "And something sweet after?",
        "Pancakes.",
    ]
    assert _actions(window)["Pancakes."] == ["Regenerate"]
