"""Round 27: the "Delete now" question about a conversation in Recently
deleted (or in the list) said "this conversation": it did not say which
one would be erased for good, as the tasks' and skills' questions do.  It
quotes the conversation's title now, cut to the box, and shows a title's
markup as written (the shared question box read "<b>" as bold).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore
from desktop.ui.chat.window import ChatWindow
from tests.unit.ui.memory.test_delete_now import WAIT_MS, answer

TITLE = "<b>Trip</b> to the Vexillary museum with the cousins and the dog, " * 3


def test_the_question_names_the_deleted_conversation_by_its_title(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore, tmp_path: Path
) -> None:
    gone = store.create(TITLE)
    store.delete(gone.id)
    listed = window.conversation_list
    listed.deleted_button.click()

    listed.ask_to_erase(gone.id)

    question = listed.erase_confirm
    assert question is not None
    asked = question.text()
    assert "“<b>Trip</b> to the Vexillary museum" in asked
    assert len(asked) < 120  # a long title is quoted in part, the box stays small
    assert question.textFormat() == Qt.TextFormat.PlainText
    question.grab().save(str(tmp_path / "delete-now.png"))
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        answer(question, "yes")
    assert store.get(gone.id) is None


def test_the_question_from_the_list_names_the_conversation_too(
    window: ChatWindow, store: ConversationStore
) -> None:
    kept = store.create("Tea with Ann")
    window.conversations.refresh()
    listed = window.conversation_list

    listed.ask_to_erase(kept.id)

    question = listed.erase_confirm
    assert question is not None
    assert "“Tea with Ann”" in question.text()
    answer(question, "cancel")
    assert store.get(kept.id) is not None
