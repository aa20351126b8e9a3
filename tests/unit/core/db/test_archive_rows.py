"""Every table and column of the schema either travels in an archive or is
named, with why, as staying behind: a migration cannot add data that an
export silently leaves out."""

from __future__ import annotations

from desktop.core.db import Database
from desktop.core.db.archive_rows import ARCHIVED, NOT_ARCHIVED, TABLES


def test_every_table_and_column_is_archived_or_said_to_stay(database: Database) -> None:
    tables = [
        str(row[0])
        for row in database.fetch_all("SELECT name FROM sqlite_schema WHERE type = 'table'")
    ]
    undecided = []
    for table in tables:
        if "_fts" in table or table in NOT_ARCHIVED:
            continue
        if table not in TABLES:
            undecided.append(table)
            continue
        columns = [str(row[1]) for row in database.fetch_all(f"PRAGMA table_info({table})")]
        archived = set(TABLES[table].columns)
        undecided += [
            f"{table}.{c}"
            for c in columns
            if c not in archived and f"{table}.{c}" not in NOT_ARCHIVED
        ]
    assert undecided == []


def test_archived_tables_come_after_the_tables_they_point_at() -> None:
    seen: set[str] = set()
    for table in ARCHIVED:
        hard = {r.table for r in table.references if not r.soft and r.table != table.name}
        assert hard <= seen, table.name
        seen.add(table.name)
