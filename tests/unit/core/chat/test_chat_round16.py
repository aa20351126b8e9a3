"""Round 16, storage: editing the last message removed the old one in a
transaction of its own and stored the edit in a second; a kill or a full
disk between them lost the user's message, and sending again then replaced
the message before it, an unrelated one.  And a message that named a secret
was stored, then said "not sent" when the search indexes' follow-up found
the disk full."""

from __future__ import annotations

import logging

import pytest

from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database, DiskFull
from tests.fakes import Recorder, ScriptedChatModel


def _said(store: ConversationStore, conversation_id: int) -> list[str]:
    return [m.content for m in store.messages(conversation_id)]


def test_an_edit_on_a_full_disk_replaces_nothing_and_the_retry_replaces_the_same_message(
    chat: ChatService, model: ScriptedChatModel, store: ConversationStore, database: Database
) -> None:
    conversation = chat.new_conversation()
    model.queue("Graz is lovely.", "Piano, how nice.", "Violin, how nice.")
    chat.run(chat.send(conversation.id, "FIRST my sister lives in Graz"), Recorder())
    chat.run(chat.send(conversation.id, "SECOND she teaches piano"), Recorder())
    before = _said(store, conversation.id)
    edit = "EDITED she teaches violin " * 3_000

    database.set_pragma("max_page_count", int(database.pragma("page_count")))
    with pytest.raises(DiskFull):
        chat.edit_last(conversation.id, edit)
    assert _said(store, conversation.id) == before  # the old message stays

    database.set_pragma("max_page_count", 2**30)
    chat.run(chat.edit_last(conversation.id, edit), Recorder())  # the user sends it again
    assert _said(store, conversation.id) == [*before[:2], edit, "Violin, how nice."]


def test_a_message_whose_index_follow_up_found_the_disk_full_is_sent_once_and_logged(
    chat: ChatService,
    store: ConversationStore,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The follow-up runs after the message committed: its DiskFull left
    # send() as "not sent", and the user sent the message a second time.
    conversation = chat.new_conversation()
    chat.send(conversation.id, "Zx8!pre55")
    named = "^ that's my email password"

    def full_disk() -> None:
        raise DiskFull("The disk holding reverie.sqlite3 is full.")

    monkeypatch.setattr(store, "finish_rewrite", full_disk)
    with caplog.at_level(logging.WARNING):
        turn = chat.send(conversation.id, named)

    assert turn.user_message is not None and turn.user_message.content == named
    assert _said(store, conversation.id).count(named) == 1
    assert store.sweep_unfinished()  # finished at the next start
    assert "The disk holding reverie.sqlite3 is full." in caplog.text
    assert "Zx8" not in caplog.text and "password" not in caplog.text
