"""An edit started before a dream merged, archived or deleted the memory
(round 12: the text and ``expected=`` still matched, so the user's correction
was saved into the superseded memory and reported saved, while the merged
memory, the one Reverie uses, kept the old fact)."""

from __future__ import annotations

import pytest

from desktop.core.db import Memory, MemoryStatus
from desktop.core.memory.gate import MemoryRefused
from desktop.core.memory.service import MemoryService

OLD = "The user's sister Ana lives in Lyon."
NEW = "The user's sister Ana lives in Paris now."


def _add(memories: MemoryService, text: str) -> Memory:
    return memories.store.add(text, embedding=None, source_kind="harvested", actor="harvest")


def test_an_edit_of_a_memory_merged_meanwhile_is_refused_naming_the_merge(
    memories: MemoryService,
) -> None:
    shown = _add(memories, OLD)  # what the browser shows when the user starts editing
    merged = memories.store.add(
        "The user's sister Ana lives in Lyon, in France.",
        embedding=None,
        source_kind="dream_merged",
        actor="dream:dedup",
    )
    memories.store.set_status(shown.id, "superseded", "dream:dedup", superseded_by=merged.id)

    with pytest.raises(MemoryRefused, match=f"merged into memory #{merged.id}"):
        memories.edit(shown.id, NEW, expected=shown.content)

    assert memories.store.get(shown.id).content == OLD  # type: ignore[union-attr]
    assert NEW not in [h.new_content for h in memories.store.history(shown.id)]


@pytest.mark.parametrize(("status", "word"), [("archived", "archived"), ("deleted", "deleted")])
def test_an_edit_of_a_memory_archived_or_deleted_meanwhile_is_refused(
    memories: MemoryService, status: MemoryStatus, word: str
) -> None:
    shown = _add(memories, OLD)
    memories.set_status([shown.id], status)

    with pytest.raises(MemoryRefused, match=f"was {word}"):
        memories.edit(shown.id, NEW, expected=shown.content)

    assert memories.store.get(shown.id).content == OLD  # type: ignore[union-attr]


def test_an_edit_of_an_active_memory_is_still_saved(memories: MemoryService) -> None:
    shown = _add(memories, OLD)

    saved = memories.edit(shown.id, NEW, expected=shown.content)

    assert saved.memory.content == NEW
    assert saved.memory.status == "active"
