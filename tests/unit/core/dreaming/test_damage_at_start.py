"""A database with a damaged page (a bad sector, a page overwritten) used to
start with nothing said: the first message failed as "damaged", after the
start's erasure had written to the file (round 16, noticed).  The start
now runs SQLite's integrity check and says what is wrong and the way back to
the newest sound copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.db import is_damage, open_database, quick_check
from desktop.core.dreaming.snapshots import damage_report, take_snapshot, unopenable_report
from tests.damage import filled, garble_an_index, garble_the_schema, unmatch_an_index


def test_a_sound_database_has_nothing_to_report(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    filled(path)
    with open_database(path) as database:
        assert database.damage() == []
        assert damage_report(database, tmp_path / "snapshots") is None


def test_a_damaged_database_names_the_newest_sound_copy_and_how_to_go_back(
    tmp_path: Path,
) -> None:
    path, folder = tmp_path / "reverie.sqlite3", tmp_path / "snapshots"
    filled(path)
    with open_database(path) as database:
        older = take_snapshot(database, folder, "20261120T010000Z", skills_dir=None, keep=3)
        newer = take_snapshot(database, folder, "20261127T010000Z", skills_dir=None, keep=3)
    broken = bytearray(newer.read_bytes())  # the newest copy is damaged too: skipped
    broken[100:] = b"\xff" * (len(broken) - 100)
    newer.write_bytes(bytes(broken))
    garble_an_index(path)

    with open_database(path) as database:  # opening reads no index page
        assert database.damage()  # SQLite's own findings
        report = damage_report(database, folder)

    assert report is not None
    assert f"{path} is damaged" in report
    assert str(older) in report and str(newer) not in report
    assert "taken before the dream of 2026-11-20 01:00 UTC" in report
    assert "reverie.sqlite3 and its -wal and -shm files" in report


def test_without_a_sound_copy_the_report_says_what_still_saves_the_readable_part(
    tmp_path: Path,
) -> None:
    path = tmp_path / "reverie.sqlite3"
    filled(path)
    garble_an_index(path)
    with open_database(path) as database:  # opening reads no index page
        report = damage_report(database, tmp_path / "snapshots")  # no folder at all
    assert report is not None and "no sound copy" in report and ".recover" in report


def test_an_index_whose_entries_no_longer_match_their_rows_is_damage(tmp_path: Path) -> None:
    # Round 18: the quick check passed it, and every write to those rows failed.
    path = tmp_path / "reverie.sqlite3"
    filled(path)
    unmatch_an_index(path)
    with open_database(path) as database:
        assert quick_check(database) == []  # what the start used to ask
        report = damage_report(database, tmp_path / "snapshots")
    assert report is not None and "missing from index messages_by_conversation" in report


def test_a_database_too_damaged_to_open_names_the_newest_sound_copy_too(tmp_path: Path) -> None:
    # Round 18: the one case with no copy named, and the advice was to start anew.
    path, folder = tmp_path / "reverie.sqlite3", tmp_path / "snapshots"
    filled(path)
    with open_database(path) as database:
        copy = take_snapshot(database, folder, "20261120T010000Z", skills_dir=None, keep=3)
    garble_the_schema(path)
    with pytest.raises(EnvironmentProblem) as raised:
        open_database(path)
    assert is_damage(raised.value)

    report = unopenable_report(path, raised.value, folder)

    assert f"{path} is damaged and does not open" in report
    assert f"The newest sound copy is {copy}" in report
    assert "reverie.sqlite3 and its -wal and -shm files" in report
    assert "starts a new one" not in report
