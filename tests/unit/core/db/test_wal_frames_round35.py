"""Round 35: a write-ahead log damaged in frames SQLite had already written
back into the database (a checkpoint ran, then Reverie was killed before its
next write) was taken for another database's log: the start refused with
"not that database's write-ahead log" (damage a third of the way in), and
the count of changes lost named ones the database held.  Replaying the log
up to the damage would lay older pages over the newer ones the checkpoint
wrote: the log is set aside (kept for a recovery tool) and the database
opens as the checkpoint left it, with nothing lost to say."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, open_database
from desktop.core.db.wal_frames import lost_commits
from tests.unit.core.db.test_wal_frames import TITLES, _frames, _left_by_a_kill, _overwrite_frame


@pytest.mark.parametrize("at", [0.02, 0.33, 0.5, 0.9])
def test_a_wal_damaged_where_it_was_written_back_loses_nothing_and_opens(
    tmp_path: Path, at: float
) -> None:
    path, page_size = _left_by_a_kill(tmp_path, written_back=True, index=True)
    wal = Path(f"{path}-wal")
    _overwrite_frame(wal, page_size, int(_frames(wal, page_size) * at))

    lost = lost_commits(wal)
    with open_database(path) as database:
        titles = [c.title for c in ConversationStore(database).list()]
        notes = database.opening_notes
        damage = database.fetch_value("PRAGMA integrity_check")

    assert (lost, notes, damage) == (0, [], "ok")
    assert sorted(titles) == sorted(TITLES)
    [kept] = tmp_path.glob("reverie.sqlite3-wal.damaged-*")
    assert b"Session 11" in kept.read_bytes()  # for a recovery tool


LOG_GONE = {
    "deleted": lambda wal: wal.unlink(),
    "emptied": lambda wal: os.truncate(wal, 0),
    "cut in half": lambda wal: os.truncate(wal, wal.stat().st_size // 2),
}


@pytest.mark.parametrize("gone", LOG_GONE.values(), ids=LOG_GONE.keys())
def test_a_wal_deleted_or_cut_after_a_kill_is_said_from_its_index(
    tmp_path: Path, gone: Callable[[Path], None]
) -> None:
    # Round 34 left it: SQLite opens the database without the log's changes
    # and sees no damage.  The log's index still counts the frames it held.
    path, page_size = _left_by_a_kill(tmp_path, index=True)
    wal = Path(f"{path}-wal")
    frames = _frames(wal, page_size)
    gone(wal)
    missing = frames - max(0, _frames(wal, page_size) if wal.exists() else 0)

    with open_database(path) as database:
        [note] = database.opening_notes
        kept = len(ConversationStore(database).list())

    assert "was deleted or cut short after Reverie was stopped without closing" in note
    assert f"({missing} pages of them)" in note
    assert kept < len(TITLES)  # what the note warns of


@pytest.mark.parametrize("written_back", [False, True])
def test_a_whole_wal_with_its_index_says_nothing(tmp_path: Path, written_back: bool) -> None:
    path, _page_size = _left_by_a_kill(tmp_path, written_back=written_back, index=True)

    with open_database(path) as database:
        assert database.opening_notes == []
        assert len(ConversationStore(database).list()) == len(TITLES)


def test_a_wal_written_back_then_deleted_says_nothing(tmp_path: Path) -> None:
    path, _page_size = _left_by_a_kill(tmp_path, written_back=True, index=True)
    Path(f"{path}-wal").unlink()  # nothing in it the database lacked

    with open_database(path) as database:
        assert database.opening_notes == []
        assert len(ConversationStore(database).list()) == len(TITLES)
