"""Round 16, storage: editing the last message removed the old one in a
transaction of its own and stored the edit in a second; a kill or a full
disk between them lost the user's message, and sending again then replaced
the message before it, an unrelated one."""

from __future__ import annotations

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
