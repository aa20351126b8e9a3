"""Tests of desktop.core.db.migrations: applied in order, once, all-or-nothing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from desktop.core.db import schema_v1, schema_v3
from desktop.core.db.connection import Database, Transaction
from desktop.core.db.errors import DatabaseTooNew, DiskFull, MigrationFailed, QueryFailed
from desktop.core.db.memories import MemoryStore
from desktop.core.db.migrations import (
    MIGRATIONS,
    Migration,
    applied_versions,
    latest_version,
    migrate,
)
from desktop.core.db.opening import open_database
from tests.unit.core.db.conftest import FakeClock


def _tables(database: Database) -> set[str]:
    rows = database.fetch_all("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {row[0] for row in rows}


def _add_notes(tx: Transaction) -> None:
    tx.execute("CREATE TABLE notes (body TEXT NOT NULL) STRICT")
    tx.execute("INSERT INTO notes VALUES ('from a function')")


def test_versions_are_numbered_from_one_without_gaps() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))
    assert latest_version() == MIGRATIONS[-1].version


def test_a_blank_database_is_brought_to_the_latest_version(db: Database) -> None:
    assert applied_versions(db) == {m.version for m in MIGRATIONS}
    assert {"memories", "messages", "memory_embeddings", "schema_migrations"} <= _tables(db)


def test_each_migration_is_recorded_with_its_name_and_time(db_path: Path) -> None:
    with open_database(db_path, migrations=()) as database:
        applied = migrate(database, clock=FakeClock(1234.5))
        row = database.fetch_one("SELECT * FROM schema_migrations WHERE version = 1")

    assert applied == [m.version for m in MIGRATIONS]
    assert row is not None
    assert (row["name"], row["applied_at"]) == ("initial schema", 1234.5)


def test_migrating_again_and_reopening_change_nothing(db_path: Path) -> None:
    with open_database(db_path) as database:
        first = database.fetch_all("SELECT version, applied_at FROM schema_migrations")
        assert migrate(database) == []

    with open_database(db_path) as database:
        again = database.fetch_all("SELECT version, applied_at FROM schema_migrations")

    assert [tuple(row) for row in again] == [tuple(row) for row in first]


def test_a_new_migration_is_applied_on_the_next_open(db_path: Path) -> None:
    open_database(db_path).close()
    extended = (*MIGRATIONS, Migration(latest_version() + 1, "notes", _add_notes))

    with open_database(db_path, migrations=extended) as database:
        assert database.fetch_value("SELECT body FROM notes") == "from a function"
        assert max(applied_versions(database)) == latest_version() + 1


def test_a_newer_database_is_refused_and_left_byte_for_byte(db_path: Path) -> None:
    with open_database(db_path) as database, database.transaction() as tx:
        tx.execute("INSERT INTO schema_migrations VALUES (99, 'from the future', 0)")
    before = db_path.read_bytes()

    with pytest.raises(DatabaseTooNew) as caught:
        open_database(db_path)

    assert "schema version 99" in str(caught.value)
    assert f"up to {latest_version()}" in str(caught.value)
    assert db_path.read_bytes() == before


def test_migrate_itself_refuses_a_newer_database(db: Database) -> None:
    with pytest.raises(DatabaseTooNew):
        migrate(db, migrations=MIGRATIONS[:0])


def test_a_failing_migration_leaves_no_partial_tables_and_no_record(db_path: Path) -> None:
    broken = Migration(2, "broken", "CREATE TABLE partial (x INTEGER);\nTHIS IS NOT SQL;\n")

    with pytest.raises(MigrationFailed, match=r"Migration 2 \(broken\) failed") as caught:
        open_database(db_path, migrations=(*MIGRATIONS[:1], broken))
    assert isinstance(caught.value.__cause__, QueryFailed)

    with open_database(db_path, migrations=MIGRATIONS[:1]) as database:
        assert "partial" not in _tables(database)
        assert applied_versions(database) == {1}


def test_a_failing_first_migration_leaves_a_blank_database(db_path: Path) -> None:
    broken = Migration(1, "schema then a typo", schema_v1.SQL + "\nCREATE TABLEX y (z);\n")

    with pytest.raises(MigrationFailed):
        open_database(db_path, migrations=(broken,))

    with open_database(db_path, migrations=()) as database:
        assert database.fetch_value("SELECT count(*) FROM sqlite_master") == 0


def test_a_failing_function_migration_is_rolled_back(db: Database) -> None:
    def half_done(tx: Transaction) -> None:
        _add_notes(tx)
        tx.execute("INSERT INTO no_such_table VALUES (1)")

    with pytest.raises(MigrationFailed):
        migrate(db, (*MIGRATIONS, Migration(latest_version() + 1, "half", half_done)))

    assert "notes" not in _tables(db)
    assert applied_versions(db) == {m.version for m in MIGRATIONS}


def test_an_environment_problem_during_a_migration_keeps_its_type(db: Database) -> None:
    def disk_fills(tx: Transaction) -> None:
        raise DiskFull("the disk filled up")

    with pytest.raises(DiskFull):
        migrate(db, (*MIGRATIONS, Migration(latest_version() + 1, "fills", disk_fills)))


def test_an_unfinished_statement_fails_the_migration(db: Database) -> None:
    unfinished = Migration(latest_version() + 1, "unfinished", "CREATE TABLE t (x INTEGER)")

    with pytest.raises(MigrationFailed, match="incomplete SQL statement"):
        migrate(db, (*MIGRATIONS, unfinished))

    assert "t" not in _tables(db)


@pytest.mark.parametrize(
    "versions",
    [(2, 1), (1, 1), (0, 1)],
    ids=["unordered", "duplicate", "zero"],
)
def test_a_malformed_migration_list_is_a_bug(db: Database, versions: tuple[int, ...]) -> None:
    migrations = [Migration(version, f"m{version}", "SELECT 1;") for version in versions]

    with pytest.raises(ValueError, match="unique, positive, ascending"):
        migrate(db, migrations)


def test_a_version_1_database_with_memories_moves_to_version_2_intact(db_path: Path) -> None:
    with open_database(db_path, migrations=MIGRATIONS[:1]) as old, old.transaction() as tx:
        tx.execute(
            "INSERT INTO memories (content, source_kind, created_at, last_seen_at, valid_from,"
            " content_hash, updated_at) VALUES ('The user likes tea.', 'harvested', 1, 2, 1,"
            " printf('%064d', 0), 2)"
        )
        tx.execute(
            "INSERT INTO memory_history (memory_id, operation, new_content, actor, created_at)"
            " VALUES (1, 'add', 'The user likes tea.', 'harvest', 1)"
        )

    with open_database(db_path, migrations=MIGRATIONS[:2]) as database:
        memory = database.fetch_one("SELECT content, decayed_through FROM memories")
        history = database.fetch_one("SELECT operation, dream_change_id FROM memory_history")
        assert max(applied_versions(database)) == 2
        assert {"dream_changes", "dream_log", "dream_pass_marks"} <= _tables(database)

    assert memory is not None and tuple(memory) == ("The user likes tea.", None)
    assert history is not None and tuple(history) == ("add", None)


def test_version_2_tables_refuse_what_they_cannot_mean(db: Database) -> None:
    with db.transaction() as tx:
        tx.execute("INSERT INTO dream_runs (trigger, created_at) VALUES ('manual', 1)")
    bad_rows = [
        "INSERT INTO dream_changes (dream_run_id, pass, kind, summary, payload, status,"
        " created_at) VALUES (1, 'dedup', 'merge', '', 'not json', 'applied', 1)",
        "INSERT INTO dream_changes (dream_run_id, pass, kind, summary, payload, status,"
        " created_at) VALUES (1, 'dedup', 'merge', '', '{}', 'maybe', 1)",
        "INSERT INTO dream_log (dream_run_id, pass, outcome, message, created_at)"
        " VALUES (1, 'dedup', 'shrugged', '', 1)",
        "INSERT INTO dream_changes (dream_run_id, pass, kind, summary, payload, status,"
        " created_at) VALUES (99, 'dedup', 'merge', '', '{}', 'applied', 1)",
    ]
    for sql in bad_rows:
        with pytest.raises(QueryFailed), db.transaction() as tx:
            tx.execute(sql)


def _vector(*leading: float) -> str:
    values = [*leading, *[0.0] * (schema_v1.VECTOR_DIMENSION - len(leading))]
    return "[" + ", ".join(str(v) for v in values) + "]"


def _v1_memory(tx: Transaction, memory_id: int, status: str, category: str) -> None:
    tx.execute(
        "INSERT INTO memories (id, content, category, source_kind, status, created_at,"
        " last_seen_at, valid_from, content_hash, updated_at) VALUES (?, ?, ?, 'harvested',"
        " ?, 1, 1, 1, printf('%064d', ?), 1)",
        (memory_id, f"memory {memory_id}", category, status, memory_id),
    )


def test_version_3_moves_the_vectors_of_an_older_database_beside_their_sign_bits(
    db_path: Path,
) -> None:
    vectors = {1: _vector(1.0, 0.5), 2: _vector(-1.0, 0.5), 3: _vector(0.5, -1.0)}
    with open_database(db_path, migrations=MIGRATIONS[:2]) as old, old.transaction() as tx:
        for memory_id, status, category in ((1, "active", "pets"), (2, "archived", "pets")):
            _v1_memory(tx, memory_id, status, category)
        _v1_memory(tx, 3, "active", "work")
        for memory_id, vector in vectors.items():
            status, category = ("archived", "pets") if memory_id == 2 else ("active", "x")
            tx.execute(
                "INSERT INTO memory_vectors (memory_id, embedding, status, category)"
                " VALUES (?, vec_f32(?), (SELECT status FROM memories WHERE id = ?),"
                " (SELECT category FROM memories WHERE id = ?))",
                (memory_id, vector, memory_id, memory_id),
            )
        # A vector left behind by a memory that is gone.
        tx.execute(
            "INSERT INTO memory_vectors (memory_id, embedding, status, category)"
            " VALUES (9, vec_f32(?), 'active', 'general')",
            (_vector(1.0),),
        )
        before = {
            int(row[0]): bytes(row[1])
            for row in tx.fetch_all("SELECT memory_id, embedding FROM memory_vectors")
        }

    with open_database(db_path, migrations=MIGRATIONS[:3]) as database:
        assert max(applied_versions(database)) == 3
        moved = database.fetch_all(
            "SELECT memory_id, embedding, signs = vec_quantize_binary(embedding)"
            " FROM memory_embeddings ORDER BY memory_id"
        )
        knn = database.fetch_all(
            "SELECT memory_id FROM memory_vectors WHERE embedding MATCH vec_f32(?)"
            " AND k = 5 AND status = 'archived' AND category = 'pets'",
            (_vector(1.0),),
        )
        store = MemoryStore(database)
        query = np.frombuffer(before[1], np.float32)
        active = [hit.memory.id for hit in store.search_vector(query, k=5)]
        pets = [
            hit.memory.id for hit in store.search_vector(query, k=5, status=None, category="pets")
        ]

    assert [(row[0], bytes(row[1]), row[2]) for row in moved] == [
        (memory_id, before[memory_id], 1) for memory_id in (1, 2, 3)
    ]
    assert [row[0] for row in knn] == [2]
    assert active == [1, 3]
    assert pets == [1, 2]


def test_after_version_3_the_vector_table_keeps_its_old_queries_and_writes(
    db_path: Path,
) -> None:
    with open_database(db_path, migrations=MIGRATIONS[:3]) as db:
        _version_3_vector_table_writes(db)


def _version_3_vector_table_writes(db: Database) -> None:
    with db.transaction() as tx:
        _v1_memory(tx, 1, "active", "pets")
        _v1_memory(tx, 2, "active", "pets")
        for memory_id in (1, 2):
            tx.execute(
                "INSERT INTO memory_vectors (memory_id, embedding, status, category)"
                " VALUES (?, vec_f32(?), 'active', 'pets')",
                (memory_id, _vector(1.0, float(memory_id))),
            )
        tx.execute("UPDATE memory_vectors SET status = 'archived' WHERE memory_id = 2")
        tx.execute("DELETE FROM memory_vectors WHERE memory_id = 1")

    assert db.fetch_value("SELECT count(*) FROM memory_embeddings") == 1
    assert db.fetch_value("SELECT count(*) FROM memory_vector_knn") == 1
    row = db.fetch_one("SELECT status, category FROM memory_vectors WHERE memory_id = 2")
    assert row is not None and tuple(row) == ("archived", "pets")
    logged = db.fetch_all("SELECT memory_id FROM memory_vector_changes ORDER BY seq")
    assert [r[0] for r in logged] == [1, 2, 1]
    with pytest.raises(QueryFailed, match="deleting and inserting"), db.transaction() as tx:
        tx.execute(
            "UPDATE memory_vectors SET embedding = vec_f32(?) WHERE memory_id = 2", (_vector(1.0),)
        )
    with pytest.raises(QueryFailed, match="FOREIGN KEY"), db.transaction() as tx:
        tx.execute(
            "INSERT INTO memory_vectors (memory_id, embedding, status, category)"
            " VALUES (7, vec_f32(?), 'active', 'pets')",
            (_vector(1.0),),
        )
    assert db.fetch_value("SELECT count(*) FROM memory_vector_knn") == 1


def test_the_vector_change_log_keeps_only_its_last_entries(db: Database) -> None:
    with db.transaction() as tx:
        tx.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
            " INSERT INTO memory_vector_changes (memory_id) SELECT i FROM n",
            (schema_v3.LOG_KEPT + 5,),
        )

    kept = db.fetch_one("SELECT count(*), min(seq), max(seq) FROM memory_vector_changes")

    assert kept is not None
    assert tuple(kept) == (schema_v3.LOG_KEPT, 6, schema_v3.LOG_KEPT + 5)


def test_version_4_keeps_every_vector_and_searches_them_by_their_model(db_path: Path) -> None:
    with open_database(db_path, migrations=MIGRATIONS[:3]) as old, old.transaction() as tx:
        for memory_id in (1, 2):
            _v1_memory(tx, memory_id, "active", "pets")
            tx.execute(
                "INSERT INTO memory_vectors (memory_id, embedding, status, category)"
                " VALUES (?, vec_f32(?), 'active', 'pets')",
                (memory_id, _vector(1.0, float(memory_id))),
            )
        tx.execute("UPDATE memories SET embedding_model = 'all-MiniLM-L6-v2@1'")

    with open_database(db_path) as database:
        assert max(applied_versions(database)) == latest_version()
        assert not {"memory_vector_knn", "vector_index_meta"} & _tables(database)
        assert database.fetch_value("SELECT count(*) FROM memory_embeddings") == 2
        old_model = MemoryStore(database, embedding_model=lambda: "all-MiniLM-L6-v2@1")
        new_model = MemoryStore(database, embedding_model=lambda: "bge-small-en-v1.5")
        query = np.array([1.0, 1.0] + [0.0] * 382, np.float32)
        found_by_old = [hit.memory.id for hit in old_model.search_vector(query, k=5)]
        to_embed = [m.id for m in new_model.without_vectors()]
        # A vector of another size, from the new model, is stored beside them.
        wide = np.ones(768, np.float32) / np.sqrt(768)
        assert new_model.set_vector(1, "memory 1", wide, "bge-small-en-v1.5")
        found_by_new = [hit.memory.id for hit in new_model.search_vector(wide, k=5)]
        left = new_model.count_without_vectors()
        found_by_old_after = [hit.memory.id for hit in old_model.search_vector(query, k=5)]

    assert found_by_old == [1, 2]
    assert to_embed == [1, 2]
    assert found_by_new == [1]  # never memory 2's vector of the old model
    assert left == 1
    assert found_by_old_after == [2]
