"""The chat window driven like a user would, on a real database and a real
broker thread, with a scripted model standing in for llama.cpp."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.chat import ChatService
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.prompts import PromptLibrary
from desktop.core.settings import ModelSettings
from desktop.ui.chat_window import ChatWindow
from models.broker import InferenceBroker
from models.interfaces import Chunk
from tests.fakes import ScriptedChatModel, StepGate

WAIT_MS = 10_000


class FailingModel(ScriptedChatModel):
    def stream(self, *args: Any, **kwargs: Any) -> Iterator[Chunk]:
        raise RuntimeError("the model fell over")


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    db = open_database(tmp_path / "reverie.sqlite3")
    yield db
    db.close()


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel(["Hello there, friend."])


@pytest.fixture
def broker(model: ScriptedChatModel) -> Iterator[InferenceBroker]:
    broker = InferenceBroker()
    broker.start()
    broker.load_chat_model(lambda: model).result(timeout=5)
    yield broker
    broker.stop()


@pytest.fixture
def store(database: Database) -> ConversationStore:
    return ConversationStore(database)


@pytest.fixture
def window(
    qtbot: QtBot, store: ConversationStore, broker: InferenceBroker, tmp_path: Path
) -> Iterator[ChatWindow]:
    chat = ChatService(store, broker, PromptLibrary(tmp_path / "prompts"), ModelSettings())
    conversation = chat.latest_or_new_conversation()
    win = ChatWindow(chat, conversation.id, hide_on_close=False)
    qtbot.addWidget(win)
    win.set_chat_available(True, "")
    win.show()
    yield win
    win.shutdown()


def send_by_enter(qtbot: QtBot, window: ChatWindow, text: str) -> None:
    window.input.setFocus()
    qtbot.keyClicks(window.input, text)
    qtbot.keyClick(window.input, Qt.Key.Key_Return)


def test_enter_sends_and_the_reply_streams_into_the_window_and_database(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore
) -> None:
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        send_by_enter(qtbot, window, "hi")
    assert "Hello there, friend." in window.transcript.toPlainText()
    assert window.input.toPlainText() == ""
    (conversation,) = store.list()
    stored = [(m.role, m.content) for m in store.messages(conversation.id)]
    assert stored == [("user", "hi"), ("assistant", "Hello there, friend.")]
    assert window.send_button.isEnabled() and not window.stop_button.isEnabled()


def test_shift_enter_adds_a_line_instead_of_sending(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    qtbot.keyClicks(window.input, "first")
    qtbot.keyClick(window.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(window.input, "second")
    assert window.input.toPlainText() == "first\nsecond"
    assert model.requests == []


def test_stop_ends_the_reply_and_keeps_what_was_said(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel, store: ConversationStore
) -> None:
    model.queue("one two three four five six")
    gate = threading.Event()
    model.gate = gate
    send_by_enter(qtbot, window, "count")
    assert window.stop_button.isEnabled()
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS) as ended:
        qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
        gate.set()
    assert ended.args == ["Stopped"]
    assert window.statusBar().currentMessage() == "Stopped"
    (conversation,) = store.list()
    roles = [m.role for m in store.messages(conversation.id)]
    assert roles[0] == "user"  # the question is never lost


def test_a_failing_model_shows_a_banner_and_keeps_the_question(
    qtbot: QtBot, window: ChatWindow, broker: InferenceBroker, store: ConversationStore
) -> None:
    broker.load_chat_model(lambda: FailingModel()).result(timeout=5)
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        send_by_enter(qtbot, window, "are you there?")
    assert window.banner.isVisible()
    assert "the model fell over" in window.banner.text()
    (conversation,) = store.list()
    assert [m.content for m in store.messages(conversation.id)] == ["are you there?"]
    assert window.send_button.isEnabled()


def test_unavailable_chat_disables_sending_and_says_why(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    window.set_chat_available(False, "Chat is unavailable: model file not found.")
    assert not window.send_button.isEnabled()
    assert "model file not found" in window.banner.text()
    send_by_enter(qtbot, window, "hello?")
    assert model.requests == []
    assert window.input.toPlainText() == "hello?"  # nothing the user typed is lost


def test_a_full_disk_keeps_the_message_in_the_input_box(
    qtbot: QtBot, window: ChatWindow, database: Database, model: ScriptedChatModel
) -> None:
    pages = int(database.pragma("page_count"))
    database.set_pragma("max_page_count", pages)
    huge = "a long paste " * 20_000
    window.input.setPlainText(huge)
    window.send()
    assert window.input.toPlainText() == huge
    assert "not sent" in window.banner.text()
    assert model.requests == []


def test_controls_have_accessible_names(window: ChatWindow) -> None:
    assert window.send_button.accessibleName() == "Send message"
    assert window.stop_button.accessibleName() == "Stop the reply"
    assert window.input.accessibleName() == "Message"


def test_history_is_shown_when_the_window_opens(
    qtbot: QtBot, store: ConversationStore, broker: InferenceBroker, tmp_path: Path
) -> None:
    conversation = store.create("Earlier")
    store.add_message(conversation.id, "user", "What did I say yesterday?")
    store.add_message(conversation.id, "assistant", "You said **hello**.")
    chat = ChatService(store, broker, PromptLibrary(tmp_path), ModelSettings())
    win = ChatWindow(chat, conversation.id, hide_on_close=False)
    qtbot.addWidget(win)
    try:
        text = win.transcript.toPlainText()
        assert "What did I say yesterday?" in text
        assert "You said hello." in text  # Markdown rendered, not shown raw
    finally:
        win.shutdown()


def test_quitting_mid_reply_keeps_what_was_said(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel, store: ConversationStore
) -> None:
    model.answers["tell me"] = "alpha beta gamma delta"
    gate = StepGate(allowed=2)
    model.gate = gate
    send_by_enter(qtbot, window, "tell me")
    gate.wait_for_arrival(3)  # two words out, held before the third
    gate.open()  # the cancel lands before the next word
    window.shutdown()

    (conversation,) = store.list()
    stored = [(m.role, m.content) for m in store.messages(conversation.id)]
    assert stored[0] == ("user", "tell me")
    assert stored[1][0] == "assistant"
    assert stored[1][1].startswith("alpha beta")
    assert not window._thread.isRunning()


def test_line_breaks_in_a_message_are_kept_but_code_is_untouched(
    qtbot: QtBot, store: ConversationStore, broker: InferenceBroker, tmp_path: Path
) -> None:
    conversation = store.create("Poem")
    poem = "Moon on the water\nquiet light\n```\na\nb\n```"
    store.add_message(conversation.id, "assistant", poem)
    chat = ChatService(store, broker, PromptLibrary(tmp_path), ModelSettings())
    win = ChatWindow(chat, conversation.id, hide_on_close=False)
    qtbot.addWidget(win)
    try:
        text = win.transcript.toPlainText()
        assert "Moon on the water\nquiet light" in text
        assert "a\nb" in text
    finally:
        win.shutdown()


def test_an_empty_conversation_invites_the_user_to_start(window: ChatWindow) -> None:
    assert "stays on this computer" in window.transcript.toPlainText()


def test_quitting_the_app_closes_a_tray_window_instead_of_hiding_it(
    qtbot: QtBot, store: ConversationStore, broker: InferenceBroker, tmp_path: Path
) -> None:
    chat = ChatService(store, broker, PromptLibrary(tmp_path), ModelSettings())
    win = ChatWindow(chat, chat.latest_or_new_conversation().id, hide_on_close=True)
    qtbot.addWidget(win)
    win.show()
    try:
        # Quitting closes windows with a non-spontaneous close event; refusing
        # it (as a click on the window's X is refused) would cancel the quit.
        assert win.close()
    finally:
        win.shutdown()
