"""Round 34: a byte of the write-ahead log's header overwritten (its magic,
page size, salts or checksums) made SQLite ignore the whole log, and every
change committed in it since the last checkpoint was dropped with no word
(14 messages of 50 in the attack); SQLite then writes over the log, so
nothing was left to recover them from.  It is said, and the log kept aside,
as a log damaged in its middle is (round 18)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, open_database
from desktop.core.db.wal_frames import lost_commits
from tests.unit.core.db.test_wal_frames import TITLES, _left_by_a_kill

HEADER_FIELDS = {"magic": 1, "page size": 10, "salt": 17, "checksum": 29}
"""A byte within each field of the log's 32-byte header."""


@pytest.mark.parametrize("offset", HEADER_FIELDS.values(), ids=HEADER_FIELDS.keys())
def test_a_wal_header_damaged_is_said_and_the_log_kept_aside(tmp_path: Path, offset: int) -> None:
    path, _page_size = _left_by_a_kill(tmp_path)
    wal = Path(f"{path}-wal")
    with wal.open("r+b") as file:
        file.seek(offset)
        byte = file.read(1)[0]
        file.seek(offset)
        file.write(bytes([byte ^ 0x5A]))

    assert lost_commits(wal) >= len(TITLES)
    with open_database(path) as database:
        [note] = database.opening_notes
        kept_titles = [c.title for c in ConversationStore(database).list()]
    assert "could not be read back" in note
    assert kept_titles == []  # SQLite's reading: the whole log ignored, as the note says
    [kept] = tmp_path.glob("reverie.sqlite3-wal.damaged-*")
    assert b"Session 11" in kept.read_bytes()  # for a recovery tool
