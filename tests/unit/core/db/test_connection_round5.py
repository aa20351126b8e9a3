"""Round 5 of the attacks on opening a database: a folder on the way that
this user may not search makes ``Path.exists`` raise ``PermissionError``
(it only answers False for a missing file).  Opening a copy there is
refused with a typed error naming what is in the way, not a bare
``PermissionError``.

As root, permission bits stop nothing (these tests often run as root), so
the closed folder is played by a ``Path.stat`` that answers as the system
does for a folder without search permission (EACCES); the same case with
real permission bits runs where they stop this process.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.db import Database
from desktop.core.db.errors import DatabaseUnavailable
from desktop.core.db.opening import open_copy


@pytest.fixture
def closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder whose contents cannot be looked at, as without search permission."""
    folder = tmp_path / "closed"
    folder.mkdir()
    real_stat = Path.stat

    def stat_as_the_system_would(path: Path, *, follow_symlinks: bool = True) -> os.stat_result:
        if folder in path.parents:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_stat(path, follow_symlinks=follow_symlinks)

    monkeypatch.setattr(Path, "stat", stat_as_the_system_would)
    return folder


def test_a_copy_in_a_folder_closed_to_this_user_is_refused_with_a_typed_error(
    database: Database, closed: Path
) -> None:
    with pytest.raises(DatabaseUnavailable) as refused:
        open_copy(closed / "snapshot.sqlite3", database)

    assert isinstance(refused.value, EnvironmentProblem)
    assert str(closed / "snapshot.sqlite3") in str(refused.value)
    assert "cannot be reached" in str(refused.value)


@pytest.fixture
def unsearchable(tmp_path: Path) -> Iterator[Path]:
    """A real folder without search permission; skipped where the bits stop nothing (root)."""
    folder = tmp_path / "unsearchable"
    folder.mkdir()
    folder.chmod(0o600)
    try:
        try:
            (folder / "probe").stat()
        except PermissionError:
            pass
        except FileNotFoundError:
            pytest.skip("this process searches any folder whatever its bits say (root)")
        yield folder
    finally:
        folder.chmod(folder.stat().st_mode | stat.S_IXUSR | stat.S_IWUSR)


def test_a_copy_in_a_real_unsearchable_folder_is_refused(
    database: Database, unsearchable: Path
) -> None:
    with pytest.raises(DatabaseUnavailable, match="cannot be reached"):
        open_copy(unsearchable / "snapshot.sqlite3", database)
