"""Round 29: a conversation renamed to a name holding a lone surrogate (half
of an emoji, pasted from a text cut mid-character) was not renamed: the
store's write raised UnicodeEncodeError (UTF-8, so SQLite, cannot hold
one), an error no window says.  A title is kept as a message is, the lone
half replaced by U+FFFD; an imported conversation's title goes the same way."""

from __future__ import annotations

from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore


def test_a_name_holding_a_lone_surrogate_renames_the_conversation(
    chat: ChatService, store: ConversationStore
) -> None:
    conversation = chat.new_conversation()

    renamed = chat.rename(conversation.id, "Trip to \ud83c Porto")

    assert renamed.title == "Trip to \ufffd Porto"
    assert [c.title for c in store.search("Porto")] == ["Trip to \ufffd Porto"]


def test_an_imported_title_holding_a_lone_surrogate_is_kept(store: ConversationStore) -> None:
    # A JSON export's "\\udc00" reads as a lone surrogate.
    with store.transaction() as tx:
        conversation = store.create_imported(
            "Tax \udc00 notes",
            imported_from="chatgpt",
            external_id="x1",
            created_at=1.0,
            updated_at=1.0,
            tx=tx,
        )

    assert conversation is not None and conversation.title == "Tax \ufffd notes"
