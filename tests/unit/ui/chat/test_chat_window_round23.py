"""Round 23 of issue 15 against the chat window: commands typed while a
reply streams.

``/remember`` embeds the memory and ``/memory`` the last message, on the
chat model's lane, which the reply in flight holds until it ends; both ran
on the window's thread, so the window froze (its reply no longer shown as
it streamed, Stop and Esc unanswered) until the reply was done.  They run
off it now; a held model shows whether the window waited."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.chat.service import ChatService
from desktop.core.memory.service import MemoryService
from desktop.ui.chat.window import ChatWindow
from tests.fakes import ScriptedChatModel, StepGate
from tests.unit.ui.conftest import WAIT_MS


@pytest.fixture
def held(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel, memories: MemoryService
) -> Iterator[threading.Event]:
    """A reply held after its first word, a memory kept before it; set once
    the model was let go, which happens only after ``WAIT_MS`` (a window
    that waited on it)."""
    memories.remember("My dog Rex is a beagle.", source_kind="user_explicit", actor="user")
    model.queue("Here is a rather long answer for you.")
    gate = StepGate(allowed=1)
    model.gate = gate
    window.input.setPlainText("tell me about my dog")
    window.send()
    qtbot.waitUntil(lambda: not window.reading, timeout=WAIT_MS)
    gate.wait_for_arrival(2)
    released = threading.Event()

    def release() -> None:
        released.set()
        gate.open()

    timer = threading.Timer(WAIT_MS / 1000, release)
    timer.start()
    yield released
    timer.cancel()
    gate.open()


def _stop_the_reply(qtbot: QtBot, window: ChatWindow) -> None:
    window.stop()
    qtbot.waitUntil(lambda: not window.busy, timeout=WAIT_MS)


def test_remember_typed_while_a_reply_streams_does_not_freeze_the_window(
    qtbot: QtBot, window: ChatWindow, held: threading.Event
) -> None:
    window.input.setPlainText("/remember My dog is called Rex.")

    window.send()

    assert not held.is_set()  # the window did not wait for the reply
    _stop_the_reply(qtbot, window)  # Stop is answered, and the memory kept after
    text = window.transcript.plain_text()
    assert "/remember My dog is called Rex." in text and "Memory updated" in text
    assert window.input.toPlainText() == ""


def test_memory_typed_while_a_reply_streams_does_not_freeze_the_window(
    qtbot: QtBot, window: ChatWindow, held: threading.Event
) -> None:
    window.input.setPlainText("/memory")

    window.send()

    assert not held.is_set()
    _stop_the_reply(qtbot, window)
    assert "#1 (general): My dog Rex is a beagle." in window.transcript.plain_text()


def test_a_refused_remember_comes_back_to_the_box_once_done(
    qtbot: QtBot, window: ChatWindow
) -> None:
    window.input.setPlainText("/remember hi")  # too short to keep

    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        window.send()

    assert window.input.toPlainText() == "/remember hi"
    assert not window.input.isReadOnly() and not window.busy
    assert "not remembered" in window.banner.text()


def test_deleting_the_conversation_a_reply_streams_in_says_why_it_waits(
    qtbot: QtBot, window: ChatWindow, held: threading.Event, chat: ChatService
) -> None:
    """It was refused without a word: the user's Delete did nothing at all."""
    shown = window.conversation_id
    assert shown is not None

    window.conversation_list.delete_requested.emit(shown)  # no question is asked

    assert "Stop the reply" in window.statusBar().currentMessage()
    _stop_the_reply(qtbot, window)
    assert window.conversation_id == shown
    assert shown in [c.id for c in chat.conversations()]  # kept: nothing was asked yet
