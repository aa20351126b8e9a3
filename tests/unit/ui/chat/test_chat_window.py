"""The chat window driven like a user would, on a real database and a real
broker thread, with a scripted model standing in for llama.cpp."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QSplitter, QToolButton
from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ModelSettings
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database, DiskFull, MemoryStore, open_database
from desktop.core.memory.service import MemoryService
from desktop.ui.chat.markdown import MAX_RENDERED_CHARS
from desktop.ui.chat.transcript_rows import ActionNotice, MemoryUpdate, ToolCallView
from desktop.ui.chat.window import ChatWindow
from models.broker import InferenceBroker
from models.interfaces import Chunk
from tests.fakes import ScriptedChatModel, StepGate
from tests.unit.ui.conftest import WAIT_MS, say, send_by_enter


class FailingModel(ScriptedChatModel):
    def stream(self, *args: Any, **kwargs: Any) -> Iterator[Chunk]:
        raise RuntimeError("the model fell over")


def _stored(store: ConversationStore) -> list[tuple[str, str]]:
    (conversation,) = store.list()
    return [(m.role, m.content) for m in store.messages(conversation.id)]


def _open(qtbot: QtBot, chat: ChatService, conversation_id: int) -> ChatWindow:
    window = ChatWindow(chat, conversation_id, hide_on_close=False)
    qtbot.addWidget(window)
    window.set_chat_available(True, "")
    return window


def test_a_window_shut_down_while_its_reply_is_held_stops_it_and_returns(
    qtbot: QtBot, chat: ChatService, model: ScriptedChatModel
) -> None:
    # A test that failed while the fake model was held hung in the window's
    # shutdown for the rest of the run: the stopped turn must end there.
    model.queue("Hi, I am Reverie, and this greeting is held.")
    gate = StepGate(allowed=1)
    model.gate = gate
    window = _open(qtbot, chat, chat.latest_or_new_conversation().id)
    gate.wait_for_arrival(2)
    rescued = threading.Event()  # else a failure here would hang the run too

    def let_go() -> None:
        rescued.set()
        gate.open()

    rescue = threading.Timer(WAIT_MS / 1000, let_go)
    rescue.start()
    window.shutdown()
    rescue.cancel()
    assert not rescued.is_set(), "the shutdown waited for the held step to be let go"


def test_a_new_conversation_greets_first_and_a_message_sent_meanwhile_is_answered_next(
    qtbot: QtBot, chat: ChatService, store: ConversationStore, model: ScriptedChatModel
) -> None:
    model.queue("Hi, I am Reverie.", "Nice to meet you too.")
    gate = StepGate(allowed=1)
    model.gate = gate
    window = _open(qtbot, chat, chat.latest_or_new_conversation().id)
    try:
        gate.wait_for_arrival(2)  # the greeting is being written
        assert window.transcript.messages[0].role == "seed"
        send_by_enter(qtbot, window, "hi")  # the user need not wait for it
        assert window.input.toPlainText() == ""
        assert not window.send_button.isEnabled()  # one message waits at a time
        with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
            gate.open()
        shown = [(view.role, view.text) for view in window.transcript.messages]
        assert shown == [
            ("seed", "Hi, I am Reverie."),
            ("user", "hi"),
            ("assistant", "Nice to meet you too."),
        ]
        assert "[SYSTEM EVENT]" not in window.transcript.plain_text()
        conversation_id = window.conversation_id
        assert conversation_id is not None
        history = [m.role for m in chat.history(conversation_id)]
        assert history == ["event", "assistant", "user", "assistant"]
        # The answer was written seeing the greeting, then the user's message.
        greeting, asked = model.requests[-1][0][-2:]
        assert greeting.content == "Hi, I am Reverie." and asked.content.endswith("hi")
        assert not window.stop_button.isEnabled()
        assert window.statusBar().currentMessage() == "Ready"
    finally:
        window.shutdown()


def test_enter_sends_and_the_reply_streams_in(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore, model: ScriptedChatModel
) -> None:
    model.queue("Hello, human.")
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        send_by_enter(qtbot, window, "hi")

    shown = [(view.role, view.text) for view in window.transcript.messages]
    assert shown[1:] == [("user", "hi"), ("assistant", "Hello, human.")]
    assert window.input.toPlainText() == ""
    assert not window.send_button.isEnabled()  # nothing to send
    window.input.setPlainText("  \n ")
    assert not window.send_button.isEnabled()  # nor in blank lines
    window.input.setPlainText("more")
    assert window.send_button.isEnabled() and not window.stop_button.isEnabled()
    assert window.statusBar().currentMessage() == "Ready"


def test_shift_enter_adds_a_line_instead_of_sending(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    qtbot.keyClicks(window.input, "first")
    qtbot.keyClick(window.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(window.input, "second")
    assert window.input.toPlainText() == "first\nsecond"
    assert model.requests == []


def test_the_window_shows_reading_until_the_first_token_then_stop_works(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel, store: ConversationStore
) -> None:
    say(qtbot, window, "first")
    model.queue("one two three four five six")
    gate = StepGate(allowed=0)
    model.gate = gate
    send_by_enter(qtbot, window, "count")
    gate.wait_for_arrival(1)  # the model holds before its first token: still reading
    qtbot.waitUntil(
        lambda: window.statusBar().currentMessage() == "Reading the conversation…",
        timeout=WAIT_MS,
    )
    assert window.stop_button.isEnabled()
    gate.allow(2)
    gate.wait_for_arrival(3)
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "Replying…", timeout=WAIT_MS)

    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS) as ended:
        qtbot.keyClick(window.input, Qt.Key.Key_Escape)
        gate.open()

    assert ended.args == ["Stopped"]
    assert _stored(store)[-2:] == [("user", "count"), ("assistant", "one two ")]
    assert window.transcript.messages[-1].text == "one two "


def test_a_failing_model_shows_a_banner_and_keeps_the_question(
    qtbot: QtBot, window: ChatWindow, broker: InferenceBroker, store: ConversationStore
) -> None:
    broker.load_chat_model(lambda: FailingModel()).result(timeout=5)
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        send_by_enter(qtbot, window, "are you there?")
    assert window.banner.isVisible()
    assert "the model fell over" in window.banner.text()
    assert ("user", "are you there?") in _stored(store)
    assert not window.stop_button.isEnabled()
    window.input.setPlainText("again?")
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
    qtbot.waitUntil(lambda: not window.reading, timeout=WAIT_MS)
    assert window.input.toPlainText() == huge
    assert "not sent" in window.banner.text()
    assert model.requests == []


def test_a_message_is_read_and_stored_off_the_ui_thread(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore, model: ScriptedChatModel
) -> None:
    """Reading a long paste for secrets takes seconds: send() hands it to the
    reader and returns; the box holds the text, read-only, until it is stored."""
    say(qtbot, window, "hello")
    window.input.setPlainText("and another thing")
    window.send()
    assert window.reading and window.busy
    assert window.input.isReadOnly() and not window.send_button.isEnabled()
    assert window.statusBar().currentMessage() == "Sending…"
    window.send()  # Enter pressed again while it is read: sent once
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        pass
    assert not window.input.isReadOnly() and window.input.toPlainText() == ""
    assert [text for role, text in _stored(store) if role == "user"] == [
        "hello",
        "and another thing",
    ]


def test_a_one_megabyte_paste_is_kept_whole_and_cut_only_for_the_model(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore, model: ScriptedChatModel
) -> None:
    say(qtbot, window, "hello")
    paste = "🧑‍🚀 مرحبا " + "words " * 200_000 + "the end"  # 1.2 MB

    # Reading 1.2 MB for secrets takes about 8 s on an idle 2-core machine,
    # and half as long again under CI's load: this test is about what is
    # kept, not how fast (the window stays responsive meanwhile, above).
    say(qtbot, window, paste, wait_ms=60_000)

    assert _stored(store)[-2] == ("user", paste.strip())
    assert "longer than the model can read" in window.transcript.plain_text()
    shown = window.transcript.messages[-2]
    assert shown.text == paste.strip()
    assert len(shown.body.text()) < MAX_RENDERED_CHARS + 1000
    assert "more characters are not shown here" in shown.body.text()
    assert len(model.requests[-1][0][-1].content) < 20_000


def test_controls_have_accessible_names(qtbot: QtBot, window: ChatWindow) -> None:
    say(qtbot, window, "hi")
    assert window.send_button.accessibleName() == "Send message"
    assert window.stop_button.accessibleName() == "Stop the reply"
    assert window.input.accessibleName() == "Message"
    assert window.transcript.accessibleName() == "Conversation"
    names = [view.copy_button.accessibleName() for view in window.transcript.messages]
    assert names[-2:] == ["Copy message from You", "Copy message from Reverie"]


def test_copy_puts_the_whole_message_on_the_clipboard(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    model.default = "Here is **bold** and `code`."
    say(qtbot, window, "hi")

    qtbot.mouseClick(window.transcript.messages[-2].copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "hi"
    qtbot.keyClick(
        window,
        Qt.Key.Key_C,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert QGuiApplication.clipboard().text() == "Here is **bold** and `code`."


def test_replies_are_rendered_as_markdown_with_highlighted_code(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    model.default = "Use **this**:\n\n```python\ndef f():\n    return 1\n```"
    say(qtbot, window, "code please")

    html = window.transcript.messages[-1].body.text()
    assert "font-weight" in html or "<strong>" in html
    assert "color:" in html and "return" in html
    assert "```" not in html


def test_quitting_mid_reply_keeps_what_was_said(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel, store: ConversationStore
) -> None:
    say(qtbot, window, "first")
    model.queue("alpha beta gamma delta")
    gate = StepGate(allowed=2)
    model.gate = gate
    send_by_enter(qtbot, window, "tell me")
    gate.wait_for_arrival(3)  # two words out, held before the third
    gate.open()  # the cancel lands before the next word
    window.shutdown()

    assert _stored(store)[-2] == ("user", "tell me")
    role, text = _stored(store)[-1]
    assert role == "assistant" and text.startswith("alpha beta")
    assert not window._worker.qthread.isRunning()


def test_the_conversation_is_intact_after_a_restart(
    qtbot: QtBot, tmp_path: Path, broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    path = tmp_path / "restart.sqlite3"

    def app(database: Database) -> ChatService:
        return ChatService(
            ConversationStore(database),
            MemoryService.over(database, broker, PromptLibrary(tmp_path / "prompts")),
            broker,
            PromptLibrary(tmp_path / "prompts"),
            ModelSettings(),
        )

    first_db = open_database(path)
    chat = app(first_db)
    model.queue("Welcome.", "Lisbon is lovely in May.")
    # The greeting's turn ends first: waited for here, "say" waits for the reply's.
    window = ChatWindow(chat, chat.latest_or_new_conversation().id, hide_on_close=False)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        window.set_chat_available(True, "")
    say(qtbot, window, "Plan a trip to **Lisbon**")
    before = [(v.role, v.text) for v in window.transcript.messages]
    window.shutdown()
    window.close()
    first_db.close()

    second_db = open_database(path)
    try:
        chat = app(second_db)
        reopened = _open(qtbot, chat, chat.latest_or_new_conversation().id)
        assert [(v.role, v.text) for v in reopened.transcript.messages] == [
            (role if role != "seed" else "assistant", text) for role, text in before
        ]
        assert reopened.conversation_list.items.item(0).text() == "Plan a trip to **Lisbon**"
        reopened.shutdown()
    finally:
        second_db.close()


def test_an_empty_conversation_without_a_model_invites_the_user_to_start(
    qtbot: QtBot, chat: ChatService
) -> None:
    window = ChatWindow(chat, chat.latest_or_new_conversation().id, hide_on_close=False)
    qtbot.addWidget(window)
    try:
        assert "stays on this computer" in window.transcript.plain_text()
    finally:
        window.shutdown()


def test_quitting_the_app_closes_a_tray_window_instead_of_hiding_it(
    qtbot: QtBot, chat: ChatService
) -> None:
    win = ChatWindow(chat, chat.latest_or_new_conversation().id, hide_on_close=True)
    qtbot.addWidget(win)
    win.show()
    try:
        # Quitting closes windows with a non-spontaneous close event; refusing
        # it (as a click on the window's X is refused) would cancel the quit.
        assert win.close()
    finally:
        win.shutdown()


# -- slash commands and off the record ------------------------------------------------


def test_remember_memory_and_forget_commands(qtbot: QtBot, window: ChatWindow) -> None:
    say(qtbot, window, "/remember My cat is called Miso.")
    assert "Remembered (#1): My cat is called Miso." in window.transcript.plain_text()

    say(qtbot, window, "/memory")
    said = window.transcript.plain_text()
    assert "given these memories, most relevant first:\n#1 (" in said
    assert "): My cat is called Miso." in said
    assert "<memories>" not in said and "not instructions" not in said  # not the prompt's text

    say(qtbot, window, "/forget cat")
    assert "Forgotten (#1): My cat is called Miso." in window.transcript.plain_text()
    say(qtbot, window, "/memory")
    assert window.transcript.plain_text().endswith("No memories are given to the model right now.")


def test_help_dream_and_unknown_commands_answer_without_the_model(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    say(qtbot, window, "/help")
    assert "/compact" in window.transcript.plain_text()
    say(qtbot, window, "/dream")
    assert "Dreaming is not available yet" in window.transcript.plain_text()
    say(qtbot, window, "/frobnicate")
    assert "There is no /frobnicate command." in window.transcript.plain_text()
    assert model.requests == []


def test_slash_new_opens_a_conversation_with_a_seed(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel, store: ConversationStore
) -> None:
    first = window.conversation_id
    model.queue("Hello, I am Reverie, running on your computer.")

    say(qtbot, window, "/new")

    assert window.conversation_id != first
    assert [(v.role, v.text) for v in window.transcript.messages] == [
        ("seed", "Hello, I am Reverie, running on your computer.")
    ]


def test_slash_compact_summarises_and_says_so(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel, store: ConversationStore
) -> None:
    say(qtbot, window, "/compact")
    assert "Nothing to summarise yet" in window.transcript.plain_text()
    assert window.conversation_id is not None
    for n in range(14):
        store.add_message(window.conversation_id, "user", f"note {n}")
    model.queue("Fourteen notes.")

    say(qtbot, window, "/compact")

    # The greeting, its hidden event and four notes; the last ten stay whole.
    assert "6 older messages were summarised." in window.transcript.plain_text()
    assert "it reads this summary instead of them:\nFourteen notes." in (
        window.transcript.plain_text()
    )
    conversation = store.get(window.conversation_id)
    assert conversation is not None and conversation.summary == "Fourteen notes."


def test_an_off_the_record_conversation_is_marked(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore
) -> None:
    assert not window.off_record_label.isVisible()
    qtbot.keyClick(
        window,
        Qt.Key.Key_N,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )

    assert window.conversation_id is not None
    conversation = store.get(window.conversation_id)
    assert conversation is not None and conversation.off_record
    assert window.off_record_label.isVisible()
    assert "nothing said here is kept" in window.off_record_label.text()
    item = window.conversation_list.items.item(0)
    assert item.text().endswith("off the record") and item.font().italic()


@pytest.mark.parametrize(
    "text", ["مرحبا بالعالم", "שלום", "e\u0301\u0301", "🧑‍🚀🏳️‍🌈", "zero\u200bwidth"]
)
def test_odd_unicode_goes_through(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore, text: str
) -> None:
    say(qtbot, window, text)
    assert _stored(store)[-2] == ("user", text)
    assert window.transcript.messages[-2].text == text


def test_a_memory_that_cannot_be_stored_keeps_the_command_in_the_box(
    qtbot: QtBot, window: ChatWindow, database: Database
) -> None:
    database.set_pragma("max_page_count", int(database.pragma("page_count")))
    memories = MemoryStore(database)
    with contextlib.suppress(DiskFull):  # the room left in the memory tables is filled too
        for n in range(10_000):
            memories.add(
                f"filler{n} " * 100, embedding=None, source_kind="imported", actor="system"
            )
    text = " ".join(f"detail{n}" for n in range(200))  # fits the gate, not the full disk

    say(qtbot, window, f"/remember {text}")

    assert "not remembered" in window.banner.text()
    assert window.input.toPlainText() == f"/remember {text.strip()}"


def test_a_memory_the_gate_refuses_says_why(qtbot: QtBot, window: ChatWindow) -> None:
    say(qtbot, window, '/remember {"name": "Miso", "kind": "cat"}')
    assert "That was not remembered: It is raw JSON data, not a fact." in window.banner.text()


def test_remember_shows_memory_updated_with_undo_and_open(
    qtbot: QtBot, window: ChatWindow, memories: MemoryService
) -> None:
    say(qtbot, window, "/remember My cat is called Miso.")
    [row] = window.findChildren(MemoryUpdate)
    assert row.label.text().startswith("Memory updated. Remembered (#1)")
    with qtbot.waitSignal(window.memory_requested) as opened:
        row.open_button.click()
    assert opened.args == [1]

    row.undo_button.click()

    assert memories.store.get(1).status == "deleted"  # type: ignore[union-attr]
    assert "Undone: memory #1 was forgotten" in row.label.text()
    assert not row.undo_button.isVisible()
    say(qtbot, window, "/remember my cat is called   Miso.")  # added again: a new memory
    say(qtbot, window, "/remember My cat is called Miso.")  # known: nothing to undo
    last = window.findChildren(MemoryUpdate)[-1]
    assert "Already remembered" in last.label.text() and last.undo_button.isHidden()


def test_a_reply_shows_the_memories_it_was_given(
    qtbot: QtBot, window: ChatWindow, memories: MemoryService, chat: ChatService
) -> None:
    remembered = memories.remember(
        "The user's cat Miso likes tuna.", source_kind="user_explicit", actor="user"
    )
    say(qtbot, window, "What does Miso like?")

    reply = window.transcript.messages[-1]
    [chip] = reply.memory_chips
    assert chip.text() == "#1 The user's cat Miso likes…"
    with qtbot.waitSignal(window.memory_requested) as opened:
        chip.click()
    assert opened.args == [remembered.memory.id]

    assert window.conversation_id is not None
    window.open_conversation(window.conversation_id)  # reloaded from the database
    assert [c.text() for c in window.transcript.messages[-1].memory_chips] == [chip.text()]


def test_a_tool_call_shows_collapsed_with_memory_updated_and_survives_a_reload(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel, memories: MemoryService
) -> None:
    say(qtbot, window, "hi")
    model.queue(
        'Noted. <tool_call>{"name": "append_memory", "arguments": '
        '{"content": "The user\'s cat is called Miso."}}',
        "I will remember Miso.",
    )

    say(qtbot, window, "My cat is called Miso.")

    assert [view.text for view in window.transcript.messages[-2:]] == [
        "Noted.",
        "I will remember Miso.",
    ]
    [row] = window.findChildren(ToolCallView)
    assert row.toggle.text().startswith("append_memory: Remembered (#1)")
    assert row.details.isHidden()
    row.toggle.click()
    assert row.details.isVisible()
    assert '"content": "The user\'s cat is called Miso."' in row.details.text()
    [update] = window.findChildren(MemoryUpdate)
    update.undo_button.click()
    assert memories.store.get(1).status == "deleted"  # type: ignore[union-attr]

    assert window.conversation_id is not None
    window.open_conversation(window.conversation_id)  # reloaded from the database

    shown = window.transcript.plain_text()
    assert "Reverie: Noted.\n\nappend_memory: Remembered (#1)" in shown
    assert "<tool_call>" not in shown


def test_what_reverie_said_unasked_is_labelled_as_such(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore
) -> None:
    assert window.conversation_id is not None
    conversation = window.conversation_id
    store.add_message(
        conversation,
        "assistant",
        "Time to water the plants.",
        metadata={"kind": "reminder", "task_id": 4},
    )
    store.add_message(
        conversation, "assistant", "Rain today.", metadata={"kind": "routine", "task_id": 7}
    )
    store.add_message(
        conversation, "assistant", "I completed #4.", metadata={"kind": "agenda_review"}
    )
    store.add_message(conversation, "assistant", "Just a reply.")

    window.open_conversation(conversation)

    assert [view.speaker.text() for view in window.transcript.messages[1:]] == [
        "Reverie · reminder of task #4",
        "Reverie · routine of task #7",
        "Reverie · went over your tasks",
        "Reverie",
    ]


def test_a_memorys_source_opens_at_its_message_marked(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore
) -> None:
    conversation = store.create("Long talk").id
    said = [
        store.add_message(conversation, "user", f"Line {n}: " + "words " * 40) for n in range(40)
    ]
    source = said[5]
    window.resize(700, 500)

    window.open_conversation(conversation, source.id)
    bar = window.transcript.verticalScrollBar()
    # The layout settles (slower on a busy machine); the transcript must stay on the message.
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    qtbot.wait(50)

    [found] = [v for v in window.transcript.messages if v.property("found")]
    assert found.message_id == source.id
    top = found.mapTo(window.transcript.viewport(), found.rect().topLeft()).y()
    assert 0 <= top < window.transcript.viewport().height()
    assert bar.value() < bar.maximum()  # not left at the bottom

    window.open_conversation(conversation, 10**9)
    assert not any(v.property("found") for v in window.transcript.messages)
    assert window.statusBar().currentMessage() == (
        "That message is no longer shown in this conversation"
    )


# -- keyboard, regenerate and edit, commands without a model ----------------------------


def test_tab_leaves_the_message_box_and_ctrl_tab_types_a_tab(
    qtbot: QtBot, window: ChatWindow
) -> None:
    window.activateWindow()
    window.input.setFocus()
    qtbot.waitUntil(window.input.hasFocus, timeout=WAIT_MS)
    qtbot.keyClicks(window.input, "a")
    qtbot.keyClick(window.input, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert window.input.toPlainText() == "a\t"

    qtbot.keyClick(window.input, Qt.Key.Key_Tab)

    assert not window.input.hasFocus()
    assert window.input.toPlainText() == "a\t"


def test_ctrl_r_answers_the_last_message_again(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel, store: ConversationStore
) -> None:
    model.queue("A dull answer.", "A better answer.")
    say(qtbot, window, "Tell me something")

    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)

    shown = [(v.role, v.text) for v in window.transcript.messages]
    assert shown[-2:] == [("user", "Tell me something"), ("assistant", "A better answer.")]
    assert ("assistant", "A dull answer.") not in _stored(store)


def test_up_in_the_empty_box_edits_the_last_message_and_esc_cancels(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel, store: ConversationStore
) -> None:
    model.queue("Paris.", "Lyon.")
    say(qtbot, window, "Capital of Frnace?")

    window.input.setFocus()
    qtbot.keyClick(window.input, Qt.Key.Key_Up)
    assert window.input.toPlainText() == "Capital of Frnace?"
    assert window.editing_bar.isVisible()
    qtbot.keyClick(window.input, Qt.Key.Key_Escape)
    assert window.input.toPlainText() == "" and not window.editing_bar.isVisible()

    qtbot.keyClick(window.input, Qt.Key.Key_Up)
    window.input.setPlainText("Second city of France?")
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        qtbot.keyClick(window.input, Qt.Key.Key_Return)

    shown = [(v.role, v.text) for v in window.transcript.messages]
    assert shown[1:] == [("user", "Second city of France?"), ("assistant", "Lyon.")]
    assert [text for role, text in _stored(store) if role == "user"] == ["Second city of France?"]
    assert not window.editing_bar.isVisible()


def test_without_a_chat_model_commands_work_and_the_banner_offers_a_model(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    window.set_chat_available(False, "Chat is unavailable: /models/gone.gguf was not found.")
    assert window.banner.fix_button.isVisibleTo(window)
    with qtbot.waitSignal(window.models_requested, timeout=WAIT_MS):
        qtbot.mouseClick(window.banner.fix_button, Qt.MouseButton.LeftButton)

    say(qtbot, window, "/help")
    say(qtbot, window, "/remember My bike is the red one.")

    text = window.transcript.plain_text()
    assert "/remember" in text and "Memory updated" in text
    window.input.setPlainText("/new")
    window.send()
    assert window.input.toPlainText() == "/new"  # kept: it needs the model
    assert "needs a chat model" in window.statusBar().currentMessage()
    assert model.requests == []

    window.set_chat_available(True, "")
    assert not window.banner.isVisible()


def test_a_command_after_a_stopped_reply_says_ready_again(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    model.queue("one two three")
    gate = StepGate(allowed=1)
    model.gate = gate
    send_by_enter(qtbot, window, "count")
    gate.wait_for_arrival(2)
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        window.stop()
        gate.open()
    assert window.statusBar().currentMessage() == "Stopped"

    say(qtbot, window, "/help")

    assert window.statusBar().currentMessage() == "Ready"


def test_a_conversation_nobody_wrote_in_is_not_kept(
    qtbot: QtBot, window: ChatWindow, chat: ChatService
) -> None:
    first = window.conversation_id
    assert first is not None
    say(qtbot, window, "hello")
    for _ in range(3):  # New conversation, again and again, writing nothing
        with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):  # its greeting
            qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    last = window.conversation_id

    assert [c.id for c in chat.conversations()] == [last, first]
    window.open_conversation(first)  # leaving the greeting alone
    assert [c.id for c in chat.conversations()] == [first]


def test_the_conversation_list_cannot_be_collapsed_to_a_sliver(window: ChatWindow) -> None:
    splitter = window.centralWidget()
    assert isinstance(splitter, QSplitter)
    splitter.setSizes([0, 1000])
    assert splitter.sizes()[0] >= window.conversation_list.minimumWidth() > 0


def test_the_last_exchange_offers_edit_and_regenerate_and_they_act(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    model.queue("First answer.", "Second answer.", "Answered again.")
    say(qtbot, window, "one")
    say(qtbot, window, "two")

    labels = _actions(window)
    assert labels["one"] == [] and labels["First answer."] == []
    assert labels["two"] == ["Edit"] and labels["Second answer."] == ["Regenerate"]

    [again] = window.transcript.messages[-1].findChildren(QToolButton, "message-action")
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        qtbot.mouseClick(again, Qt.MouseButton.LeftButton)
    assert window.transcript.messages[-1].text == "Answered again."
    [edit] = window.transcript.messages[-2].findChildren(QToolButton, "message-action")
    qtbot.mouseClick(edit, Qt.MouseButton.LeftButton)
    assert window.input.toPlainText() == "two" and window.editing_bar.isVisible()


def _actions(window: ChatWindow) -> dict[str, list[str]]:
    """The buttons on each message shown, by its text."""
    return {
        v.text: [b.text() for b in v.findChildren(QToolButton, "message-action")]
        for v in window.transcript.messages
    }


def test_regenerate_stays_on_the_reply_when_reverie_said_something_after_it(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel, store: ConversationStore
) -> None:
    model.queue("An answer.", "Answered again.")
    say(qtbot, window, "one")
    assert window.conversation_id is not None
    conversation = window.conversation_id
    reminder = {"kind": "reminder", "task_id": 4}
    store.add_message(conversation, "assistant", "Water the plants.", metadata=reminder)
    store.add_message(conversation, "assistant", "Done #4?", metadata={"kind": "agenda_review"})
    window.open_conversation(conversation)

    labels = _actions(window)
    assert labels["An answer."] == ["Regenerate"]
    assert labels["Water the plants."] == [] and labels["Done #4?"] == []

    [again] = window.transcript.messages[2].findChildren(QToolButton, "message-action")
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        qtbot.mouseClick(again, Qt.MouseButton.LeftButton)
    assert [v.text for v in window.transcript.messages[1:]] == [
        "one",
        "Water the plants.",
        "Done #4?",
        "Answered again.",
    ]
    assert _actions(window)["Answered again."] == ["Regenerate"]


def test_nothing_reverie_said_on_its_own_offers_regenerate(
    window: ChatWindow, store: ConversationStore
) -> None:
    assert window.conversation_id is not None
    conversation = window.conversation_id
    store.add_message(conversation, "user", "one")  # never answered: the model was away
    store.add_message(conversation, "assistant", "Rain today.", metadata={"kind": "routine"})
    window.open_conversation(conversation)

    labels = _actions(window)
    assert labels["Rain today."] == []
    assert labels["one"] == ["Edit", "Regenerate"]  # never answered: it may be now


def test_a_notice_with_an_action_runs_it(qtbot: QtBot, window: ChatWindow) -> None:
    pressed: list[bool] = []
    window.notice("Dream finished: 2 changes.", ("Open the report", lambda: pressed.append(True)))

    [notice] = window.transcript.findChildren(ActionNotice, "action-notice")
    [button] = notice.findChildren(QToolButton)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)

    assert pressed == [True]
    assert "Dream finished: 2 changes." in window.transcript.plain_text()


def test_a_reply_cut_at_its_length_limit_says_so(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    model.queue("word " * 600)  # the scripted model counts a token a word; the limit is 512

    say(qtbot, window, "Tell me everything.")

    assert "stopped at the longest reply allowed" in window.transcript.plain_text()
    say(qtbot, window, "Thanks.")
    assert window.transcript.plain_text().count("stopped at the longest reply") == 1
    assert window.conversation_id is not None
    window.open_conversation(window.conversation_id)  # and it says so again later
    assert window.transcript.plain_text().count("stopped at the longest reply") == 1
