"""Round 21's attack on reading another assistant's export: one message of
200 MB.  Before round 21 it was imported: read whole (680 MB of memory),
then checked for secrets, which takes about 19 seconds a megabyte on 2
cores (an hour for it) inside one conversation, where Cancel is not looked
at.  A message past ``MESSAGE_CHARS`` is left out and counted as such."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from desktop.core.transfer import chatgpt, claude
from desktop.core.transfer.foreign import MESSAGE_CHARS, ForeignConversation, Unusable
from tests.unit.core.transfer.exports import chatgpt_line
from tests.unit.core.transfer.exports import claude as claude_conversation

HUGE = "word " * (MESSAGE_CHARS // 5 + 1)


@pytest.mark.parametrize(
    ("read", "item"),
    [
        (chatgpt.conversation, chatgpt_line("c1", "Pasted", "Read this:", "OK", HUGE, "Done.")),
        (claude.conversation, claude_conversation("u1", "Pasted", "Read this:", "OK", HUGE)),
    ],
    ids=["chatgpt", "claude"],
)
def test_a_message_past_the_longest_is_left_out_and_counted(
    read: Callable[[object], ForeignConversation | Unusable], item: dict[str, Any]
) -> None:
    found = read(item)

    assert isinstance(found, ForeignConversation)
    assert all(len(m.text) <= MESSAGE_CHARS for m in found.messages)
    assert [m.text for m in found.messages][:2] == ["Read this:", "OK"]
    assert f"1 message over {MESSAGE_CHARS:,} characters" in found.left_out
