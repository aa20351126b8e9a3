"""Round 25 of issue 15 against the chat window: what happens while its
own question waits for an answer.

Delete asks "Delete this conversation?" in a dialog that waits for the
user; the window refused to delete the conversation a reply streams in,
but only before asking.  A reply that began meanwhile (a message left
waiting for the chat model, answered when the model came back) went on
into the deleted conversation: it was lost with an error in the log, and
the window stayed on the deleted conversation.  Now the answer is checked
again once given."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from desktop.core.chat.service import ChatService
from desktop.ui.chat.window import ChatWindow
from tests.fakes import ScriptedChatModel, StepGate
from tests.unit.ui.conftest import WAIT_MS


def test_a_reply_begun_while_delete_asked_keeps_its_conversation(
    qtbot: QtBot,
    window: ChatWindow,
    chat: ChatService,
    model: ScriptedChatModel,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window.input.setPlainText("are you there?")
    window.send()
    window.set_chat_available(False, "Loading the chat model…")  # the message waits
    qtbot.waitUntil(lambda: not window.reading, timeout=WAIT_MS)
    shown = window.conversation_id
    assert shown is not None and not window.busy
    model.queue("Here now, sorry for the wait.")
    gate = StepGate(allowed=1)
    model.gate = gate

    def asked(*_: object, **__: object) -> QMessageBox.StandardButton:
        window.set_chat_available(True, "")  # the model came back while the user read
        qtbot.waitUntil(lambda: window.busy, timeout=WAIT_MS)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", asked)
    window.conversations.delete(shown)

    assert "Stop the reply" in window.statusBar().currentMessage()
    assert shown in [c.id for c in chat.conversations()]
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS) as ended:
        gate.open()
    assert ended.args == ["Ready"]
    assert window.conversation_id == shown
    said = [(m.role, m.content) for m in chat.history(shown)][-2:]
    assert said == [("user", "are you there?"), ("assistant", "Here now, sorry for the wait.")]
