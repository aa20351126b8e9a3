"""Migration 8: a random identity of each database, to know its own WAL by.

Nothing in a write-ahead log ties it to its database, so a WAL from another
Reverie database (another profile, a sync tool, a restore) that rewrote
every page would be replayed as if it were this one's, replacing everything
in it with the other database (``desktop.core.db.side_files``).  Each
database is given 16 random bytes here, once: a new one when it is created
(every migration runs then), an existing one when it is first opened by
this version.  Nothing ever changes them, so a WAL of the database's own
never does, and one that does is another database's.  A copy (a snapshot)
is another database: it is given identity bytes of its own, so the live
database's WAL is refused beside a restored copy.  Released: never edit
this migration.
"""

from __future__ import annotations

SQL = """
CREATE TABLE database_identity (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    token BLOB NOT NULL CHECK (typeof(token) = 'blob' AND length(token) = 16)
) STRICT;
INSERT INTO database_identity (id, token) VALUES (1, randomblob(16));
"""

IDENTITY_TABLE = "database_identity"
IDENTITY_QUERY = "SELECT token FROM database_identity WHERE id = 1"
"""The database's identity (no row before this migration)."""
RENEWED_IDENTITY = "UPDATE database_identity SET token = randomblob(16) WHERE id = 1"
"""A copy's own identity, made when it is copied."""
