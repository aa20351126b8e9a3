"""Round 24 of the attacks on ``reverie export``: where the archive goes.

- ``reverie export PIPE --force`` (a named pipe; as root, ``/dev/full``)
  renamed the archive over it: the pipe (the device) was gone, a file stood
  in its place, and "Exported ..." said it went well.
- ``reverie export FOLDER`` said "FOLDER exists already ... Use --force to
  replace it", and ``--force`` then failed with "Is a directory"; ``export
  ""`` said the same of ".", a folder the user never named.
- ``reverie export`` onto Reverie's own database advised ``--force``, which
  is then refused as one of its own files.

The target is now looked at first, in one place (``check_target``, the
app's export too): anything but a file is named and left as it is whatever
``--force`` says, and an empty path is a usage error.

- Ctrl+C while the archive was written printed a traceback and left its
  temporary file, a whole copy of everything, beside the target until the
  next export there.  It now says nothing was written, and leaves nothing.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths
from desktop.core.db import open_database
from desktop.core.transfer.archive import NotAnArchiveFile, export_archive
from tests.unit.test_export_cli import _some_data


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_named_pipe_is_named_and_left_as_it_is(
    user_dirs: AppPaths, tmp_path: Path, capsys: pytest.CaptureFixture[str], force: list[str]
) -> None:
    _some_data(user_dirs)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)

    assert main(["export", str(pipe), *force]) == 1

    err = capsys.readouterr().err
    assert f"{pipe} is a named pipe, not a file; it was left as it is." in err
    assert "--force" not in err
    assert stat.S_ISFIFO(pipe.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temporary file left


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_folder_is_named_with_a_file_name_to_give_instead(
    user_dirs: AppPaths, tmp_path: Path, capsys: pytest.CaptureFixture[str], force: list[str]
) -> None:
    _some_data(user_dirs)
    folder = tmp_path / "Backups"
    folder.mkdir()
    (folder / "older.txt").write_text("mine")

    assert main(["export", str(folder), *force]) == 1

    err = capsys.readouterr().err
    assert f"{folder} is a folder, not a file" in err
    assert f"such as {folder / 'reverie.reverie.zip'}" in err
    assert "--force" not in err and "Is a directory" not in err
    assert [p.name for p in folder.iterdir()] == ["older.txt"]


def test_an_empty_path_is_a_usage_error(
    user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    _some_data(user_dirs)
    with pytest.raises(SystemExit) as ended:
        main(["export", ""])

    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert "give the path of the archive to write" in err and "exists already" not in err


def test_reverie_s_own_database_is_refused_without_advising_force(
    user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    _some_data(user_dirs)
    before = user_dirs.database_file.read_bytes()

    assert main(["export", str(user_dirs.database_file)]) == 1

    err = capsys.readouterr().err
    assert "one of Reverie's own files or folders" in err and "--force" not in err
    assert user_dirs.database_file.read_bytes() == before


def test_the_app_s_export_leaves_a_named_pipe_as_it_is(user_dirs: AppPaths, tmp_path: Path) -> None:
    _some_data(user_dirs)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    database = open_database(user_dirs.database_file)
    try:
        with pytest.raises(NotAnArchiveFile):  # the window replaces what it was told to
            export_archive(database, user_dirs, pipe, overwrite=True)
    finally:
        database.close()

    assert stat.S_ISFIFO(pipe.lstat().st_mode)


def test_ctrl_c_while_the_archive_is_written_leaves_nothing_and_says_so(
    user_dirs: AppPaths,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _some_data(user_dirs)
    target = tmp_path / "out" / "all.reverie.zip"
    target.parent.mkdir()

    def interrupted(_descriptor: int) -> None:  # Ctrl+C as the archive reaches the disk
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)

    assert main(["export", str(target)]) == 130

    assert f"Stopped; nothing was written to {target}." in capsys.readouterr().err
    assert list(target.parent.iterdir()) == []  # neither the archive nor its temporary file
