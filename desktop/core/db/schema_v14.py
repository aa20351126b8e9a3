"""Migration 14: what an erasure must leave behind, by id only.

``forgotten_messages``: the messages a memory the user deleted was learned
from, kept unrecalled.
A message a deleted memory was learned from is not recalled into a reply
(``message_search``): recalled, it would tell the model what the user asked
it to forget.  While the memory waits out its restore window its sources say
so; once it is erased for good they are gone with it, so the erasure
(``desktop.core.db.purge``) marks its messages here first, by id and nothing
else.  A mark goes with its message (a conversation erased later).

``erased_imports``: where an imported conversation erased for good came
from (``schema_v13``): importing the same export again leaves it out, as
the user would expect of what they erased.  Released: never edit this
migration.
"""

from __future__ import annotations

SQL = """
CREATE TABLE forgotten_messages (
    message_id INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE
) STRICT;
CREATE TABLE erased_imports (
    imported_from TEXT NOT NULL,
    external_id TEXT NOT NULL,
    PRIMARY KEY (imported_from, external_id)
) STRICT, WITHOUT ROWID;
"""
