"""Migration 15: tasks and skills erased for good are recorded too.

A deleted task or skill waits out the restore window as a memory does,
then is erased (``desktop.core.db.purge``): its row, and its text where a
dream quoted it.  The copies of the database taken before dreams hold it
as they were made, so its id joins the others in ``erased_items``
(schema_v6), whose kinds were memories and conversations only: the table
is made again with the two new kinds, its rows kept.  Released: never edit
this migration.
"""

from __future__ import annotations

SQL = """
CREATE TABLE erased_items_v15 (
    kind TEXT NOT NULL CHECK (kind IN ('memory', 'conversation', 'task', 'skill')),
    item_id INTEGER NOT NULL,
    erased_at REAL NOT NULL,
    PRIMARY KEY (kind, item_id)
) STRICT, WITHOUT ROWID;
INSERT INTO erased_items_v15 (kind, item_id, erased_at)
    SELECT kind, item_id, erased_at FROM erased_items;
DROP TABLE erased_items;
ALTER TABLE erased_items_v15 RENAME TO erased_items;
"""
