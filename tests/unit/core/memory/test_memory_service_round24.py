"""Round 24: "Forget a topic" found only active memories.

A memory the dream archived (unseen for long) or superseded (a
contradiction lost, an older version) is still stored: listed under its
filter, exported, restorable, and a dream's change can bring it back.
"Forget everything about Sam", even "Forget now, for good", left them all:
the preview did not show them, so nothing erased them.  The preview finds
every memory about the topic not deleted already."""

from __future__ import annotations

from desktop.core.db import Database
from desktop.core.memory.service import MemoryService


def _kept(memories: MemoryService, text: str) -> int:
    return memories.remember(text, source_kind="harvested", actor="harvest").memory.id


def test_archived_and_superseded_memories_about_a_topic_are_found_to_forget(
    memories: MemoryService, database: Database
) -> None:
    archived = _kept(memories, "The user's ex is called Sam.")
    older = _kept(memories, "Sam and the user split in April.")
    newer = _kept(memories, "Sam and the user split in May.")
    deleted = _kept(memories, "Sam plays the cello.")
    _kept(memories, "The user likes jazz.")
    memories.store.set_status(archived, "archived", "dream:stale")
    memories.store.set_status(older, "superseded", "dream:contradictions", superseded_by=newer)
    memories.set_status([deleted], "deleted")  # on its way out already: not asked again

    found = memories.about("Sam")

    assert {m.id for m in found} == {archived, older, newer}
    assert memories.store.get(archived).status == "archived"  # type: ignore[union-attr]
