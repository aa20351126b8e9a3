"""The assistant's reply is stored through the same redaction as the user's
message: a reply that repeats a secret ("your wifi password hunter2zq is
saved") keeps the placeholder in the database, its search index and the
prompt of the next turn, never the secret."""

from __future__ import annotations

import json

from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database
from desktop.core.db.message_kinds import TOOL_CALL_START
from tests.fakes import Recorder, ScriptedChatModel
from tests.unit.core.chat.test_chat_redaction import files_holding, rows_holding

SECRET = "hunter2zq"


def test_a_reply_that_repeats_a_secret_is_stored_without_it(
    chat: ChatService, database: Database, store: ConversationStore, model: ScriptedChatModel
) -> None:
    model.default = f"Done: your wifi password {SECRET} is saved."
    conversation = chat.new_conversation()

    chat.run(chat.send(conversation.id, "please note the wifi password for me"), Recorder())
    chat.run(chat.send(conversation.id, "thanks"), Recorder())

    reply = next(m for m in store.messages(conversation.id) if m.role == "assistant")
    assert reply.content == "Done: your wifi password [redacted password] is saved."
    assert rows_holding(database, SECRET) == []
    assert files_holding(database, SECRET) == []
    prompt, _ = model.requests[-1]
    assert all(SECRET not in message.content for message in prompt)


def test_a_reply_without_a_secret_is_stored_as_said(
    chat: ChatService, store: ConversationStore, model: ScriptedChatModel
) -> None:
    model.default = "The key is to stay calm; I forgot my password once too."
    conversation = chat.new_conversation()

    chat.run(chat.send(conversation.id, "any advice?"), Recorder())

    assert [m.content for m in store.messages(conversation.id) if m.role == "assistant"] == [
        "The key is to stay calm; I forgot my password once too."
    ]


def test_a_tool_call_and_its_result_are_stored_without_the_secret(
    chat: ChatService, database: Database, model: ScriptedChatModel
) -> None:
    call = {"name": "search_memory", "arguments": {"query": f"the wifi password is {SECRET}"}}
    model.queue(f"Let me look. {TOOL_CALL_START}{json.dumps(call)}", "Nothing found.")
    conversation = chat.new_conversation()
    turn = chat.send(conversation.id, "what do you know about my wifi?")
    turn.seed = False

    chat.run(turn, Recorder())

    [stored] = database.fetch_all("SELECT content, metadata FROM messages WHERE role = 'tool'")
    assert "[redacted password]" in stored["metadata"]
    assert SECRET not in stored["content"] and SECRET not in stored["metadata"]
    assert files_holding(database, SECRET) == []
