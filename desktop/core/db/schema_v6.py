"""Migration 6: what was erased for good, by id, so every copy can be purged too.

Deleting a memory or a conversation is soft for a while (it can be
restored), then it is erased: its rows, texts, index entries and vectors go
for good (``desktop.core.db.purge``).  The copies of the database taken
before dreams still hold what was erased after they were made, so the ids
are kept here, and nothing else, to purge the same items from every copy,
including one that a crash left half done.  Released: never edit this migration.
"""

from __future__ import annotations

SQL = """
CREATE TABLE erased_items (
    kind TEXT NOT NULL CHECK (kind IN ('memory', 'conversation')),
    item_id INTEGER NOT NULL,
    erased_at REAL NOT NULL,
    PRIMARY KEY (kind, item_id)
) STRICT, WITHOUT ROWID;
"""
