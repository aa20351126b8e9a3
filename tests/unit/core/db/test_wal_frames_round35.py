"""Round 35: a write-ahead log damaged in frames SQLite had already written
back into the database (a checkpoint ran, then Reverie was killed before its
next write) was taken for another database's log: the start refused with
"not that database's write-ahead log" (damage a third of the way in), and
the count of changes lost named ones the database held.  Replaying the log
up to the damage would lay older pages over the newer ones the checkpoint
wrote: the log is set aside (kept for a recovery tool) and the database
opens as the checkpoint left it, with nothing lost to say."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, open_database
from desktop.core.db.wal_frames import lost_commits
from tests.unit.core.db.test_wal_frames import TITLES, _frames, _left_by_a_kill, _overwrite_frame


@pytest.mark.parametrize("at", [0.02, 0.33, 0.5, 0.9])
def test_a_wal_damaged_where_it_was_written_back_loses_nothing_and_opens(
    tmp_path: Path, at: float
) -> None:
    path, page_size = _left_by_a_kill(tmp_path, written_back=True)
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
