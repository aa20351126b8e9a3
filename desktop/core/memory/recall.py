"""``Recall``: what a reply is given from the past, memories and excerpts together.

Facts win where they exist: the memories come first, and an excerpt of a
message a recalled memory was learned from is left out (the fact stands for
it).  Excerpts of past conversations fill what the harvest missed, unless
the user turned them off (``memory.recall_past_conversations``, read at
each call so a change applies to the next reply).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from desktop.core.db.message_search import Excerpt
from desktop.core.memory.excerpts import ExcerptRetriever, RecalledExcerpt
from desktop.core.memory.retrieval import MemoryRetriever, Retrieved


@dataclass(frozen=True)
class Recalled:
    memories: list[Retrieved]
    """Best first."""
    excerpts: list[RecalledExcerpt]
    """Best first; none of a message the memories were learned from."""


class Recall:
    """*memories* and *excerpts* for one reply; *sources* names the messages
    memories were learned from (``MemoryStore.source_messages``); *excerpts_on*
    says whether past conversations are recalled at all."""

    def __init__(
        self,
        memories: MemoryRetriever,
        excerpts: ExcerptRetriever,
        sources: Callable[[Sequence[int]], set[int]],
        excerpts_on: Callable[[], bool],
    ) -> None:
        self._memories = memories
        self._excerpts = excerpts
        self._sources = sources
        self._excerpts_on = excerpts_on

    def recall(
        self,
        message: str,
        last_reply: str = "",
        *,
        conversation_id: int | None = None,
        memories_k: int = 10,
        excerpts_k: int = 5,
    ) -> Recalled:
        """The memories and the excerpts of conversations other than
        *conversation_id* (the one being replied in) most relevant to
        *message* (and, less, *last_reply*)."""
        memories = self._memories.retrieve(message, last_reply, k=memories_k)
        if not self._excerpts_on() or excerpts_k < 1:
            return Recalled(memories, [])
        known = self._sources([r.memory.id for r in memories])
        # Asked for as many more as the memories could stand for.
        found = self._excerpts.retrieve(
            message, last_reply, k=excerpts_k + len(known), other_than=conversation_id
        )
        excerpts = [r for r in found if r.excerpt.message_id not in known][:excerpts_k]
        return Recalled(memories, excerpts)

    def excerpts(self, message_ids: Sequence[int], *, for_model: bool = True) -> dict[int, Excerpt]:
        """The excerpts of *message_ids* as they are now, by id (those still
        findable, redacted as ``ExcerptRetriever.by_id`` says; none while
        past conversations are not recalled): what a reply was given, given
        or shown again."""
        if not self._excerpts_on():
            return {}
        return self._excerpts.by_id(message_ids, for_model=for_model)
