"""Round 16, storage: a failed edit of the last message left the window in
edit mode whatever the failure had left stored, so sending again replaced
the message before the one shown, an unrelated one, for good."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database, DiskFull
from desktop.ui.chat.window import ChatWindow
from tests.fakes import ScriptedChatModel
from tests.unit.ui.conftest import WAIT_MS, say


def _users(store: ConversationStore) -> list[str]:
    (conversation,) = store.list()
    return [m.content for m in store.messages(conversation.id) if m.role == "user"]


def _send_edit(qtbot: QtBot, window: ChatWindow, text: str) -> None:
    """Up in the empty box, *text* in place of the last message, Enter."""
    window.input.setFocus()
    qtbot.keyClick(window.input, Qt.Key.Key_Up)
    window.input.setPlainText(text)
    qtbot.keyClick(window.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.reading, timeout=WAIT_MS)


def test_an_edit_that_found_the_disk_full_is_sent_again_in_place_of_the_same_message(
    qtbot: QtBot,
    window: ChatWindow,
    model: ScriptedChatModel,
    store: ConversationStore,
    database: Database,
) -> None:
    model.queue("Graz is lovely.", "Piano, how nice.", "Violin, how nice.")
    say(qtbot, window, "FIRST my sister lives in Graz")
    say(qtbot, window, "SECOND she teaches piano")
    edit = " ".join(["EDITED she teaches violin"] * 3_000)

    database.set_pragma("max_page_count", int(database.pragma("page_count")))
    _send_edit(qtbot, window, edit)
    assert "not sent" in window.banner.text()
    assert window.editing_bar.isVisible() and window.input.toPlainText() == edit
    assert _users(store) == ["FIRST my sister lives in Graz", "SECOND she teaches piano"]

    database.set_pragma("max_page_count", 2**30)
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        qtbot.keyClick(window.input, Qt.Key.Key_Return)  # the user sends it again
    assert _users(store) == ["FIRST my sister lives in Graz", edit]


def test_a_failed_edit_whose_message_is_gone_leaves_edit_mode_and_keeps_the_text(
    qtbot: QtBot,
    window: ChatWindow,
    chat: ChatService,
    model: ScriptedChatModel,
    store: ConversationStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model.queue("Graz is lovely.", "Piano, how nice.", "Violin, how nice.")
    say(qtbot, window, "FIRST my sister lives in Graz")
    say(qtbot, window, "SECOND she teaches piano")
    conversation_id = window.conversation_id
    assert conversation_id is not None

    def removed_then_failed(*_: object) -> None:  # as another copy of Reverie removing it
        edited = chat.last_user_message(conversation_id)
        assert edited is not None
        store.delete_messages_from(conversation_id, edited.id)
        raise DiskFull("The disk is full.")

    monkeypatch.setattr(chat, "edit_last", removed_then_failed)
    _send_edit(qtbot, window, "EDITED she teaches violin")
    monkeypatch.undo()

    assert not window.editing_bar.isVisible()
    assert window.input.toPlainText() == "EDITED she teaches violin"
    assert "SECOND she teaches piano" not in window.transcript.plain_text()
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        qtbot.keyClick(window.input, Qt.Key.Key_Return)  # sent as a new message
    assert _users(store) == ["FIRST my sister lives in Graz", "EDITED she teaches violin"]
