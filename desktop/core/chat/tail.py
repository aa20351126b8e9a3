"""The end of a conversation as a turn reads it: its newest live (not
summarised) messages, a page at a time from the end, never the whole
history.  The first reply in a conversation of 50,000 imported messages
read every one of them twice and redacted each for the prompt and for a
compaction of all of them, 45 seconds before its first word."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from desktop.core.db import ConversationStore, Message

PAGE = 32
"""Messages read at a time."""


@dataclass(frozen=True)
class Tail:
    messages: list[Message]
    """The newest live messages read, in the order they were added."""
    whole: bool
    """They are all the conversation's live messages."""


def live_tail(
    conversations: ConversationStore,
    conversation_id: int,
    enough: Callable[[Sequence[Message]], bool],
) -> Tail:
    """The conversation's newest live messages, read a page at a time from
    the end until *enough* says those read are enough, or none are left.
    Summarised messages are the oldest (``apply_compaction`` archives all
    up to one), so the first met ends the live ones."""
    read: list[Message] = []
    before: int | None = None
    while True:
        page = conversations.page(conversation_id, PAGE, before, counted=1)
        live = [m for m in page.messages if m.archived_at is None]
        read = live + read
        if len(live) < len(page.messages) or not page.earlier:
            return Tail(read, whole=True)
        if enough(read):
            return Tail(read, whole=False)
        before = page.messages[0].id
