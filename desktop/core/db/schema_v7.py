"""Migration 7: which messages were checked for secrets.

Messages are redacted as they are written since this version; those written
before were stored as typed.  They are marked unchecked here (new ones are
checked by default) and ``desktop.core.dreaming.secret_sweep`` redacts them once, in
the background, a batch at a time.
"""

from __future__ import annotations

SQL = """
ALTER TABLE messages ADD COLUMN secrets_checked INTEGER NOT NULL DEFAULT 1
    CHECK (secrets_checked IN (0, 1));
UPDATE messages SET secrets_checked = 0;
CREATE INDEX messages_unchecked ON messages (id) WHERE secrets_checked = 0;
"""
