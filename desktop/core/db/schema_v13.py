"""Migration 13: conversations brought in from elsewhere, and where from.

A conversation imported from another assistant's export (or from a Reverie
archive made elsewhere) names its source in ``imported_from`` and its id
there in ``external_id``; Reverie's own conversations leave both NULL.  The
pair is unique, so importing the same file twice adds nothing: the second
import finds each conversation already there (a deleted one too, until it
is erased for good).  Released: never edit this migration.
"""

from __future__ import annotations

SOURCES = ("chatgpt", "claude", "reverie")
"""Where an imported conversation may come from."""

SQL = f"""
ALTER TABLE conversations ADD COLUMN imported_from TEXT
    CHECK (imported_from IS NULL OR imported_from IN ({", ".join(f"'{s}'" for s in SOURCES)}));
ALTER TABLE conversations ADD COLUMN external_id TEXT
    CHECK (external_id IS NULL OR length(external_id) > 0);
CREATE UNIQUE INDEX conversations_imported ON conversations (imported_from, external_id)
    WHERE imported_from IS NOT NULL AND external_id IS NOT NULL;
"""
