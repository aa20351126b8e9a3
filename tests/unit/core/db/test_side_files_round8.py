"""Round 8's attacks on the files SQLite keeps beside the database: a hard
link there (left by a backup restored with ``cp -al`` or rsnapshot) is a
regular file to ``lstat``, and SQLite wrote its log through it into the
other file; a snapshot restored beside the live database's WAL shared its
identity, so that WAL was replayed over the restored copy."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, open_database
from desktop.core.db.errors import DatabaseUnavailable

NOTES = "my notes\n" * 100


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_hard_link_where_a_side_file_goes_is_named_and_nothing_written_through(
    kept: Path, tmp_path: Path, suffix: str
) -> None:
    other = tmp_path / "notes.txt"
    other.write_text(NOTES)
    os.link(other, f"{kept}{suffix}")

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(kept).close()

    assert f"{kept}{suffix} is a hard link" in str(refused.value)
    assert other.read_text() == NOTES


def test_a_restored_snapshot_refuses_the_live_databases_wal(tmp_path: Path) -> None:
    # The live database compacted (every page rewritten in its WAL) and killed
    # before the checkpoint; then the user copies a snapshot over it.
    live = tmp_path / "reverie.sqlite3"
    snapshot = tmp_path / "snapshot.sqlite3"
    with open_database(live) as database:
        ConversationStore(database).create("in the snapshot")
        database.snapshot_to(snapshot)
        ConversationStore(database).create("written after the snapshot")
        database._execute("VACUUM", ())
        killed = live.read_bytes(), Path(f"{live}-wal").read_bytes()
    live.write_bytes(killed[0])
    Path(f"{live}-wal").write_bytes(killed[1])
    shutil.copy(snapshot, live)
    restored = live.read_bytes()

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(live).close()

    assert f"{live}-wal" in str(refused.value)
    assert live.read_bytes() == restored


def test_a_database_with_a_second_name_is_named_and_the_other_file_untouched(
    kept: Path, tmp_path: Path
) -> None:
    backup = tmp_path / "backup.sqlite3"
    os.link(kept, backup)  # a backup restored with cp -al
    before = backup.read_bytes()

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(kept).close()

    assert "has another name too" in str(refused.value)
    assert backup.read_bytes() == before
