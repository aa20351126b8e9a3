"""Round 23: a ``/remember`` typed after a reply, then the reply regenerated
or the message before it edited.

The command stays in the conversation as its memory's source (README);
regenerating the answer (Ctrl+R) or editing the message it followed took
it out with the answer, so the memory named a source that was gone and
the conversation no longer showed that the user had asked for it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from desktop.core.chat.service import ChatService, Turn
from desktop.core.db import ConversationStore
from desktop.core.memory.service import MemoryService
from tests.fakes import Recorder

AGAIN: dict[str, Callable[[ChatService, int], Turn | None]] = {
    "regenerated": lambda chat, cid: chat.regenerate(cid),
    "edited": lambda chat, cid: chat.edit_last(cid, "What should I feed my puppy?"),
}


@pytest.mark.parametrize("again", AGAIN.values(), ids=AGAIN.keys())
def test_a_remember_typed_after_a_reply_stays_when_it_is_answered_again(
    chat: ChatService,
    store: ConversationStore,
    memories: MemoryService,
    again: Callable[[ChatService, int], Turn | None],
) -> None:
    conversation = chat.new_conversation()
    chat.run(chat.send(conversation.id, "What should I feed my dog?"), Recorder())
    remembered = chat.remember("My dog Rex is a beagle.", conversation.id)
    assert remembered.source is not None

    turn = again(chat, conversation.id)
    assert turn is not None
    chat.run(turn, Recorder())

    said = [m.content for m in store.messages(conversation.id)]
    assert "/remember My dog Rex is a beagle." in said
    assert len(said) == 3  # the message (or its edit), the command, one answer
    [source] = store.messages_by_ids(memories.store.source_messages([remembered.memory.id]))
    assert source.id == remembered.source.id
