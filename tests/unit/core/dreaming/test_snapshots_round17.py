"""Round 17: copies were ordered by their UTC stamp, so after the clock ran a
year ahead and was set right, the copies taken in the future counted as the
newest, and each later dream rotated out the copy of the dream before it.
Copies are now numbered in the order taken, whatever the clock said."""

from __future__ import annotations

from pathlib import Path

from desktop.core.db import Database
from desktop.core.dreaming.snapshots import complete_snapshots, snapshot_stamp, take_snapshot

DAY = 86_400.0
NOW = 1_795_000_000.0  # late 2026


def test_copies_taken_while_the_clock_ran_ahead_are_rotated_out_first(
    database: Database, tmp_path: Path
) -> None:
    folder = tmp_path / "snapshots"
    taken = [
        take_snapshot(database, folder, snapshot_stamp(when), skills_dir=None, keep=3)
        for when in (NOW + 365 * DAY, NOW + 366 * DAY, NOW, NOW + DAY)  # then set right
    ]

    assert complete_snapshots(folder) == taken[1:]  # the last 3 taken


def test_an_older_version_s_copies_count_as_taken_before_numbered_ones(
    database: Database, tmp_path: Path
) -> None:
    folder = tmp_path / "snapshots"
    local = folder / "before-dream-20271125-230000.sqlite3"  # local time, older still
    utc = folder / "before-dream-20271128T150000Z.sqlite3"
    first = take_snapshot(database, folder, snapshot_stamp(NOW), skills_dir=None, keep=5)
    database.snapshot_to(local)
    database.snapshot_to(utc)

    newest = take_snapshot(database, folder, snapshot_stamp(NOW), skills_dir=None, keep=5)

    assert complete_snapshots(folder) == [local, utc, first, newest]
    assert "20261" in newest.name  # the stamp stays in the name, for the user


def test_the_millionth_copy_still_counts_as_the_newest(database: Database, tmp_path: Path) -> None:
    """Round 18: a seven-digit number was read back as no number at all, so
    the copy after 999999 ranked oldest and the next dream rotated it out."""
    folder = tmp_path / "snapshots"
    folder.mkdir()
    last = folder / f"before-dream-999999-{snapshot_stamp(NOW)}.sqlite3"
    database.snapshot_to(last)

    taken = [
        take_snapshot(database, folder, snapshot_stamp(NOW + n), skills_dir=None, keep=3)
        for n in range(1, 4)
    ]

    assert [path.name.split("-")[2] for path in taken] == ["1000000", "1000001", "1000002"]
    assert complete_snapshots(folder) == taken
