"""Round 16: what is taken out of the memories leaves the files written from
them at once: ``MEMORIES.md``, not at the next dream, and the leftover of a
copy a kill cut short a moment ago, not 10 minutes later."""

from __future__ import annotations

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database
from desktop.core.dreaming.erasure import Eraser
from desktop.core.dreaming.snapshots import SNAPSHOT_PREFIX, SNAPSHOT_SUFFIX, take_snapshot
from desktop.core.dreaming.working_set import write_working_set
from desktop.core.memory.service import MemoryService

VALUE = "Qv7#lumen9"


def test_a_value_named_later_leaves_memories_md_once_taken_out(
    database: Database, user_dirs: AppPaths, eraser: Eraser, memories: MemoryService
) -> None:
    memories.when_taken_out(eraser.memories_rewritten)  # as the application ties them
    memory = memories.store.add(
        f"When the NAS asks, the user types {VALUE} into it.",
        embedding=None,
        source_kind="user_explicit",
        actor="user",
    )
    listed = user_dirs.working_set_file
    write_working_set(memories.store, listed, 50)  # as the last dream left it
    assert VALUE in listed.read_text()

    with pytest.raises(RuntimeError), database.transaction() as tx:
        memories.take_out([VALUE], tx)
        raise RuntimeError("the message could not be stored")
    assert VALUE in listed.read_text()  # rolled back: the memory still holds it

    with database.transaction() as tx:
        assert memories.take_out([VALUE], tx) == [memory.id]
        assert VALUE in listed.read_text()  # not before it is committed

    assert VALUE not in listed.read_text()
    assert "types [redacted password] into it" in listed.read_text()


def test_delete_now_removes_what_a_copy_killed_a_moment_ago_left(
    database: Database, user_dirs: AppPaths, eraser: Eraser, memories: MemoryService
) -> None:
    memory = memories.store.add(
        "The user's Vellichorian notebook is in the attic.",
        embedding=None,
        source_kind="user_explicit",
        actor="user",
    )
    folder = user_dirs.snapshots_dir
    take_snapshot(database, folder, "20261128T100000Z", skills_dir=None, keep=3)
    # A dream killed after its copy was written and checked, before the rename.
    killed = folder / f".{SNAPSHOT_PREFIX}20261128T110000Z{SNAPSHOT_SUFFIX}.part"
    database.snapshot_to(killed)
    assert b"Vellichorian" in killed.read_bytes()

    erased = eraser.erase_memories([memory.id])

    # Every copy is written under the lock the erasure holds: none is live.
    assert (erased.memories, erased.snapshots) == (1, 1)
    assert not killed.exists()
    assert [p.name for p in folder.iterdir() if b"Vellichorian" in p.read_bytes()] == []
