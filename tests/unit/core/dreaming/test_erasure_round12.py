"""Round 12: "Delete now" while a dream's rotation removes a snapshot.  A
copy removed after the purge opened it made SQLite refuse the write (the
file "moved"), and the user was told the erasure was not finished because
"the file is read-only", with "Free some disk space".  A copy gone meanwhile
holds nothing: the erasure is done."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database, MemoryStore, purge
from desktop.core.dreaming.erasure import LEFTOVER_AGE_S, ErasedNotFinished, Eraser
from desktop.core.dreaming.snapshots import complete_snapshots, take_snapshot

SECRET = "The user's locker code is in the blue notebook."


def _texts_in(folder: Path) -> list[str]:
    """The snapshot files under *folder* that still hold SECRET's words."""
    return [p.name for p in folder.iterdir() if p.is_file() and b"blue notebook" in p.read_bytes()]


@pytest.mark.parametrize("moment", ["before the write", "before the compaction"])
def test_a_snapshot_the_rotation_removes_mid_purge_is_simply_gone(
    database: Database,
    user_dirs: AppPaths,
    eraser: Eraser,
    monkeypatch: pytest.MonkeyPatch,
    moment: str,
) -> None:
    store = MemoryStore(database)
    memory = store.add(SECRET, embedding=None, source_kind="harvested", actor="harvest")
    folder = user_dirs.snapshots_dir
    rotated = take_snapshot(database, folder, "20261125-110000", skills_dir=None, keep=3)
    kept = take_snapshot(database, folder, "20261125-120000", skills_dir=None, keep=3)
    store.set_status(memory.id, "deleted", "user")

    def removing_first(real: Callable[..., object]) -> Callable[..., object]:
        def step(copy: Database, *args: object) -> object:
            if copy.path == rotated and moment == "before the compaction":
                rotated.unlink()  # the dream's rotation unlinks it at this instant
            result = real(copy, *args)
            if copy.path == rotated and moment == "before the write":
                rotated.unlink()
            return result

        return step

    if moment == "before the write":
        monkeypatch.setattr(purge, "_holds_any", removing_first(purge._holds_any))
    else:
        monkeypatch.setattr(purge, "compact", removing_first(purge.compact))

    erased = eraser.erase_memories([memory.id])

    assert erased.memories == 1
    assert not rotated.exists()
    assert complete_snapshots(folder) == [kept]
    assert _texts_in(folder) == []
    assert sorted(p.name for p in folder.iterdir()) == [kept.name]


def test_a_file_the_rotation_removes_while_leftovers_are_looked_at_is_passed_over(
    database: Database,
    user_dirs: AppPaths,
    eraser: Eraser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryStore(database)
    memory = store.add(SECRET, embedding=None, source_kind="harvested", actor="harvest")
    folder = user_dirs.snapshots_dir
    take_snapshot(database, folder, "20261125-120000", skills_dir=None, keep=3)
    store.set_status(memory.id, "deleted", "user")
    vanished = folder / "before-dream-20261125-110000.sqlite3-journal"  # listed, then removed
    real_iterdir = Path.iterdir

    def listing_a_removed_file(self: Path) -> object:
        yield from real_iterdir(self)
        if self == folder:
            yield vanished

    monkeypatch.setattr(Path, "iterdir", listing_a_removed_file)

    erased = eraser.erase_memories([memory.id])

    assert erased.memories == 1
    assert erased.snapshots == 1


def test_an_unfinished_erasure_gives_the_advice_of_what_failed_not_always_disk_space(
    database: Database,
    user_dirs: AppPaths,
    eraser: Eraser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryStore(database)
    memory = store.add(SECRET, embedding=None, source_kind="harvested", actor="harvest")
    folder = user_dirs.snapshots_dir
    take_snapshot(database, folder, "20261125-120000", skills_dir=None, keep=3)
    stray = folder / "before-dream-20261125-110000.sqlite3-journal"  # its copy is gone
    stray.write_bytes(b"half a copy")
    old = stray.stat().st_mtime - LEFTOVER_AGE_S - 60
    os.utime(stray, (old, old))
    store.set_status(memory.id, "deleted", "user")
    real_unlink = Path.unlink

    def refusing(self: Path, missing_ok: bool = False) -> None:
        if self == stray:
            raise PermissionError(1, "Operation not permitted", str(self))
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", refusing)

    with pytest.raises(ErasedNotFinished) as raised:
        eraser.erase_memories([memory.id])

    assert "Remove it by hand" in raised.value.hint
    assert "disk space" not in raised.value.hint
