"""Round 23: a conversation's title made of its first message.

The store keeps a title as a reader sees it (without the characters that
show nothing), while the chat compared the title with the first line as
typed: a first message pasted with a byte-order mark or typed after a
right-to-left mark (Hebrew, Arabic keyboards) made a title its edit no
longer recognised, so the words taken back stayed in the title, which is
shown wherever the conversation is recalled.  A first line that shows
nothing at all (a zero-width space, a bell) made the title empty, and so
did a rename to such a name."""

from __future__ import annotations

import pytest

from desktop.core.chat.service import NEW_CONVERSATION_TITLE, ChatService, MessageRefused
from desktop.core.db import ConversationStore


@pytest.mark.parametrize(
    "first",
    [
        "\ufeffMy sister Ines is moving to Porto",  # pasted with a byte-order mark
        "\u200f\u05e9\u05dc\u05d5\u05dd, my sister Ines is moving",  # a right-to-left mark first
        "My sister\u200b Ines is moving to Porto",  # a zero-width space inside
    ],
)
def test_an_edited_first_message_names_its_conversation_again(
    chat: ChatService, store: ConversationStore, first: str
) -> None:
    conversation = chat.new_conversation()
    chat.send(conversation.id, first)
    assert "Ines" in _title(store, conversation.id)

    chat.edit_last(conversation.id, "What should I cook tonight?")

    assert _title(store, conversation.id) == "What should I cook tonight?"


@pytest.mark.parametrize("first", ["\u200b\nWhat should I cook?", "\x07\nWhat should I cook?"])
def test_a_first_line_that_shows_nothing_gives_no_empty_title(
    chat: ChatService, store: ConversationStore, first: str
) -> None:
    conversation = chat.new_conversation()

    chat.send(conversation.id, first)

    assert _title(store, conversation.id) == "What should I cook?"


def test_a_message_nothing_of_which_shows_in_a_title_leaves_the_title_to_the_next(
    chat: ChatService, store: ConversationStore
) -> None:
    conversation = chat.new_conversation()

    with pytest.raises(MessageRefused):  # since round 30: nothing to send
        chat.send(conversation.id, "\u3164")  # a filler: printable, yet shows nothing
    assert _title(store, conversation.id) == NEW_CONVERSATION_TITLE
    chat.send(conversation.id, "What should I cook?")

    assert _title(store, conversation.id) == "What should I cook?"


def _title(store: ConversationStore, conversation_id: int) -> str:
    conversation = store.get(conversation_id)
    assert conversation is not None
    return conversation.title


@pytest.mark.parametrize("name", ["\u200b", "\u202e\u200f", "\x07"])
def test_a_name_that_shows_nothing_leaves_no_blank_title(
    chat: ChatService, store: ConversationStore, name: str
) -> None:
    conversation = chat.new_conversation()
    chat.send(conversation.id, "What should I cook?")

    chat.rename(conversation.id, name)

    assert _title(store, conversation.id) == NEW_CONVERSATION_TITLE
