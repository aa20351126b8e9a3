"""Round 25: compaction summarises what the model reads, and nothing else.

A command the user typed (``/remember ...``) is kept in the conversation as
the source of the memory it made, and the chat never shows it to the model.
Compaction folded every older message into the summary's prompt, the
command too, word for word: what the user told Reverie to keep (and might
take back later, deleting the memory) went into the summary that every
later prompt of the conversation carries.
"""

from __future__ import annotations

from desktop.core.base.jobs import JobControl
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, MessageRole
from tests.fakes import ScriptedChatModel

REMEMBERED = "the spare key is under the blue flowerpot"


def _fill(store: ConversationStore, conversation_id: int, count: int) -> None:
    for n in range(count):
        role: MessageRole = "user" if n % 2 == 0 else "assistant"
        store.add_message(conversation_id, role, f"message {n} about the garden")


def test_a_command_the_user_typed_is_archived_but_never_summarised(
    chat: ChatService, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = chat.new_conversation()
    _fill(store, conversation.id, 4)
    chat.remember(REMEMBERED, conversation.id)
    _fill(store, conversation.id, 14)
    model.queue("They talked about the garden.")

    result = chat.compact(conversation.id, JobControl())

    prompt = model.requests[-1][0][0].content
    assert "message 0 about the garden" in prompt  # what was said is summarised
    assert "flowerpot" not in prompt and "/remember" not in prompt
    assert result is not None and result.archived == 4 + 1 + 4  # the command archived too
    assert store.messages(conversation.id)[0].content == "message 4 about the garden"


def test_older_messages_that_are_all_commands_are_archived_without_a_model_call(
    chat: ChatService, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = chat.new_conversation()
    chat.remember(REMEMBERED, conversation.id)
    _fill(store, conversation.id, 10)

    result = chat.compact(conversation.id, JobControl())

    assert model.requests == []
    assert result is not None and result.archived == 1 and result.summary == ""
    assert len(store.messages(conversation.id)) == 10
