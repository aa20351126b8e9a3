"""Round 8's attacks on the files SQLite keeps beside the database: a hard
link there (left by a backup restored with ``cp -al`` or rsnapshot) is a
regular file to ``lstat``, and SQLite wrote its log through it into the
other file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop.core.db import open_database
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
