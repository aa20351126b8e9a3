"""Round 36: the first start on a database of an older Reverie, killed
(SIGKILL) anywhere in its migrations, a kill point no harness had.  The
next start must finish them: every conversation, message and memory of the
old file there once, the schema the latest, the file sound (SQLite's
integrity and foreign key checks, the full-text index's own check)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from desktop.core.db import (
    MIGRATIONS,
    Database,
    content_hash,
    integrity_check,
    latest_version,
    open_database,
)
from desktop.core.db.migrations import applied_versions
from tests.children import heard, killed_in_copy, run_child

CHILD = "tests.unit.core.db.migration_kill_child"
KILLS = 24
OLD = 1
"""The schema the old file was left at: every later migration runs."""


def _old_database(path: Path) -> None:
    """A database at schema version *OLD* with two conversations of ten
    messages and five memories, written as that version's tables hold them."""
    with open_database(path, migrations=MIGRATIONS[:OLD]) as database, database.transaction() as tx:
        for c in range(2):
            tx.execute(
                "INSERT INTO conversations (title, created_at, updated_at) VALUES (?, 1, 1)",
                (f"Garden {c}",),
            )
            for n in range(10):
                tx.execute(
                    "INSERT INTO messages (conversation_id, role, content, created_at)"
                    " VALUES (?, 'user', ?, ?)",
                    (c + 1, f"The tulips, day {n} of talk {c}.", n),
                )
        for n in range(5):
            content = f"The user grows tulip kind {n}."
            tx.execute(
                "INSERT INTO memories (content, content_hash, source_kind, created_at,"
                " last_seen_at, valid_from, updated_at) VALUES (?, ?, 'user_explicit', 1, 1, 1, 1)",
                (content, content_hash(content)),
            )


def _held(database: Database) -> tuple[object, ...]:
    return (
        sorted(r[0] for r in database.fetch_all("SELECT title FROM conversations")),
        sorted(r[0] for r in database.fetch_all("SELECT content FROM messages")),
        sorted(r[0] for r in database.fetch_all("SELECT content FROM memories")),
    )


def _problems(database: Database, before: tuple[object, ...]) -> list[str]:
    found = [f"integrity: {f}" for f in integrity_check(database)]
    found += [f"foreign key: {tuple(r)}" for r in database.fetch_all("PRAGMA foreign_key_check")]
    tables = database.fetch_all(
        "SELECT name FROM sqlite_schema WHERE sql LIKE 'CREATE VIRTUAL TABLE % USING fts5%'"
    )
    for (name,) in tables:
        try:
            database._execute(f"INSERT INTO {name} ({name}) VALUES ('integrity-check')", ())
        except Exception as error:  # the check's own finding
            found.append(f"{name}: {error}")
    if applied_versions(database) != set(range(1, latest_version() + 1)):
        found.append(f"versions {sorted(applied_versions(database))}")
    if _held(database) != before:
        found.append("what the old file held changed")
    return found


@pytest.mark.slow
def test_a_first_start_killed_in_its_migrations_is_finished_by_the_next(tmp_path: Path) -> None:
    base = tmp_path / "old.sqlite3"
    _old_database(base)
    with open_database(base, migrations=MIGRATIONS[:OLD]) as database:
        before = _held(database)
    counted = run_child(CHILD, shutil.copy(base, tmp_path / "counted.sqlite3"), "0")
    assert counted.returncode == 0, counted.stderr
    counts = heard(counted.stdout)
    chance = random.Random(3646)
    points = [str(p) for p in chance.sample(counts.inside, KILLS // 2)]
    points += [f"{c}+" for c in chance.sample(counts.commits, KILLS - len(points))]

    wrong = []
    for kill_at in points:
        copy = tmp_path / f"kill-{kill_at}" / "reverie.sqlite3"
        killed_in_copy(base, copy, CHILD, kill_at=kill_at)
        with open_database(copy) as database:
            wrong += [
                f"killed at {kill_at} of {counts.count}: {p}" for p in _problems(database, before)
            ]
            notes = database.opening_notes
        wrong += [f"killed at {kill_at}: said {note}" for note in notes]

    assert wrong == []
