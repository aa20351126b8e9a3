"""Migration 5: a harvest that keeps failing is retried later, then skipped, and said so.

Until now one unusable model answer kept a conversation's harvest at the
same watermark for good: the next harvest read the same messages with the
same greedy prompt and failed the same way.  Now:

- ``harvest_retries`` holds, per conversation, how often the harvest of its
  new messages failed in a row and when to try again (a restart does not
  reset the back-off); it goes when a harvest succeeds or the part is skipped.
- ``harvest_gaps`` holds each part of a conversation the harvest gave up on
  (its first and last message id, why, after how many tries) until it is
  learned after all; ``learn_again_at`` is set when the user asks for that.
  Message ids are positions, not foreign keys: a message may go meanwhile.
- ``conversations.unlearned_parts`` counts a conversation's gaps (kept by
  triggers), so every list of conversations can show which were not fully
  learned without a query of its own.

Released: never edit this migration.
"""

from __future__ import annotations

SQL = """
CREATE TABLE harvest_retries (
    conversation_id INTEGER PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
    failures INTEGER NOT NULL CHECK (failures >= 1),
    last_error TEXT NOT NULL,
    retry_at REAL NOT NULL
) STRICT;

CREATE TABLE harvest_gaps (
    id INTEGER PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    first_message_id INTEGER NOT NULL,
    last_message_id INTEGER NOT NULL CHECK (last_message_id >= first_message_id),
    attempts INTEGER NOT NULL CHECK (attempts >= 1),
    reason TEXT NOT NULL,
    skipped_at REAL NOT NULL,
    learn_again_at REAL
) STRICT;
CREATE INDEX harvest_gaps_by_conversation ON harvest_gaps (conversation_id);

ALTER TABLE conversations ADD COLUMN unlearned_parts INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER harvest_gaps_counted AFTER INSERT ON harvest_gaps
BEGIN
    UPDATE conversations SET unlearned_parts = unlearned_parts + 1
        WHERE id = new.conversation_id;
END;

CREATE TRIGGER harvest_gaps_uncounted AFTER DELETE ON harvest_gaps
BEGIN
    UPDATE conversations SET unlearned_parts = unlearned_parts - 1
        WHERE id = old.conversation_id;
END;
"""
