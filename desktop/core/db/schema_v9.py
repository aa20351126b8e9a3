"""Migration 9: when a completed task was opened again.

A dream's completion the user undoes puts the task back as it was, active,
and the words it was completed on are still there: the next agenda review
or dream read them again and completed it again (round 14).  A task now
keeps when it was last opened again (``reopened_at``, set by
``TaskStore.put_back`` when it takes a task from completed to open), and
only words typed after that count (``task_evidence.said_done``).  Tasks
reopened before this version get the time of the last undo of a dream's
completion of them, as the dream's record keeps it.  Released: never edit
this migration.
"""

from __future__ import annotations

SQL = """
ALTER TABLE tasks ADD COLUMN reopened_at REAL;
UPDATE tasks SET reopened_at = (
    SELECT max(c.decided_at) FROM dream_changes c
    WHERE c.kind = 'task_complete' AND c.status = 'reverted'
        AND json_extract(c.payload, '$.task') = tasks.id
);
"""
