"""Killing the safety copy (SIGKILL) at any moment never leaves a copy that counts
but is not whole, and the next copy clears what the killed one left.

A child process (``snapshot_child``) copies a database of a few megabytes in a
loop; the test kills it a random moment after it starts, many times over the
same snapshots folder, then opens every copy that counts.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop.core.db import open_database
from desktop.core.dreaming.snapshots import complete_snapshots, rotate

ROOT = Path(__file__).resolve().parents[4]
KILLS = 10


def _child(database: Path, folder: Path, first: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.unit.core.dreaming.snapshot_child",
            str(database),
            str(folder),
            str(first),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.slow
def test_a_copy_killed_anywhere_never_counts_and_is_cleared_next_time(tmp_path: Path) -> None:
    database_path = tmp_path / "reverie.sqlite3"
    with open_database(database_path) as database, database.transaction() as tx:
        tx.execute("CREATE TABLE notes (text TEXT)")
        for n in range(3000):
            tx.execute("INSERT INTO notes VALUES (?)", (f"note {n} " + "words " * 200,))
    (tmp_path / "skills").mkdir()
    (tmp_path / "skills" / "brew-tea.md").write_text("Brew the user's tea\n")
    folder = tmp_path / "snapshots"
    chance = random.Random(20261124)
    cut_short = 0
    for attempt in range(KILLS):
        child = _child(database_path, folder, attempt * 1000)
        assert child.stdout is not None
        assert child.stdout.readline().startswith("copied")  # started: now kill it
        time.sleep(chance.uniform(0.0, 0.3))
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        child.stdout.close()
        cut_short += any(p.name.startswith(".") for p in folder.iterdir())

        for copy in complete_snapshots(folder):
            with open_database(copy) as snapshot:
                assert snapshot.fetch_value("PRAGMA integrity_check") == "ok", copy.name
                assert snapshot.fetch_value("SELECT count(*) FROM notes") == 3000
            assert (copy.with_suffix(".skills") / "brew-tea.md").is_file()

    rotate(folder, 3)
    kept = complete_snapshots(folder)
    assert cut_short >= KILLS // 3  # many kills landed in the middle of a copy
    assert 0 < len(kept) <= 3
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted([p.name for p in kept] + [p.with_suffix(".skills").name for p in kept])
