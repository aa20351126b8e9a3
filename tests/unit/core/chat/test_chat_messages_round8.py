"""Round 8: a message of nothing but line breaks or control characters
raised a bare ``IndexError`` (its title had no first line).  It is refused
with the reason, before anything is stored or replaced: the text stays the
user's, in the box."""

from __future__ import annotations

import pytest

from desktop.core.chat.service import ChatService, MessageRefused
from desktop.core.db import ConversationStore


@pytest.mark.parametrize("text", ["\r\r\r", "\x00\x01", " \n\t "])
def test_a_message_of_nothing_to_read_is_refused(chat: ChatService, text: str) -> None:
    conversation = chat.latest_or_new_conversation()

    with pytest.raises(MessageRefused, match="nothing"):
        chat.send(conversation.id, text)


def test_an_edit_refused_keeps_the_message_it_would_replace(
    chat: ChatService, store: ConversationStore
) -> None:
    conversation = chat.latest_or_new_conversation()
    chat.send(conversation.id, "The plum tree is in bloom.")

    with pytest.raises(MessageRefused):
        chat.edit_last(conversation.id, "\r\r")

    assert [m.content for m in store.messages(conversation.id) if m.role == "user"] == [
        "The plum tree is in bloom."
    ]
