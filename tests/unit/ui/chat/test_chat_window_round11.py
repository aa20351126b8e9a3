"""Round 11 of issue 15 against the chat window: the chat model going away
while a message is read and stored.

A sent message is read for secrets and stored on the reader thread; if the
chat model became unavailable meanwhile (the user chose another one in
Settings), the window still asked the model for an answer, and the status
could read "Ready" under the "Loading the chat model…" banner.  Now the
stored message waits in the transcript, the status says so, and it is
answered once a chat model is there again.
"""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.core.chat.service import ChatService
from desktop.ui.chat.window import ChatWindow
from tests.fakes import ScriptedChatModel, StepGate
from tests.unit.ui.conftest import WAIT_MS

LOADING = "Loading the chat model…"


def _user_and_answers(window: ChatWindow) -> list[tuple[str, str]]:
    return [(view.role, view.text) for view in window.transcript.messages if view.role != "seed"]


def test_a_message_stored_while_the_model_went_away_waits_and_is_answered_once_it_is_back(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    model.queue("Welcome back.")
    window.input.setPlainText("are you there?")
    window.send()
    assert window.reading
    window.set_chat_available(False, LOADING)  # before the reader stored it
    qtbot.waitUntil(lambda: not window.reading, timeout=WAIT_MS)

    assert model.requests == []  # no reply asked of a model being changed
    assert _user_and_answers(window) == [("user", "are you there?")]  # kept, in the transcript
    assert window.input.toPlainText() == ""
    assert not window.busy
    status = window.statusBar().currentMessage()
    assert "answered once" in status and "Ready" not in status

    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS) as ended:
        window.set_chat_available(True, "")
    assert ended.args == ["Ready"]
    assert len(model.requests) == 1
    assert _user_and_answers(window) == [("user", "are you there?"), ("assistant", "Welcome back.")]


def test_a_waiting_message_is_not_answered_in_another_conversation(
    qtbot: QtBot, window: ChatWindow, chat: ChatService, model: ScriptedChatModel
) -> None:
    window.input.setPlainText("first thoughts")
    window.send()
    window.set_chat_available(False, LOADING)
    qtbot.waitUntil(lambda: not window.reading, timeout=WAIT_MS)
    waiting_in = window.conversation_id
    other = chat.new_conversation(False).id
    window.open_conversation(other)

    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):  # the new one's greeting
        window.set_chat_available(True, "")
    assert [view.role for view in window.transcript.messages] == ["seed"]
    assert [m.role for m in chat.history(other)] == ["event", "assistant"]
    assert waiting_in is not None
    assert [m.content for m in chat.history(waiting_in)][-1] == "first thoughts"  # still there


def test_a_message_queued_behind_the_greeting_waits_when_the_model_goes_away(
    qtbot: QtBot, chat: ChatService, model: ScriptedChatModel
) -> None:
    model.queue("Hi, I am Reverie.", "Answered after the switch.")
    gate = StepGate(allowed=1)
    model.gate = gate
    window = ChatWindow(chat, chat.latest_or_new_conversation().id, hide_on_close=False)
    qtbot.addWidget(window)
    try:
        window.set_chat_available(True, "")
        gate.wait_for_arrival(2)  # the greeting is being written
        window.input.setPlainText("hello")
        window.send()
        qtbot.waitUntil(lambda: not window.reading, timeout=WAIT_MS)  # queued behind it
        window.set_chat_available(False, LOADING)
        with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS) as ended:
            gate.open()  # the greeting ends
        assert "answered once" in ended.args[0]
        assert len(model.requests) == 1  # the greeting's only
        with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS) as ended:
            window.set_chat_available(True, "")
        assert ended.args == ["Ready"] and len(model.requests) == 2
        assert _user_and_answers(window)[-1] == ("assistant", "Answered after the switch.")
    finally:
        window.shutdown()


def test_a_reply_that_ends_after_the_model_went_away_does_not_say_ready(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    model.queue("A reply in full.")
    gate = StepGate(allowed=1)
    model.gate = gate
    window.input.setPlainText("tell me something")
    window.send()
    qtbot.waitUntil(lambda: not window.reading, timeout=WAIT_MS)
    gate.wait_for_arrival(2)  # replying
    window.set_chat_available(False, LOADING)
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS) as ended:
        gate.open()
    assert ended.args != ["Ready"]
    assert window.statusBar().currentMessage() != "Ready"
    assert LOADING in window.banner.text()
