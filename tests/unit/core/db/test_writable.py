"""Tests of desktop.core.db.writable: a database that cannot be written is
refused when it is opened, not at the first write.

As root, permission bits stop nothing (and these tests often run as root), so
the cases that rest on ``chmod`` are skipped there; the cases that open the
file through a driver that can only read (as SQLite does by itself with a
file it may not write) run for everyone.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlean

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.db.drivers import DriverCandidate
from desktop.core.db.errors import DatabaseUnavailable
from desktop.core.db.opening import open_database


class _ReadOnlySqlean:
    """sqlean, opening every file read-only: what SQLite does by itself with
    a file this user may not write (and all that root on a read-only mount sees)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(sqlean, name)

    def connect(self, path: str, **options: Any) -> Any:
        return sqlean.connect(f"file:{path}?mode=ro", uri=True, **options)


READ_ONLY_DRIVER = [DriverCandidate("sqlean", _ReadOnlySqlean)]


@pytest.fixture
def existing(db_path: Path) -> Path:
    """An up-to-date database: opening it needs no write."""
    open_database(db_path).close()
    return db_path


@pytest.fixture
def restore_modes(tmp_path: Path) -> Iterator[None]:
    """Skip unless permission bits stop this process (root with its usual
    capabilities writes anyway); after the test, make everything writable
    again so its folder can be removed."""
    probe = tmp_path / "probe"
    probe.touch(mode=0o400)
    try:
        probe.open("a").close()
    except PermissionError:
        pass
    else:
        pytest.skip(
            "this process writes whatever the permission bits say (root); the "
            "read-only driver tests cover the refusal here"
        )
    finally:
        probe.unlink()
    yield
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR | stat.S_IXUSR * path.is_dir())


def test_a_database_opened_read_only_is_refused_at_once(existing: Path) -> None:
    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(existing, drivers=READ_ONLY_DRIVER)

    said = str(refused.value)
    assert said.startswith(f"The database {existing} is read-only: Reverie needs to write to it.")
    assert "Check its permissions" in said
    assert isinstance(refused.value, EnvironmentProblem)


def test_refusing_a_read_only_database_changes_nothing(existing: Path) -> None:
    before = existing.read_bytes()

    with pytest.raises(DatabaseUnavailable):
        open_database(existing, drivers=READ_ONLY_DRIVER)

    assert existing.read_bytes() == before
    with open_database(existing) as database:  # and it still opens for writing
        assert database.fetch_value("PRAGMA user_version") == 0


def test_the_write_probe_keeps_nothing(existing: Path) -> None:
    wal = existing.with_name(existing.name + "-wal")

    with open_database(existing):
        assert wal.stat().st_size == 0  # a kept write would be a frame in the WAL


@pytest.mark.usefixtures("restore_modes")
def test_a_database_file_without_write_permission_is_refused(existing: Path) -> None:
    existing.chmod(0o400)

    with pytest.raises(DatabaseUnavailable, match=r"is read-only: Reverie needs to write to it"):
        open_database(existing)


@pytest.mark.usefixtures("restore_modes")
def test_a_read_only_folder_is_refused_and_named(existing: Path) -> None:
    existing.parent.chmod(0o555)  # SQLite could not create the -wal file beside it

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(existing)

    assert f"The folder {existing.parent} is read-only" in str(refused.value)


@pytest.mark.usefixtures("restore_modes")
def test_a_new_database_in_a_read_only_folder_is_refused_and_not_created(db_path: Path) -> None:
    db_path.parent.chmod(0o555)

    with pytest.raises(DatabaseUnavailable, match="is read-only"):
        open_database(db_path)

    assert not db_path.exists()


@pytest.mark.usefixtures("restore_modes")
def test_a_read_only_wal_file_is_refused(existing: Path) -> None:
    wal = existing.with_name(existing.name + "-wal")
    wal.write_bytes(b"")
    wal.chmod(0o400)

    with pytest.raises(DatabaseUnavailable, match=f"The database {wal} is read-only"):
        open_database(existing)
