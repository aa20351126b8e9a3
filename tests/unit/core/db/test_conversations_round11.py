"""Round 11's finding in ``ConversationStore``: ``delete_messages_from``
without a kind to keep removed only the messages that had a kind:
``json_extract(...) IS NOT NULL`` is false for a plain message, so "every
message after it" removed none of them.
"""

from __future__ import annotations

from desktop.core.db import ConversationStore


def test_deleting_from_a_message_with_nothing_kept_removes_every_message_after_it(
    store: ConversationStore,
) -> None:
    conversation = store.create("c")
    kept = store.add_message(conversation.id, "user", "kept")
    first = store.add_message(conversation.id, "user", "/remember x", metadata={"kind": "command"})
    store.add_message(conversation.id, "assistant", "a plain reply")
    store.add_message(conversation.id, "user", "a plain message")

    removed = store.delete_messages_from(conversation.id, first.id)

    assert removed == 3
    assert [m.id for m in store.messages(conversation.id)] == [kept.id]
