"""Round 29: a message replaced by an edit, an answer replaced by
*Regenerate*, or a summarised message deleted once its days were over,
kept its words in the database file.  The row went (with
``secure_delete`` its page is zeroed) but the full-text index keeps a
deleted row's words in its segments until they are merged; since
migration 16 the index is contentless and its words are plain bytes of
the file, each Chinese or Japanese character on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.chat.service import ChatService
from desktop.core.db import Database
from tests.fakes import Recorder, ScriptedChatModel

SAID = ("Zorbleton quixaphane vendrillo", "我下周去鬣蜥馆看鳄鱼")
WORDS = {SAID[0]: ("zorbleton", "quixaphan", "vendrillo"), SAID[1]: tuple("鬣蜥馆鳄")}


def _words_in_file(database: Database, text: str) -> list[str]:
    database.truncate_wal()  # the file as a later reader of the disk has it
    held = Path(database.path).read_bytes().lower()
    return [word for word in WORDS[text] if word.encode() in held]


def _talked(chat: ChatService, model: ScriptedChatModel) -> int:
    conversation = chat.new_conversation()
    for n in range(5):
        model.queue(f"Noted, number {n}.")
        chat.run(chat.send(conversation.id, f"My garden has {n} roses"), Recorder())
    return conversation.id


@pytest.mark.parametrize("text", SAID)
def test_a_message_replaced_by_an_edit_leaves_none_of_its_words_in_the_file(
    chat: ChatService, model: ScriptedChatModel, database: Database, text: str
) -> None:
    conversation_id = _talked(chat, model)
    model.queue("Sure.")
    chat.run(chat.send(conversation_id, text), Recorder())
    assert _words_in_file(database, text) == list(WORDS[text])

    model.queue("Fine.")
    chat.run(chat.edit_last(conversation_id, "never mind"), Recorder())

    assert _words_in_file(database, text) == []


@pytest.mark.parametrize("text", SAID)
def test_an_answer_regenerated_leaves_none_of_its_words_in_the_file(
    chat: ChatService, model: ScriptedChatModel, database: Database, text: str
) -> None:
    conversation_id = _talked(chat, model)
    model.queue(text)
    chat.run(chat.send(conversation_id, "Say something odd"), Recorder())
    assert _words_in_file(database, text) == list(WORDS[text])

    turn = chat.regenerate(conversation_id)
    assert turn is not None
    model.queue("Something plain.")
    chat.run(turn, Recorder())

    assert _words_in_file(database, text) == []


@pytest.mark.parametrize("text", SAID)
def test_a_summarised_message_deleted_after_its_days_leaves_none_of_its_words_in_the_file(
    chat: ChatService, model: ScriptedChatModel, database: Database, text: str
) -> None:
    conversation_id = _talked(chat, model)
    model.queue("Sure.")
    chat.run(chat.send(conversation_id, text), Recorder())
    with database.transaction() as tx:  # summarised and learned from a year ago
        tx.execute(
            "UPDATE messages SET archived_at = 1 WHERE conversation_id = ?", (conversation_id,)
        )
        tx.execute(
            "UPDATE conversations SET harvested_through_message_id ="
            " (SELECT max(id) FROM messages) WHERE id = ?",
            (conversation_id,),
        )
    assert _words_in_file(database, text) == list(WORDS[text])

    chat.compact_idle()

    assert not [m for m in chat.history(conversation_id) if m.content == text]
    assert _words_in_file(database, text) == []
