"""Round 17: a value named a secret later left ``MEMORIES.md`` only in an
action after the message's commit that nothing recorded, so a kill before
the file's rename, or a full disk then (only logged), kept the value in the
file for good; no start wrote it again.  Now the rewrite owes the file in
its transaction, and the next start writes it."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database
from desktop.core.dreaming import working_set
from desktop.core.dreaming.erasure import Eraser
from desktop.core.dreaming.working_set import write_working_set
from desktop.core.memory.service import MemoryService
from tests.erasers import eraser_for

VALUE = "Qv7#lumen9"


class Killed(BaseException):
    """The process killed: nothing after it runs, nothing catches it."""


def _listed(memories: MemoryService, user_dirs: AppPaths) -> Path:
    """MEMORIES.md as the last dream left it, listing a memory holding VALUE."""
    memories.store.add(
        f"When the NAS asks, the user types {VALUE} into it.",
        embedding=None,
        source_kind="user_explicit",
        actor="user",
    )
    listed = user_dirs.working_set_file
    write_working_set(memories.store, listed, 50)
    assert VALUE in listed.read_text()
    return listed


def full_disk(path: Path, text: str) -> None:
    """``working_set.write_atomically`` on a full disk."""
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _take_out(database: Database, memories: MemoryService) -> None:
    with database.transaction() as tx:
        memories.take_out([VALUE], tx)


def test_a_kill_before_memories_md_is_renamed_leaves_it_to_the_next_start(
    database: Database,
    user_dirs: AppPaths,
    eraser: Eraser,
    memories: MemoryService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    memories.when_taken_out(eraser.memories_rewritten)  # as the application ties them
    listed = _listed(memories, user_dirs)
    replace = os.replace

    def killed_at_the_rename(source: str, target: str) -> None:
        if Path(target).name == listed.name:
            raise Killed
        replace(source, target)

    monkeypatch.setattr(os, "replace", killed_at_the_rename)
    with pytest.raises(Killed):
        _take_out(database, memories)
    monkeypatch.setattr(os, "replace", replace)
    assert VALUE in listed.read_text()  # committed, the file not written

    eraser_for(database, user_dirs).erase_expired()  # the next start

    assert VALUE not in listed.read_text()
    assert memories.store.files_owed() is None


def test_a_full_disk_leaves_memories_md_owed_and_the_next_start_writes_it(
    database: Database,
    user_dirs: AppPaths,
    eraser: Eraser,
    memories: MemoryService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    memories.when_taken_out(eraser.memories_rewritten)
    listed = _listed(memories, user_dirs)

    with monkeypatch.context() as patched:
        patched.setattr(working_set, "write_atomically", full_disk)
        _take_out(database, memories)  # the message is stored: no error
    assert VALUE in listed.read_text()
    assert memories.store.files_owed() is not None

    eraser_for(database, user_dirs).erase_expired()  # the next start

    assert VALUE not in listed.read_text()
    assert "types [redacted password] into it" in listed.read_text()
    assert memories.store.files_owed() is None


def test_memories_md_written_after_the_commit_is_owed_no_longer(
    database: Database, user_dirs: AppPaths, eraser: Eraser, memories: MemoryService
) -> None:
    memories.when_taken_out(eraser.memories_rewritten)
    listed = _listed(memories, user_dirs)

    _take_out(database, memories)

    assert VALUE not in listed.read_text()
    assert memories.store.files_owed() is None


def test_a_value_only_in_an_edited_memory_s_history_still_leaves_memories_md(
    database: Database,
    user_dirs: AppPaths,
    eraser: Eraser,
    memories: MemoryService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Round 18: the file, written before the edit, holds the old text; the
    rewrite owed it only when a memory's current text held the value."""
    listed = _listed(memories, user_dirs)
    [memory] = memories.store.listed()
    memories.store.update_content(memory.id, "The user has a NAS at home.", None, "user")
    assert VALUE in listed.read_text()  # no dream since the edit

    memories.when_taken_out(eraser.memories_rewritten)
    with monkeypatch.context() as patched:
        patched.setattr(working_set, "write_atomically", full_disk)
        _take_out(database, memories)
    assert memories.store.files_owed() is not None

    eraser_for(database, user_dirs).erase_expired()  # the next start

    assert VALUE not in listed.read_text()
