"""Round 5's attacks on the files SQLite keeps beside the database.

A ``-wal`` file left by another database (a restore from a backup, a sync
tool, a copy made under the wrong name) used to be replayed into Reverie's
database when it was opened, which then refused the result as "another
application's database ... Nothing was changed": the user's conversations
were gone.  SQLite keeps no link between a WAL and its database, so the
stray file is only found by what replaying it would make of the database;
that is looked at without writing, and the WAL is named, not the database.

A folder where the ``-wal``, ``-shm`` or ``-journal`` file goes was called a
read-only database or a disk error; the folder is named instead.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, open_database
from desktop.core.db.errors import DatabaseUnavailable


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _foreign_wal(folder: Path, *, rows: int = 50) -> Path:
    """The WAL of another application's database, its frames not yet checkpointed."""
    other = folder / "other.sqlite3"
    connection = sqlite3.connect(other)
    connection.execute("PRAGMA journal_mode = wal")
    connection.execute("PRAGMA wal_autocheckpoint = 0")
    connection.execute("CREATE TABLE t (x)")
    connection.executemany("INSERT INTO t VALUES (?)", [("z" * 500,)] * rows)
    connection.commit()
    wal = folder / "other.wal"
    shutil.copy(f"{other}-wal", wal)  # while open: closing would checkpoint it away
    connection.close()
    return wal


def test_a_wal_from_another_database_is_refused_and_the_database_left_untouched(
    kept: Path, tmp_path: Path
) -> None:
    shutil.copy(_foreign_wal(tmp_path), f"{kept}-wal")
    before = _digest(kept)

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(kept)

    assert _digest(kept) == before
    assert Path(f"{kept}-wal").exists(), "the stray file is the user's to move, not ours to delete"
    message = str(refused.value)
    assert f"{kept}-wal" in message
    assert "another application's database" not in message
    assert "move" in (refused.value.hint or "").lower()


def test_once_the_stray_wal_is_moved_aside_the_conversations_are_all_there(
    kept: Path, tmp_path: Path
) -> None:
    shutil.copy(_foreign_wal(tmp_path), f"{kept}-wal")
    with pytest.raises(DatabaseUnavailable):
        open_database(kept)

    Path(f"{kept}-wal").rename(tmp_path / "set-aside.wal")
    with open_database(kept) as database:
        titles = [c.title for c in ConversationStore(database).list()]
    assert titles == ["my conversation"]


def test_a_new_database_beside_a_stray_wal_is_not_created_from_it(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    shutil.copy(_foreign_wal(tmp_path), f"{path}-wal")

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(path)

    assert f"{path}-wal" in str(refused.value)


def test_the_database_s_own_wal_after_a_crash_is_replayed(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    with open_database(path) as database:
        database.set_pragma("wal_autocheckpoint", 0)
        ConversationStore(database).create("said just before the crash")
        # The crash: the WAL and its frames stay, as if the process died here.
        shutil.copy(f"{path}-wal", tmp_path / "crash.wal")
        shutil.copy(path, tmp_path / "crash.sqlite3")
    shutil.copy(tmp_path / "crash.sqlite3", path)
    shutil.copy(tmp_path / "crash.wal", f"{path}-wal")

    with open_database(path) as database:
        titles = [c.title for c in ConversationStore(database).list()]

    assert titles == ["said just before the crash"]


def test_another_application_s_database_with_its_own_wal_is_refused_unchanged(
    tmp_path: Path,
) -> None:
    path = tmp_path / "reverie.sqlite3"
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode = wal")
    connection.execute("PRAGMA wal_autocheckpoint = 0")
    connection.execute("CREATE TABLE theirs (x)")
    connection.commit()
    connection.execute("INSERT INTO theirs VALUES (1)")
    connection.commit()
    shutil.copy(f"{path}-wal", tmp_path / "theirs.wal")
    shutil.copy(path, tmp_path / "theirs.sqlite3")
    connection.close()
    shutil.copy(tmp_path / "theirs.sqlite3", path)
    shutil.copy(tmp_path / "theirs.wal", f"{path}-wal")
    before = _digest(path)

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(path)

    assert "another application's database" in str(refused.value)
    assert _digest(path) == before


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_folder_where_a_side_file_goes_is_named(kept: Path, suffix: str) -> None:
    folder = Path(f"{kept}{suffix}")
    folder.mkdir()

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(kept)

    message = str(refused.value)
    assert f"{folder} is a folder" in message
    assert "read-only" not in message
    assert "move it aside" not in (refused.value.hint or "")


def test_a_backup_restored_beside_the_newer_database_s_wal_is_not_mixed_with_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "reverie.sqlite3"
    with open_database(path) as database:
        for n in range(30):
            ConversationStore(database).create(f"before the backup {n}")
    shutil.copy(path, tmp_path / "backup.sqlite3")
    with open_database(path) as database:
        for n in range(200):
            ConversationStore(database).create(f"after the backup {n} " * 20)
        database.fetch_value("PRAGMA wal_checkpoint(TRUNCATE)")
        database.set_pragma("wal_autocheckpoint", 0)
        for n in range(50):
            ConversationStore(database).create(f"only in the WAL {n} " * 20)
        shutil.copy(f"{path}-wal", tmp_path / "newer.wal")
    shutil.copy(tmp_path / "backup.sqlite3", path)  # the restore, the WAL left behind
    shutil.copy(tmp_path / "newer.wal", f"{path}-wal")
    before = _digest(path)

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(path)

    assert f"{path}-wal" in str(refused.value)
    assert _digest(path) == before
