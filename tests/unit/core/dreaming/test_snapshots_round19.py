"""Round 19: snapshots were judged by SQLite's quick check, which passes an
index whose entries no longer match their rows: such a copy was named "the
newest sound copy" (going back to it gave a file called damaged again), and
its purge failed at every erasure, leaving erased text in it."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.core.db import Database, open_database
from desktop.core.db.errors import translate
from desktop.core.dreaming.snapshots import damage_report, damaged, take_snapshot
from tests.damage import KILLED_MID_CHANGE, filled, unmatch_an_index


def test_a_copy_whose_index_no_longer_matches_is_damaged_and_never_the_way_back(
    tmp_path: Path,
) -> None:
    live, snapshots = tmp_path / "reverie.sqlite3", tmp_path / "snapshots"
    filled(live)
    with open_database(live) as database:
        older = take_snapshot(database, snapshots, "20261120T010000Z", skills_dir=None, keep=3)
        newer = take_snapshot(database, snapshots, "20261121T010000Z", skills_dir=None, keep=3)
    unmatch_an_index(newer)
    unmatch_an_index(live)

    with open_database(live) as database:
        assert damaged(newer, database) and not damaged(older, database)
        report = damage_report(database, snapshots)
    assert report is not None
    assert f"The newest sound copy is {older}" in report


def test_a_file_the_disk_fails_to_read_through_is_reported_with_the_way_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A bad sector reads as EIO (SQLITE_IOERR_READ), not as damage: the check
    # raised, and the app stayed "still checking" all session.
    live, snapshots = tmp_path / "reverie.sqlite3", tmp_path / "snapshots"
    filled(live)
    with open_database(live) as database:
        copy = take_snapshot(database, snapshots, "20261120T010000Z", skills_dir=None, keep=3)

        def unreadable(self: Database) -> list[str]:
            error = sqlite3.OperationalError("disk I/O error")  # what a driver raises
            raise translate(error, self.path) from error

        monkeypatch.setattr(Database, "damage", unreadable)
        report = damage_report(database, snapshots)
    assert report is not None
    assert "could not be read to the end to check it" in report
    assert f"The newest sound copy is {copy}" in report


def test_a_copy_a_kill_left_mid_purge_is_rolled_back_and_is_the_way_back(
    tmp_path: Path,
) -> None:
    # The way back looked only at complete copies, and one with a journal
    # beside it is none until rolled back; on a damaged file the start
    # skips the erasure and the sweeps that would roll it back.
    live, snapshots = tmp_path / "reverie.sqlite3", tmp_path / "snapshots"
    filled(live)
    with open_database(live) as database:
        copy = take_snapshot(database, snapshots, "20261120T010000Z", skills_dir=None, keep=3)
    killed = subprocess.run([sys.executable, "-c", KILLED_MID_CHANGE, str(copy)], check=False)
    assert killed.returncode == -signal.SIGKILL and Path(f"{copy}-journal").exists()
    unmatch_an_index(live)

    with open_database(live) as database:
        report = damage_report(database, snapshots)

    assert report is not None
    assert f"The newest sound copy is {copy}" in report
    assert not Path(f"{copy}-journal").exists()
