"""Round 26: the title a conversation is given from its first message was
cut by code points, so a cut inside an emoji sequence named the
conversation with another emoji (a family cut after its father, a flag
halved to a letter) or left a joiner fusing with the "…"."""

from __future__ import annotations

import pytest

from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji, five code points
FLAG = "\U0001f1f5\U0001f1f9"  # Portugal: two regional indicators


@pytest.mark.parametrize("cluster", [FAMILY, FLAG], ids=["family", "flag"])
def test_a_title_made_of_the_first_message_keeps_its_last_emoji_whole(
    chat: ChatService, store: ConversationStore, cluster: str
) -> None:
    for offset in range(1, len(cluster)):
        conversation = chat.new_conversation()
        # The 48-character cut falls *offset* code points into the emoji.
        chat.send(conversation.id, "a" * (48 - offset) + cluster + " is moving to Porto")
        found = store.get(conversation.id)
        assert found is not None
        assert found.title == "a" * (48 - offset) + "…", ascii(found.title)
