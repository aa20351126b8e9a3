"""Migration 8: each database gets a random identity, once, so that the
stray-WAL check can tell the database's own WAL from another Reverie
database's (see ``test_side_files_round6``)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, open_database
from desktop.core.db.errors import QueryFailed
from desktop.core.db.migrations import MIGRATIONS, applied_versions
from desktop.core.db.schema_v8 import IDENTITY_QUERY

_BEFORE_V8 = tuple(m for m in MIGRATIONS if m.version < 8)


def _identity(path: Path) -> bytes:
    with open_database(path) as database:
        token = database.fetch_value(IDENTITY_QUERY)
    assert isinstance(token, bytes)
    return token


def test_each_new_database_gets_an_identity_of_its_own(tmp_path: Path) -> None:
    first, second = tmp_path / "a.sqlite3", tmp_path / "b.sqlite3"

    one, other = _identity(first), _identity(second)

    assert len(one) == len(other) == 16
    assert one != other
    assert _identity(first) == one, "reopening keeps it"


def test_a_version_7_database_gets_an_identity_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    with open_database(path, migrations=_BEFORE_V8) as old:
        assert max(applied_versions(old)) == 7
        ConversationStore(old).create("from before version 8")

    with open_database(path) as database:
        assert 8 in applied_versions(database)
        titles = [c.title for c in ConversationStore(database).list()]
        token = database.fetch_value(IDENTITY_QUERY)

    assert titles == ["from before version 8"]
    assert isinstance(token, bytes) and len(token) == 16
    assert _identity(path) == token


def test_the_identity_table_holds_one_token_of_16_bytes(tmp_path: Path) -> None:
    with open_database(tmp_path / "reverie.sqlite3") as database, database.transaction() as tx:
        for statement in (
            "INSERT INTO database_identity (id, token) VALUES (2, randomblob(16))",
            "UPDATE database_identity SET token = randomblob(8)",
            "UPDATE database_identity SET token = 'sixteen letters!'",
        ):
            with pytest.raises(QueryFailed):
                tx.execute(statement)


def test_a_crash_right_after_migration_8_keeps_the_identity_its_wal_wrote(
    tmp_path: Path,
) -> None:
    # The file alone has no identity yet, only its WAL does: the check falls
    # back to soundness and the WAL, the database's own, is replayed.
    path = tmp_path / "reverie.sqlite3"
    with open_database(path, migrations=_BEFORE_V8) as old:
        ConversationStore(old).create("kept")
    with open_database(path) as database:
        token = database.fetch_value(IDENTITY_QUERY)
        shutil.copy(f"{path}-wal", tmp_path / "crash.wal")
        shutil.copy(path, tmp_path / "crash.sqlite3")
    shutil.copy(tmp_path / "crash.sqlite3", path)
    shutil.copy(tmp_path / "crash.wal", f"{path}-wal")
    alone = sqlite3.connect(f"{path.as_uri()}?immutable=1", uri=True)
    try:
        assert alone.execute(
            "SELECT count(*) FROM sqlite_schema WHERE name = 'database_identity'"
        ).fetchone() == (0,)
    finally:
        alone.close()

    assert _identity(path) == token
