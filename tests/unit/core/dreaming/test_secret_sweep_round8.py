"""Round 8: a kill while a snapshot is changed in place (the secret sweep's
or an erasure's transaction on the copy) leaves a journal beside it.  The
copy was then no longer counted as complete: never swept again, and removed
as a leftover by the next erasure, so a safety copy was lost and nothing
said so.  SQLite rolls such a journal back when the copy is next read."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from desktop.core.db import ConversationStore, MemoryStore, open_database
from desktop.core.db.migrations import MIGRATIONS
from desktop.core.dreaming.erasure import Eraser
from desktop.core.dreaming.secret_sweep import sweep_snapshots
from desktop.core.dreaming.snapshots import complete_snapshots, take_snapshot
from tests.damage import KILLED_MID_CHANGE
from tests.unit.core.dreaming.test_secret_sweep import SECRET, _old_database

_HOT = bytes.fromhex("d9d505f920a163d7")
"""How a rollback journal SQLite plays back starts."""


def _cut_snapshot(tmp_path: Path) -> Path:
    """A snapshot an older version took, holding a secret, whose change in
    place was killed before its commit."""
    old = tmp_path / "old.sqlite3"
    _old_database(old, messages=800)
    with open_database(old, migrations=MIGRATIONS[:6]) as database:
        taken = take_snapshot(
            database, tmp_path / "snapshots", "20260101-000000", skills_dir=None, keep=3
        )
    killed = subprocess.run([sys.executable, "-c", KILLED_MID_CHANGE, str(taken)], check=False)
    assert killed.returncode == -signal.SIGKILL
    journal = Path(f"{taken}-journal")
    assert journal.read_bytes()[:8] == _HOT, "a journal SQLite would roll back"
    return taken


def test_a_snapshot_cut_mid_change_is_rolled_back_and_swept(tmp_path: Path) -> None:
    cut = _cut_snapshot(tmp_path)

    with open_database(tmp_path / "reverie.sqlite3") as database:
        assert sweep_snapshots(database, cut.parent) == 1

    assert not Path(f"{cut}-journal").exists()
    assert complete_snapshots(cut.parent) == [cut]
    assert SECRET.encode() not in cut.read_bytes()


def test_a_snapshot_cut_mid_change_is_kept_by_the_next_erasure(tmp_path: Path) -> None:
    cut = _cut_snapshot(tmp_path)
    long_ago = time.time() - 3600  # older than any copy a dream could be writing
    for path in cut.parent.iterdir():
        os.utime(path, (long_ago, long_ago))

    with open_database(tmp_path / "reverie.sqlite3") as database:
        Eraser(
            database,
            MemoryStore(database),
            snapshots_dir=cut.parent,
            working_set_file=tmp_path / "MEMORIES.md",
            working_set_size=lambda: 50,
            kept_days=lambda: 30,
        ).erase_expired()

    assert complete_snapshots(cut.parent) == [cut]
    with open_database(cut) as copy:  # whole, as a restore would open it
        assert len(ConversationStore(copy).messages(1)) == 801
