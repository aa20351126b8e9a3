"""Round 19: snapshots were judged by SQLite's quick check, which passes an
index whose entries no longer match their rows: such a copy was named "the
newest sound copy" (going back to it gave a file called damaged again), and
its purge failed at every erasure, leaving erased text in it."""

from __future__ import annotations

from pathlib import Path

from desktop.core.db import open_database
from desktop.core.dreaming.snapshots import damage_report, damaged, take_snapshot
from tests.damage import filled, unmatch_an_index


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
