"""Round 26: MEMORIES.md lists pinned memories first, yet chose among the
most reinforced memories only: once a few hundred memories had been seen
more often, a memory the user pinned (seen once) was left out of it."""

from __future__ import annotations

from pathlib import Path

from desktop.core.db import Database, MemoryStore, NewMemory
from desktop.core.dreaming.working_set import write_working_set


def test_a_pinned_memory_is_listed_however_many_are_seen_more_often(
    database: Database, tmp_path: Path
) -> None:
    store = MemoryStore(database)
    store.add_many(
        [
            NewMemory(
                f"The user once visited town number {n}.", None, "harvested", reinforcement_count=3
            )
            for n in range(250)
        ],
        actor="harvest",
    )
    [pinned] = store.add_many(
        [NewMemory("The user's mother is called Ines.", None, "user_explicit", pinned=True)],
        actor="user",
    )
    path = tmp_path / "MEMORIES.md"

    listed = write_working_set(store, path, 10)

    text = path.read_text(encoding="utf-8")
    assert listed == 10
    assert f"The user's mother is called Ines. (pinned) — #{pinned}" in text
