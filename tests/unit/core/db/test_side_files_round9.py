"""Round 9's attacks on a snapshot put back by hand beside the live WAL.

The identity check (``schema_v8``) compares the identity seen through the
WAL with the file's own, but a snapshot put back once and used as the live
database kept the snapshot's identity, so the same snapshot put back again
shared it with the live WAL; and a snapshot an older version took has no
identity at all, so it was judged by soundness alone.  Either way the
newer live database was replayed over the restored copy.  A snapshot's
header still says rollback journal (SQLite never ran it in WAL mode), so
it has no WAL of its own: one beside it is refused.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.db.errors import DatabaseUnavailable
from desktop.core.db.migrations import MIGRATIONS
from desktop.core.dreaming.snapshots import take_snapshot

V7 = tuple(m for m in MIGRATIONS if m.version <= 7)


def _snapshot(database: Database, home: Path) -> Path:
    return take_snapshot(database, home / "snapshots", "20260101-000000", skills_dir=None, keep=3)


def _compaction_killed_before_its_checkpoint(live: Path, title: str) -> None:
    """A later session writes *title*, then VACUUMs (every page in the WAL)
    and is killed before the checkpoint: the file and its WAL as left."""
    with open_database(live) as database:
        ConversationStore(database).create(title)
        database._execute("VACUUM", ())
        killed = live.read_bytes(), Path(f"{live}-wal").read_bytes()
    live.write_bytes(killed[0])
    Path(f"{live}-wal").write_bytes(killed[1])


def _put_back(snapshot: Path, live: Path) -> None:
    shutil.copy(snapshot, live)


def test_the_same_snapshot_put_back_twice_refuses_the_live_wal(tmp_path: Path) -> None:
    live = tmp_path / "reverie.sqlite3"
    with open_database(live) as database:
        ConversationStore(database).create("in the snapshot")
        snapshot = _snapshot(database, tmp_path)
    _put_back(snapshot, live)  # as the README says: closed, no -wal left
    _compaction_killed_before_its_checkpoint(live, "written after the first put-back")
    _put_back(snapshot, live)
    restored = live.read_bytes()

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(live).close()

    assert f"{live}-wal" in str(refused.value)
    assert live.read_bytes() == restored


def test_a_snapshot_an_older_version_took_refuses_the_live_wal(tmp_path: Path) -> None:
    live = tmp_path / "reverie.sqlite3"
    with open_database(live, migrations=V7) as database:
        ConversationStore(database).create("in the old snapshot")
        snapshot = _snapshot(database, tmp_path)
    _compaction_killed_before_its_checkpoint(live, "written by this version")
    _put_back(snapshot, live)
    restored = live.read_bytes()

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(live).close()

    assert f"{live}-wal" in str(refused.value)
    assert live.read_bytes() == restored


def test_a_snapshot_put_back_without_a_wal_opens_and_keeps_its_own_wal_after(
    tmp_path: Path,
) -> None:
    # The rule must not refuse the put-back itself, nor the restored
    # database's own WAL once it is the live one (a kill before a checkpoint).
    live = tmp_path / "reverie.sqlite3"
    with open_database(live) as database:
        ConversationStore(database).create("in the snapshot")
        snapshot = _snapshot(database, tmp_path)
    _put_back(snapshot, live)
    _compaction_killed_before_its_checkpoint(live, "written after the put-back")

    with open_database(live) as database:
        titles = sorted(c.title for c in ConversationStore(database).list())

    assert titles == ["in the snapshot", "written after the put-back"]


def test_an_old_database_migrated_and_killed_before_its_checkpoint_opens(
    tmp_path: Path,
) -> None:
    # Migration 8 gives the identity in the WAL only: the file alone has none.
    live = tmp_path / "reverie.sqlite3"
    with open_database(live, migrations=V7) as database:
        ConversationStore(database).create("kept by the older version")
    with open_database(live) as database:
        ConversationStore(database).create("written by this version")
        killed = live.read_bytes(), Path(f"{live}-wal").read_bytes()
    live.write_bytes(killed[0])
    Path(f"{live}-wal").write_bytes(killed[1])

    with open_database(live) as database:
        titles = sorted(c.title for c in ConversationStore(database).list())

    assert titles == ["kept by the older version", "written by this version"]
