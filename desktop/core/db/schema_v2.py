"""Migration 2: what dreaming needs to be reviewed and undone.  Released: never edit it.

- ``dream_changes``: each change a dream made or proposes, the unit of review
  and undo: what it does (``payload``, re-applied when a risky change is
  approved), the rows it touched before and after, and its status.
- ``dream_log``: per pass of a run, what happened, with the model's raw
  output when it was rejected.
- ``dream_pass_marks``: per pass, the time up to which memories were judged,
  so a memory that did not change is not sent to the model again.
- ``memories.faded_importance`` and ``decayed_through``: importance as decay
  left it, applied up to that time, so decay over calendar time is the same
  however often it runs; the importance the memory was given is kept.
- ``memory_history.dream_change_id``: the change a history row belongs to.
"""

from __future__ import annotations

SQL = """
CREATE TABLE dream_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    dream_run_id INTEGER NOT NULL REFERENCES dream_runs (id) ON DELETE CASCADE,
    pass TEXT NOT NULL CHECK (length(pass) > 0),
    kind TEXT NOT NULL CHECK (length(kind) > 0),
    summary TEXT NOT NULL,
    payload TEXT NOT NULL CHECK (json_valid(payload)),
    before TEXT CHECK (before IS NULL OR json_valid(before)),
    after TEXT CHECK (after IS NULL OR json_valid(after)),
    status TEXT NOT NULL CHECK (status IN ('applied', 'pending', 'reverted', 'rejected')),
    risky INTEGER NOT NULL DEFAULT 0 CHECK (risky IN (0, 1)),
    note TEXT,
    created_at REAL NOT NULL,
    decided_at REAL
) STRICT;
CREATE INDEX dream_changes_by_run ON dream_changes (dream_run_id, id);
CREATE INDEX dream_changes_pending ON dream_changes (id) WHERE status = 'pending';

CREATE TABLE dream_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    dream_run_id INTEGER NOT NULL REFERENCES dream_runs (id) ON DELETE CASCADE,
    pass TEXT NOT NULL CHECK (length(pass) > 0),
    outcome TEXT NOT NULL CHECK (outcome IN (
        'applied', 'nothing', 'rolled_back', 'tripped', 'failed', 'cancelled')),
    message TEXT NOT NULL,
    raw_output TEXT,
    created_at REAL NOT NULL
) STRICT;
CREATE INDEX dream_log_by_run ON dream_log (dream_run_id, id);

CREATE TABLE dream_pass_marks (
    pass TEXT PRIMARY KEY CHECK (length(pass) > 0),
    judged_through REAL NOT NULL,
    updated_at REAL NOT NULL
) STRICT;

-- Decay leaves the importance a memory was given alone: it fades a copy,
-- applied up to decayed_through (both NULL until it first fades, and again
-- when the memory is seen anew).
ALTER TABLE memories ADD COLUMN faded_importance REAL
    CHECK (faded_importance IS NULL OR faded_importance BETWEEN 0.0 AND 1.0);
ALTER TABLE memories ADD COLUMN decayed_through REAL;
-- A dream looks only at memories changed since it last judged them.
CREATE INDEX memories_by_update ON memories (status, updated_at);

ALTER TABLE memory_history ADD COLUMN dream_change_id INTEGER
    REFERENCES dream_changes (id) ON DELETE SET NULL;
CREATE INDEX memory_history_by_dream_change
    ON memory_history (dream_change_id) WHERE dream_change_id IS NOT NULL;
"""
