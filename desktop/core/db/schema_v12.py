"""Migration 12: vectors of messages, so past conversations are found by meaning.

What the user said weeks ago in another conversation is recalled into a
reply (``desktop.core.memory.excerpts``); its words are found through
``messages_fts``, its meaning through ``message_embeddings``: one row per
message, float32 and sign bits as for memories (schema_v3), with the name
of the embedding model that made it (schema_v4: vectors of two models mean
nothing to each other).

What may be found is decided by triggers, so no writer can forget it:

- a message whose text changes (an edit, a secret taken out later) loses
  its vector, made from the old text; the indexer embeds it again;
- a deleted or erased message, or conversation, takes its vectors with it
  (``ON DELETE CASCADE``);
- ``message_vector_changes`` logs, as ``memory_vector_changes`` does for
  memories, every message whose vector changed or whose conversation was
  deleted, restored or taken off the record, so the in-memory sign bits
  (``VectorSearch``) catch up before the next search.

Messages of off-the-record conversations are never given a vector (the
indexer's query), and a conversation taken off the record loses them.
Released: never edit this migration.
"""

from __future__ import annotations

from desktop.core.db.schema_v3 import LOG_KEPT

SQL = f"""
CREATE TABLE message_embeddings (
    message_id INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    model TEXT,
    embedding BLOB NOT NULL,
    signs BLOB NOT NULL,
    CHECK (length(signs) > 0 AND length(embedding) = 32 * length(signs))
) STRICT;
CREATE INDEX message_embeddings_by_model ON message_embeddings (model);

CREATE TABLE message_vector_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id INTEGER NOT NULL,
    token BLOB NOT NULL DEFAULT (randomblob(8))
) STRICT;
CREATE TRIGGER message_vector_changes_kept AFTER INSERT ON message_vector_changes BEGIN
    DELETE FROM message_vector_changes WHERE seq <= new.seq - {LOG_KEPT};
END;
CREATE TRIGGER message_embeddings_insert_logged AFTER INSERT ON message_embeddings BEGIN
    INSERT INTO message_vector_changes (message_id) VALUES (new.message_id);
END;
CREATE TRIGGER message_embeddings_update_logged AFTER UPDATE ON message_embeddings BEGIN
    INSERT INTO message_vector_changes (message_id) VALUES (old.message_id);
    INSERT INTO message_vector_changes (message_id)
        SELECT new.message_id WHERE new.message_id <> old.message_id;
END;
CREATE TRIGGER message_embeddings_delete_logged AFTER DELETE ON message_embeddings BEGIN
    INSERT INTO message_vector_changes (message_id) VALUES (old.message_id);
END;

CREATE TRIGGER messages_text_changed_unembedded AFTER UPDATE OF content ON messages
    WHEN old.content IS NOT new.content
BEGIN
    DELETE FROM message_embeddings WHERE message_id = new.id;
END;
CREATE TRIGGER conversations_off_record_unembedded AFTER UPDATE OF off_record ON conversations
    WHEN new.off_record
BEGIN
    DELETE FROM message_embeddings
        WHERE message_id IN (SELECT id FROM messages WHERE conversation_id = new.id);
END;
CREATE TRIGGER conversations_deletion_logged AFTER UPDATE OF deleted_at ON conversations
    WHEN (old.deleted_at IS NULL) <> (new.deleted_at IS NULL)
BEGIN
    INSERT INTO message_vector_changes (message_id)
        SELECT e.message_id FROM message_embeddings e JOIN messages m ON m.id = e.message_id
        WHERE m.conversation_id = new.id;
END;
"""
