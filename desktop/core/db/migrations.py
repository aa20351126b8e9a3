"""Schema migrations: an append-only list, each applied in one transaction with its record.

The pattern of sqlite-utils' and llm's migrations: a migration is a numbered
SQL script or function; ``schema_migrations`` records the ones applied.  A
migration's changes and its record commit together or not at all, so a
crash or a failing statement leaves the previous schema intact.  Released
migrations are never edited; a schema change is a new entry at the end.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop.core.db import (
    schema_v1,
    schema_v2,
    schema_v3,
    schema_v4,
    schema_v5,
    schema_v6,
    schema_v7,
    schema_v8,
    schema_v9,
    schema_v10,
    schema_v11,
    schema_v12,
    schema_v13,
    schema_v14,
    schema_v15,
    schema_v16,
    schema_v17,
)
from desktop.core.db.errors import MigrationFailed, QueryFailed, too_new, unavailable

if TYPE_CHECKING:  # connection.py imports this module to run the migrations
    from desktop.core.db.connection import Database, Transaction


@dataclass(frozen=True)
class Migration:
    """Schema version *version*: an SQL script, or a function given the open transaction."""

    version: int
    name: str
    apply: str | Callable[[Transaction], None]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema", schema_v1.SQL),
    Migration(2, "dream changes, log and pass marks", schema_v2.SQL),
    Migration(3, "vectors with sign bits for a fast search by meaning", schema_v3.SQL),
    Migration(4, "vectors of any embedding model, searched by model", schema_v4.SQL),
    Migration(5, "harvest retries and the parts it gave up on", schema_v5.SQL),
    Migration(6, "the ids of what was erased for good", schema_v6.SQL),
    Migration(7, "which messages were checked for secrets", schema_v7.SQL),
    Migration(8, "a random identity of the database, to know its own WAL by", schema_v8.SQL),
    Migration(9, "when a completed task was opened again", schema_v9.SQL),
    Migration(10, "background workers, their dependencies and transcripts", schema_v10.SQL),
    Migration(11, "the user's message a worker was asked for in", schema_v11.SQL),
    Migration(12, "vectors of messages, to recall past conversations", schema_v12.SQL),
    Migration(13, "where an imported conversation came from", schema_v13.SQL),
    Migration(14, "what an erasure leaves: messages unrecalled, imports erased", schema_v14.SQL),
    Migration(15, "tasks and skills erased for good are recorded too", schema_v15.SQL),
    Migration(16, "full-text indexes that read unspaced scripts word by word", schema_v16.SQL),
    Migration(17, "full-text indexes that keep the marks on a word's letters", schema_v17.SQL),
)

_CREATE_RECORD_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at REAL NOT NULL
) STRICT
"""


def latest_version(migrations: Sequence[Migration] = MIGRATIONS) -> int:
    return max((migration.version for migration in migrations), default=0)


def _has_table(database: Database, name: str) -> bool:
    found = database.fetch_value(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    )
    return bool(found)


def applied_versions(database: Database) -> set[int]:
    """The versions recorded in the database (empty for a blank one)."""
    if not _has_table(database, "schema_migrations"):
        return set()
    rows = database.fetch_all("SELECT version FROM schema_migrations")
    return {int(row[0]) for row in rows}


def check_openable(database: Database, migrations: Sequence[Migration] = MIGRATIONS) -> None:
    """Refuse, without writing, a file that is not Reverie's or is newer than *migrations*.

    This is also the first read of the file, so a file that is not a
    database at all fails here, as DatabaseUnavailable.
    """
    application_id = int(database.pragma("application_id"))
    has_tables = bool(database.fetch_value("SELECT count(*) FROM sqlite_master"))
    foreign = application_id not in (0, schema_v1.APPLICATION_ID) or (
        has_tables and not _has_table(database, "schema_migrations")
    )
    if foreign:
        raise unavailable(database.path, "it is another application's database")
    _check_not_too_new(database, applied_versions(database), migrations)


def _check_not_too_new(
    database: Database, applied: set[int], migrations: Sequence[Migration]
) -> None:
    found = max(applied, default=0)
    known = latest_version(migrations)
    if found > known:
        raise too_new(database.path, found, known)


def _validate(migrations: Sequence[Migration]) -> None:
    versions = [migration.version for migration in migrations]
    if versions != sorted(set(versions)) or (versions and versions[0] < 1):
        raise ValueError(f"migration versions must be unique, positive, ascending: {versions}")


def _apply_one(transaction: Transaction, migration: Migration, now: float) -> None:
    transaction.execute(_CREATE_RECORD_TABLE)
    if callable(migration.apply):
        migration.apply(transaction)
    else:
        transaction.execute_script(migration.apply)
    transaction.execute(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
        (migration.version, migration.name, now),
    )


def migrate(
    database: Database,
    migrations: Sequence[Migration] = MIGRATIONS,
    *,
    clock: Callable[[], float] = time.time,
) -> list[int]:
    """Apply the migrations *database* lacks, in order; return the versions applied."""
    _validate(migrations)
    applied = applied_versions(database)
    _check_not_too_new(database, applied, migrations)
    done: list[int] = []
    for migration in migrations:
        if migration.version in applied:
            continue
        with database.transaction() as transaction:
            # Another process may have applied it since we looked; ask again
            # now that we hold the write lock.
            if migration.version in applied_versions(database):
                continue
            try:
                _apply_one(transaction, migration, clock())
            # A disk or lock problem stays what it is (the user can fix it);
            # a rejected statement is a broken migration.
            except (QueryFailed, ValueError) as exc:
                raise MigrationFailed(
                    f"Migration {migration.version} ({migration.name}) failed on "
                    f"{database.path}; none of it was applied: {exc}"
                ) from exc
        done.append(migration.version)
    return done
