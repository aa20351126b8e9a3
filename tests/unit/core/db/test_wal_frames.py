"""Round 18, noticed: a WAL damaged in its middle lost every message
committed after the damage, silently (SQLite replays up to the first frame
whose checksum fails)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, open_database
from desktop.core.db.wal_frames import lost_commits

TITLES = [f"Session {n}" for n in range(12)]


def _left_by_a_kill(
    folder: Path, *, written_back: bool = False, index: bool = False, held_back: bool = False
) -> tuple[Path, int]:
    """A database and its WAL as a killed Reverie leaves them: twelve
    conversations, each committed alone, none checkpointed; its page size.
    *written_back*: all checkpointed, the log not begun again.  *index*:
    the log's index (``-shm``) left beside them too.  *held_back*: a
    checkpoint held back by a reader of the first six wrote back only them."""
    live = folder / "live" / "reverie.sqlite3"
    live.parent.mkdir()
    with open_database(live) as database:
        database.set_pragma("wal_autocheckpoint", 0)
        store = ConversationStore(database)
        for title in TITLES[:6]:
            store.create(title)
        with database.read_snapshot():
            for title in TITLES[6:]:
                store.create(title)
            if held_back:
                database.fetch_one("PRAGMA wal_checkpoint(PASSIVE)")
        if written_back:
            database.fetch_one("PRAGMA wal_checkpoint(PASSIVE)")
        page_size = int(database.pragma("page_size"))
        copy = folder / "reverie.sqlite3"
        # While open: the WAL is still there.
        for suffix in ("", "-wal", *(["-shm"] if index else [])):
            shutil.copyfile(f"{live}{suffix}", f"{copy}{suffix}")
    return copy, page_size


def _frames(wal: Path, page_size: int) -> int:
    return (wal.stat().st_size - 32) // (24 + page_size)


def _overwrite_frame(wal: Path, page_size: int, frame: int) -> None:
    with wal.open("r+b") as file:
        file.seek(32 + frame * (24 + page_size) + 24 + 100)
        file.write(os.urandom(64))


def test_a_wal_damaged_in_its_middle_is_said_and_kept_aside(tmp_path: Path) -> None:
    path, page_size = _left_by_a_kill(tmp_path)
    wal = Path(f"{path}-wal")
    frames = _frames(wal, page_size)
    assert frames > len(TITLES) and lost_commits(wal) == 0
    _overwrite_frame(wal, page_size, frames // 3)

    lost = lost_commits(wal)
    assert lost > 0
    with open_database(path) as database:
        [note] = database.opening_notes
        kept_titles = [c.title for c in ConversationStore(database).list()]
    assert f"{lost} changes saved after the damaged part could not be read back" in note
    assert len(kept_titles) < len(TITLES)  # SQLite's recovery: what the note warns of
    [kept] = tmp_path.glob("reverie.sqlite3-wal.damaged-*")
    assert f"The log is kept as {kept}" in note
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert b"Session 11" in kept.read_bytes()  # for a recovery tool


@pytest.mark.parametrize("damage", ["none", "torn last frame", "cut mid-frame"])
def test_a_sound_wal_or_a_crash_s_torn_last_write_says_nothing(tmp_path: Path, damage: str) -> None:
    path, page_size = _left_by_a_kill(tmp_path)
    wal = Path(f"{path}-wal")
    frames = _frames(wal, page_size)
    if damage == "torn last frame":
        _overwrite_frame(wal, page_size, frames - 1)
    elif damage == "cut mid-frame":
        os.truncate(wal, wal.stat().st_size - page_size // 2)

    assert lost_commits(wal) == 0
    with open_database(path) as database:
        assert database.opening_notes == []
    assert not list(tmp_path.glob("*.damaged-*"))
