"""Migration 3: vectors with their sign bits in a plain table, for a fast search by meaning.

sqlite-vec's vec0 KNN is brute force over float32 vectors: at 100,000
memories one search reads ~150 MB and its top-k selection costs rows x k, so
a smaller (bit or int8) vec0 column searched with an oversampled k gains
little, and one vector read back by key walks its 1,024-vector chunk
(~2 ms), too slow to re-score candidates.  So every vector is also kept in
``memory_embeddings``, one row per memory, with its sign bits
(``vec_quantize_binary``: 48 bytes for 384 dimensions).  A search compares
the query's sign bits with every memory's, held in memory by the store
(``sign_index.SignIndex``), and re-scores the best few hundred exactly with
their float vectors, read by primary key.  Status and category are read from
``memories``, where they live.

``memory_vectors`` keeps its name, columns and KNN queries for whoever writes
or searches it, but is now a view of the vec0 table (``memory_vector_knn``)
whose triggers write ``memory_embeddings`` in the same statement: the copy
cannot fall out of step, whoever writes.  (The vec0 copy goes once nothing
uses ``memory_vectors`` any more.)

``memory_vector_changes`` is a log, written by triggers, of the memories
whose vector, status or category changed; the in-memory sign bits catch up
from it.  It keeps its last ``LOG_KEPT`` entries: a reader further behind
reloads, as does one whose last applied change is gone (rolled back).
Released: never edit this migration.
"""

from __future__ import annotations

from desktop.core.db.schema_v1 import VECTOR_DIMENSION

LOG_KEPT = 10_000

SQL = f"""
CREATE TABLE memory_embeddings (
    memory_id INTEGER PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    -- float32, as sqlite-vec stores it; signs is vec_quantize_binary(embedding).
    embedding BLOB NOT NULL,
    signs BLOB NOT NULL,
    CHECK (length(signs) > 0 AND length(embedding) = 32 * length(signs))
) STRICT;
-- A vector whose memory is gone has nothing to be found for.
INSERT INTO memory_embeddings (memory_id, embedding, signs)
    SELECT v.memory_id, v.embedding, vec_quantize_binary(v.embedding)
    FROM memory_vectors v JOIN memories m ON m.id = v.memory_id;

-- Filled from the plain table: reading one vec0 table while writing another
-- is many times slower.
CREATE VIRTUAL TABLE memory_vector_knn USING vec0 (
    memory_id INTEGER PRIMARY KEY,
    embedding float[{VECTOR_DIMENSION}] distance_metric=cosine,
    status TEXT,
    category TEXT
);
INSERT INTO memory_vector_knn (memory_id, embedding, status, category)
    SELECT e.memory_id, e.embedding, m.status, m.category
    FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id ORDER BY e.memory_id;

DROP TABLE memory_vectors;
CREATE VIEW memory_vectors AS
    SELECT memory_id, embedding, status, category, k, distance FROM memory_vector_knn;
CREATE TRIGGER memory_vectors_insert INSTEAD OF INSERT ON memory_vectors BEGIN
    INSERT INTO memory_vector_knn (memory_id, embedding, status, category)
        VALUES (new.memory_id, new.embedding, new.status, new.category);
    INSERT INTO memory_embeddings (memory_id, embedding, signs)
        VALUES (new.memory_id, vec_f32(new.embedding), vec_quantize_binary(new.embedding));
END;
CREATE TRIGGER memory_vectors_update INSTEAD OF UPDATE ON memory_vectors BEGIN
    SELECT RAISE(ABORT, 'memory_vectors: replace a vector by deleting and inserting it')
        WHERE new.memory_id IS NOT old.memory_id OR new.embedding IS NOT old.embedding;
    UPDATE memory_vector_knn SET status = new.status, category = new.category
        WHERE memory_id = old.memory_id;
END;
CREATE TRIGGER memory_vectors_delete INSTEAD OF DELETE ON memory_vectors BEGIN
    DELETE FROM memory_vector_knn WHERE memory_id = old.memory_id;
    DELETE FROM memory_embeddings WHERE memory_id = old.memory_id;
END;

CREATE TABLE memory_vector_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id INTEGER NOT NULL,
    -- A rolled-back change frees its number for the next one; the token
    -- tells a reader that the change it applied last is not the one there now.
    token BLOB NOT NULL DEFAULT (randomblob(8))
) STRICT;
CREATE TRIGGER memory_vector_changes_kept AFTER INSERT ON memory_vector_changes BEGIN
    DELETE FROM memory_vector_changes WHERE seq <= new.seq - {LOG_KEPT};
END;
CREATE TRIGGER memory_embeddings_insert_logged AFTER INSERT ON memory_embeddings BEGIN
    INSERT INTO memory_vector_changes (memory_id) VALUES (new.memory_id);
END;
CREATE TRIGGER memory_embeddings_update_logged AFTER UPDATE ON memory_embeddings BEGIN
    INSERT INTO memory_vector_changes (memory_id) VALUES (old.memory_id);
    INSERT INTO memory_vector_changes (memory_id)
        SELECT new.memory_id WHERE new.memory_id <> old.memory_id;
END;
CREATE TRIGGER memory_embeddings_delete_logged AFTER DELETE ON memory_embeddings BEGIN
    INSERT INTO memory_vector_changes (memory_id) VALUES (old.memory_id);
END;
CREATE TRIGGER memories_filters_logged AFTER UPDATE OF status, category ON memories
    WHEN old.status IS NOT new.status OR old.category IS NOT new.category
BEGIN
    INSERT INTO memory_vector_changes (memory_id)
        SELECT new.id WHERE EXISTS (SELECT 1 FROM memory_embeddings WHERE memory_id = new.id);
END;
"""
