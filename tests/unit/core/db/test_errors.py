"""Tests of desktop.core.db.errors: SQLite errors become typed, helpful errors."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import NamedTuple

import pytest

from desktop.core.base.errors import EnvironmentProblem, ReverieError
from desktop.core.db import open_database
from desktop.core.db.errors import (
    DatabaseBusy,
    DatabaseTooNew,
    DatabaseUnavailable,
    DiskFull,
    QueryFailed,
    too_new,
    translate,
    unavailable,
)

PATH = Path("/home/someone/reverie.sqlite3")


class _CodedError(Exception):
    """Like a driver error from Python >= 3.11: carries SQLite's result code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.sqlite_errorcode = code


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (13, DiskFull),
        (5, DatabaseBusy),
        (6, DatabaseBusy),
        (11, DatabaseUnavailable),
        (26, DatabaseUnavailable),
        (14, DatabaseUnavailable),
        (3, DatabaseUnavailable),
        (8, DatabaseUnavailable),
        (266, DatabaseUnavailable),  # SQLITE_IOERR_READ, an extended code
        (1, QueryFailed),
        (19, QueryFailed),  # a constraint failed: a bug, not the user's problem
    ],
)
def test_result_codes_map_to_typed_errors(code: int, expected: type[ReverieError]) -> None:
    assert type(translate(_CodedError("boom", code), PATH)) is expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("database or disk is full", DiskFull),
        ("file is not a database", DatabaseUnavailable),
        ("database disk image is malformed", DatabaseUnavailable),
        ("unable to open database file", DatabaseUnavailable),
        ("database is locked", DatabaseBusy),
        ("no such table: nope", QueryFailed),
    ],
)
def test_drivers_without_result_codes_are_translated_by_message(
    message: str, expected: type[ReverieError]
) -> None:
    assert type(translate(Exception(message), PATH)) is expected


def test_user_fixable_errors_are_environment_problems_and_bugs_are_not() -> None:
    for error in (DiskFull, DatabaseBusy, DatabaseUnavailable, DatabaseTooNew):
        assert issubclass(error, EnvironmentProblem)
    assert not issubclass(QueryFailed, EnvironmentProblem)


def test_disk_full_says_the_write_was_not_saved_and_nothing_was_lost() -> None:
    message = str(translate(_CodedError("database or disk is full", 13), PATH))

    assert str(PATH) in message
    assert "not saved" in message
    assert "nothing already saved was lost" in message
    assert "Free some disk space" in message


def test_an_unusable_file_is_named_and_left_unchanged() -> None:
    message = str(unavailable(PATH, "the file is not a database"))

    assert str(PATH) in message
    assert "Nothing was changed" in message
    assert "backup" in message


def test_too_new_names_both_versions() -> None:
    message = str(too_new(PATH, found=7, known=3))

    assert "schema version 7" in message
    assert "up to 3" in message
    assert "nothing was changed" in message
    assert "Update Reverie" in message


def test_a_database_path_that_is_a_folder_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "reverie.sqlite3"
    folder.mkdir()

    error = translate(_CodedError("unable to open database file", 14), folder)

    assert isinstance(error, DatabaseUnavailable)
    assert f"{folder} is a folder, not a database file" in str(error)
    assert "unable to open" not in str(error)


def test_opening_a_folder_as_the_database_says_it_is_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "reverie.sqlite3"
    folder.mkdir()

    with pytest.raises(DatabaseUnavailable, match="is a folder, not a database file"):
        open_database(folder)
    assert list(folder.iterdir()) == []


def test_a_disk_error_on_a_named_pipe_at_the_database_names_the_pipe(tmp_path: Path) -> None:
    # SQLite reads a named pipe as a failing disk: the user was told to check it.
    pipe = tmp_path / "reverie.sqlite3"
    os.mkfifo(pipe)

    error = translate(_CodedError("disk I/O error", 10), pipe)

    assert isinstance(error, DatabaseUnavailable)
    assert f"{pipe} is a named pipe, not a database file" in str(error)
    assert "I/O error" not in str(error)


class _Usage(NamedTuple):
    total: int
    used: int
    free: int


def _free_bytes(monkeypatch: pytest.MonkeyPatch, free: int) -> None:
    monkeypatch.setattr(shutil, "disk_usage", lambda _folder: _Usage(10**9, 10**9 - free, free))


@pytest.mark.parametrize("code", [10, 4874, 14], ids=["IOERR", "IOERR_SHMSIZE", "CANTOPEN"])
def test_an_io_error_on_a_full_disk_says_the_disk_is_full_not_damaged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    # SQLite reports a WAL index it cannot grow as an I/O error: a database
    # closed cleanly, started on a full disk, was called possibly damaged
    # and the user told to move it aside (round 14).
    _free_bytes(monkeypatch, 0)
    database = tmp_path / "reverie.sqlite3"

    error = translate(_CodedError("disk I/O error", code), database)

    assert isinstance(error, DiskFull)
    said = str(error)
    assert f"The disk holding {database} is full (0 B free in {tmp_path})" in said
    assert "not damaged" in said
    assert "aside" not in said and "backup" not in said
    assert "Free some disk space" in said


def test_an_io_error_with_room_on_the_disk_stays_an_io_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _free_bytes(monkeypatch, 5 * 10**9)

    error = translate(_CodedError("disk I/O error", 10), tmp_path / "reverie.sqlite3")

    assert isinstance(error, DatabaseUnavailable)
    assert "reading or writing the disk failed" in str(error)


def test_a_full_disk_names_the_folder_and_what_is_free_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _free_bytes(monkeypatch, 12_000)

    said = str(translate(_CodedError("database or disk is full", 13), tmp_path / "r.sqlite3"))

    assert f"(12 KB free in {tmp_path})" in said
