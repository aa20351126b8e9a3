"""Migration 4: vectors of any embedding model, each searched only with its own model's.

Until now every vector had the default embedder's 384 dimensions, fixed by
sqlite-vec's ``memory_vector_knn`` table and ``vector_index_meta``.  The user
may now choose another embedding model (another size, or a server's), and
vectors of two models mean nothing to each other: a search by meaning only
ever compares vectors of the model in use (``memories.embedding_model``),
and the others are embedded again in the background.  So:

- ``memory_embeddings`` (one row per memory, float32 and sign bits, see
  schema_v3) is the one home of vectors, of any length; nothing searched the
  vec0 copy any more, which doubled the file's size per memory.
- ``memory_vectors`` (the view writing both) and the vec0 table go, as does
  ``vector_index_meta``: a vector's length is its model's.
- A change of a memory's embedding model is logged for the in-memory sign
  bits like a change of its status or category.

Released: never edit this migration.
"""

from __future__ import annotations

SQL = """
DROP VIEW memory_vectors;
DROP TABLE memory_vector_knn;
DROP TABLE vector_index_meta;

DROP TRIGGER memories_filters_logged;
CREATE TRIGGER memories_filters_logged
    AFTER UPDATE OF status, category, embedding_model ON memories
    WHEN old.status IS NOT new.status OR old.category IS NOT new.category
        OR old.embedding_model IS NOT new.embedding_model
BEGIN
    INSERT INTO memory_vector_changes (memory_id)
        SELECT new.id WHERE EXISTS (SELECT 1 FROM memory_embeddings WHERE memory_id = new.id);
END;

-- Finding the memories still to embed with the model in use.
CREATE INDEX memories_by_embedding_model ON memories (embedding_model, status);
"""
