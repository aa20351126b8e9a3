"""Migration 10: background workers, the work they wait on and what they said.

A worker is one objective handed off by a conversation (or by a worker of
its own, one level deeper) and run in the background; its state is kept
here so nothing is lost across a restart (``desktop.core.db.workers``
owns the SQL, ``desktop.core.workers`` the rules).  A worker that timed out
is ``continuing``: a new row (``continuation_of`` its first hop) carries on
from its messages, and every hop of the chain ends in the last hop's final
state.  ``runner`` names the process that claimed a ``running`` worker, so
a worker left running by a killed process is resumed once, by the next.
Everything a worker is and said goes with the conversation it serves.
Released: never edit this migration.
"""

from __future__ import annotations

SQL = """
CREATE TABLE workers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    parent_id INTEGER REFERENCES workers(id) ON DELETE CASCADE,
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    depth INTEGER NOT NULL CHECK (depth BETWEEN 1 AND 2),
    objective TEXT NOT NULL CHECK (length(objective) > 0),
    mode TEXT NOT NULL CHECK (mode IN ('minimal', 'full', 'base_only', 'none')),
    profile TEXT,
    tools TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tools) AND json_type(tools) = 'array'),
    max_tool_calls INTEGER NOT NULL CHECK (max_tool_calls >= 0),
    state TEXT NOT NULL CHECK (state IN ('waiting_deps', 'waiting_time', 'running',
        'continuing', 'completed', 'failed', 'cancelled')),
    not_before REAL,
    timeout_s REAL NOT NULL CHECK (timeout_s > 0),
    time_used REAL NOT NULL DEFAULT 0 CHECK (time_used >= 0),
    continuation_of INTEGER REFERENCES workers(id) ON DELETE CASCADE,
    continuations INTEGER NOT NULL DEFAULT 0 CHECK (continuations >= 0),
    retry_of INTEGER REFERENCES workers(id) ON DELETE SET NULL,
    runner TEXT,
    result TEXT,
    failure TEXT,
    created_at REAL NOT NULL,
    started_at REAL,
    ended_at REAL,
    off_record INTEGER NOT NULL DEFAULT 0 CHECK (off_record IN (0, 1)),
    reported INTEGER NOT NULL DEFAULT 0 CHECK (reported IN (0, 1))
) STRICT;
CREATE INDEX workers_by_state ON workers(state, not_before);
CREATE INDEX workers_by_parent ON workers(parent_id);
CREATE INDEX workers_by_conversation ON workers(conversation_id);
CREATE INDEX workers_by_chain ON workers(continuation_of);

CREATE TABLE worker_dependencies (
    worker_id INTEGER NOT NULL REFERENCES workers(id) ON DELETE CASCADE,
    depends_on INTEGER NOT NULL REFERENCES workers(id) ON DELETE CASCADE,
    PRIMARY KEY (worker_id, depends_on),
    CHECK (worker_id != depends_on)
) STRICT, WITHOUT ROWID;
CREATE INDEX worker_dependents ON worker_dependencies(depends_on);

CREATE TABLE worker_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    worker_id INTEGER NOT NULL REFERENCES workers(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    content TEXT NOT NULL,
    created_at REAL NOT NULL
) STRICT;
CREATE INDEX worker_messages_by_worker ON worker_messages(worker_id, id);
"""
