"""Round 16: what is taken out of the memories leaves the files written from
them, ``MEMORIES.md``, at once; not at the next dream."""

from __future__ import annotations

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database
from desktop.core.dreaming.erasure import Eraser
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
