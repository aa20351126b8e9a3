"""Migration 1: the whole schema Reverie starts with.  Released: never edit it.

Conventions, kept in every table:
- timestamps are REAL unix seconds (UTC), cheap to compare and to index;
- ids are ``INTEGER PRIMARY KEY AUTOINCREMENT`` where other rows or outside
  data may point at them, so an id is never reused after a delete;
- booleans are INTEGER 0/1, enumerations are TEXT with a CHECK, JSON is TEXT
  with ``json_valid``; tables are STRICT so a wrong type is an error.
"""

from __future__ import annotations

APPLICATION_ID = 0x52767269  # "Rvri" in the file header: marks the file as Reverie's
VECTOR_DIMENSION = 384  # the default embedder's dimension

# SQLite-version-independent "now" in unix seconds (unixepoch('subsec') needs 3.42).
_NOW = "((julianday('now') - 2440587.5) * 86400.0)"

SQL = f"""
PRAGMA application_id = {APPLICATION_ID};

CREATE TABLE conversations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    -- An off-the-record conversation is never harvested into memories.
    off_record INTEGER NOT NULL DEFAULT 0 CHECK (off_record IN (0, 1)),
    summary TEXT,
    summary_updated_at REAL,
    -- Harvest watermark: messages with a larger id are not harvested yet.  No
    -- foreign key: it is a position, still meaningful if that message goes.
    harvested_through_message_id INTEGER,
    deleted_at REAL,
    CHECK (summary_updated_at IS NULL OR summary IS NOT NULL)
) STRICT;
CREATE INDEX conversations_recent ON conversations (updated_at DESC) WHERE deleted_at IS NULL;

CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool', 'event')),
    content TEXT NOT NULL,
    created_at REAL NOT NULL,
    archived_at REAL,
    token_count INTEGER CHECK (token_count IS NULL OR token_count >= 0),
    metadata TEXT CHECK (metadata IS NULL OR json_valid(metadata))
) STRICT;
CREATE INDEX messages_by_conversation ON messages (conversation_id, id);

CREATE VIRTUAL TABLE messages_fts USING fts5 (
    content, content = 'messages', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
END;

CREATE TABLE dream_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    trigger TEXT NOT NULL CHECK (length(trigger) > 0),
    status TEXT NOT NULL DEFAULT 'queued'
        CHECK (status IN ('queued', 'running', 'paused', 'completed', 'failed', 'cancelled')),
    created_at REAL NOT NULL,
    started_at REAL,
    finished_at REAL,
    checkpoint TEXT CHECK (checkpoint IS NULL OR json_valid(checkpoint)),
    stats TEXT CHECK (stats IS NULL OR json_valid(stats)),
    error TEXT
) STRICT;
CREATE INDEX dream_runs_by_status ON dream_runs (status, id);

CREATE TABLE memories (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    content TEXT NOT NULL CHECK (length(trim(content)) > 0),
    category TEXT NOT NULL DEFAULT 'general' CHECK (length(category) > 0),
    source_kind TEXT NOT NULL
        CHECK (source_kind IN (
            'user_explicit', 'harvested', 'dream_merged', 'imported', 'inferred')),
    importance REAL NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0.0 AND 1.0),
    reinforcement_count INTEGER NOT NULL DEFAULT 1 CHECK (reinforcement_count >= 1),
    created_at REAL NOT NULL,
    last_seen_at REAL NOT NULL,
    valid_from REAL NOT NULL,
    valid_to REAL CHECK (valid_to IS NULL OR valid_to >= valid_from),
    pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    status TEXT NOT NULL DEFAULT 'active'
        CHECK (status IN ('active', 'superseded', 'archived', 'deleted')),
    superseded_by INTEGER REFERENCES memories (id) ON DELETE SET NULL
        CHECK (superseded_by IS NULL OR (status = 'superseded' AND superseded_by <> id)),
    -- sha256 hex of the normalised content (see memory_rows.content_hash).
    content_hash TEXT NOT NULL CHECK (length(content_hash) = 64),
    embedding_model TEXT,
    -- A JSON array of flag names, e.g. ["instruction_like"].
    flags TEXT CHECK (flags IS NULL OR (json_valid(flags) AND json_type(flags) = 'array')),
    updated_at REAL NOT NULL
) STRICT;
CREATE INDEX memories_by_hash ON memories (content_hash);
CREATE INDEX memories_by_status_category ON memories (status, category);
CREATE INDEX memories_by_last_seen ON memories (status, last_seen_at);
CREATE INDEX memories_by_superseded_by ON memories (superseded_by) WHERE superseded_by IS NOT NULL;

-- Provenance: each row names one source, a message or an outside reference
-- (e.g. a benchmark turn id).  No foreign key to messages, on purpose: the
-- provenance of a memory outlives a deleted conversation.
CREATE TABLE memory_sources (
    memory_id INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    message_id INTEGER,
    external_ref TEXT CHECK (external_ref IS NULL OR length(external_ref) > 0),
    CHECK ((message_id IS NULL) <> (external_ref IS NULL))
) STRICT;
CREATE UNIQUE INDEX memory_sources_message
    ON memory_sources (memory_id, message_id) WHERE message_id IS NOT NULL;
CREATE UNIQUE INDEX memory_sources_external
    ON memory_sources (memory_id, external_ref) WHERE external_ref IS NOT NULL;
CREATE INDEX memory_sources_by_message ON memory_sources (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX memory_sources_by_external
    ON memory_sources (external_ref) WHERE external_ref IS NOT NULL;

CREATE TABLE memory_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    -- Cascade: forgetting a memory for good must take its old texts with it.
    memory_id INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    operation TEXT NOT NULL CHECK (operation IN (
        'add', 'update', 'reinforce', 'merge', 'supersede', 'archive', 'restore',
        'delete', 'pin', 'unpin', 'decay', 'recategorize')),
    old_content TEXT,
    new_content TEXT,
    actor TEXT NOT NULL
        CHECK (actor IN ('user', 'harvest', 'system', 'tool') OR actor GLOB 'dream:?*'),
    dream_run_id INTEGER REFERENCES dream_runs (id) ON DELETE SET NULL,
    details TEXT CHECK (details IS NULL OR json_valid(details)),
    created_at REAL NOT NULL
) STRICT;
CREATE INDEX memory_history_by_memory ON memory_history (memory_id, id);
CREATE INDEX memory_history_by_dream_run
    ON memory_history (dream_run_id) WHERE dream_run_id IS NOT NULL;

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    content, content = 'memories', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO memories_fts (rowid, content) VALUES (new.id, new.content);
END;

-- status and category are vec0 metadata columns so that a KNN query filters
-- inside the search and still returns k rows.  MemoryStore keeps them equal
-- to the memories row in the same transaction.
CREATE VIRTUAL TABLE memory_vectors USING vec0 (
    memory_id INTEGER PRIMARY KEY,
    embedding float[{VECTOR_DIMENSION}] distance_metric=cosine,
    status TEXT,
    category TEXT
);

-- What the vector table holds, so a change of embedder is detected.
CREATE TABLE vector_index_meta (
    table_name TEXT PRIMARY KEY,
    dimension INTEGER NOT NULL CHECK (dimension > 0),
    distance_metric TEXT NOT NULL CHECK (distance_metric IN ('cosine', 'l2', 'l1')),
    embedding_model TEXT,
    updated_at REAL NOT NULL
) STRICT;
INSERT INTO vector_index_meta (table_name, dimension, distance_metric, updated_at)
    VALUES ('memory_vectors', {VECTOR_DIMENSION}, 'cosine', {_NOW});

CREATE TABLE skills (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE CHECK (length(trim(name)) > 0),
    summary TEXT NOT NULL DEFAULT '',
    file_name TEXT NOT NULL CHECK (length(file_name) > 0),
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'draft', 'deleted')),
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
) STRICT;

CREATE TABLE skill_usage (
    id INTEGER PRIMARY KEY,
    skill_id INTEGER NOT NULL REFERENCES skills (id) ON DELETE CASCADE,
    conversation_id INTEGER REFERENCES conversations (id) ON DELETE SET NULL,
    used_at REAL NOT NULL
) STRICT;
CREATE INDEX skill_usage_by_skill ON skill_usage (skill_id, used_at);
CREATE INDEX skill_usage_by_conversation
    ON skill_usage (conversation_id) WHERE conversation_id IS NOT NULL;

CREATE TABLE tasks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id INTEGER REFERENCES conversations (id) ON DELETE SET NULL,
    text TEXT NOT NULL CHECK (length(trim(text)) > 0),
    priority INTEGER NOT NULL DEFAULT 5 CHECK (priority BETWEEN 1 AND 10),
    status TEXT NOT NULL DEFAULT 'active'
        CHECK (status IN ('active', 'paused', 'completed', 'deleted')),
    schedule_kind TEXT
        CHECK (schedule_kind IS NULL
               OR schedule_kind IN ('once', 'daily', 'weekly', 'monthly', 'interval')),
    schedule_spec TEXT CHECK (schedule_spec IS NULL OR json_valid(schedule_spec)),
    ai_prompt TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    completed_at REAL,
    last_run_at REAL,
    next_run_at REAL,
    CHECK (schedule_spec IS NULL OR schedule_kind IS NOT NULL),
    CHECK (next_run_at IS NULL OR schedule_kind IS NOT NULL)
) STRICT;
CREATE INDEX tasks_due ON tasks (next_run_at) WHERE status = 'active' AND next_run_at IS NOT NULL;
CREATE INDEX tasks_by_status ON tasks (status, priority DESC);
CREATE INDEX tasks_by_conversation ON tasks (conversation_id) WHERE conversation_id IS NOT NULL;

CREATE TABLE background_jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (length(kind) > 0),
    payload TEXT CHECK (payload IS NULL OR json_valid(payload)),
    status TEXT NOT NULL DEFAULT 'queued'
        CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    priority INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    error TEXT
) STRICT;
CREATE INDEX background_jobs_queue ON background_jobs (priority DESC, id) WHERE status = 'queued';
CREATE INDEX background_jobs_by_kind ON background_jobs (kind, status);
"""
