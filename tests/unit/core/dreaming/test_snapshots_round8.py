"""Round 8: the dream's snapshot step took a copy with a journal beside it
for an interrupted copy and removed it (or only its journal) with no age
rule: a copy the secret sweep or an erasure was changing at that moment
lost its journal under the open transaction, and one a kill had left
mid-change was deleted instead of rolled back."""

from __future__ import annotations

from pathlib import Path

from desktop.core.db import ConversationStore, Database, open_copy, open_database
from desktop.core.dreaming.snapshots import complete_snapshots, take_snapshot


def _snapshot(database: Database, folder: Path, day: int) -> Path:
    return take_snapshot(database, folder, f"202601{day:02d}-000000", skills_dir=None, keep=3)


def test_a_copy_being_changed_keeps_its_journal_while_a_dream_takes_its_snapshot(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "snapshots"
    with open_database(tmp_path / "reverie.sqlite3") as live:
        ConversationStore(live).create("kept in the old copy")
        old = _snapshot(live, folder, 1)
        with open_copy(old, live) as copy:
            with copy.transaction() as tx:  # the sweep, on the maintenance thread
                tx.execute("UPDATE conversations SET title = title || ' (swept)'")
                new = _snapshot(live, folder, 2)  # the dream's, meanwhile

                assert Path(f"{old}-journal").exists()
            assert copy.fetch_value("SELECT title FROM conversations") == (
                "kept in the old copy (swept)"
            )

    assert complete_snapshots(folder) == [old, new]
