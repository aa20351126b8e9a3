"""Tests of migration 1's schema: tables, constraints, cascades, full-text sync."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.db.connection import Database
from desktop.core.db.errors import QueryFailed
from desktop.core.db.migrations import MIGRATIONS
from desktop.core.db.opening import open_database
from desktop.core.db.schema_v1 import APPLICATION_ID, VECTOR_DIMENSION

NOW = 1_700_000_000.0

TABLES = {
    "conversations",
    "messages",
    "messages_fts",
    "memories",
    "memories_fts",
    "memory_sources",
    "memory_history",
    "skills",
    "skill_usage",
    "tasks",
    "dream_runs",
    "background_jobs",
}


def _run(db: Database, *statements: str) -> None:
    with db.transaction() as tx:
        for statement in statements:
            tx.execute(statement)


def _conversation_with_message(db: Database) -> None:
    _run(
        db,
        "INSERT INTO conversations (id, title, created_at, updated_at)"
        f" VALUES (1, 't', {NOW}, {NOW})",
        "INSERT INTO messages (id, conversation_id, role, content, created_at)"
        f" VALUES (10, 1, 'user', 'I walk my dog Rex every morning', {NOW})",
    )


def _memory(db: Database, memory_id: int = 1) -> None:
    _run(
        db,
        "INSERT INTO memories (id, content, source_kind, created_at, last_seen_at, valid_from,"
        f" content_hash, updated_at) VALUES ({memory_id}, 'Has a dog called Rex', 'harvested',"
        f" {NOW}, {NOW}, {NOW}, '{'a' * 64}', {NOW})",
    )


def test_every_table_exists(db: Database) -> None:
    names = {row[0] for row in db.fetch_all("SELECT name FROM sqlite_master")}

    assert names >= TABLES


def test_the_file_is_marked_as_reverie_s(db: Database) -> None:
    assert db.pragma("application_id") == APPLICATION_ID


@pytest.fixture
def db_v1(db_path: Path) -> Iterator[Database]:
    """A database with migration 1 only: its vector table (gone since migration 4)."""
    database = open_database(db_path, migrations=MIGRATIONS[:1])
    yield database
    database.close()


def test_the_vector_table_records_its_dimension(db_v1: Database) -> None:
    db = db_v1
    assert {"memory_vectors", "vector_index_meta"} <= {
        row[0] for row in db.fetch_all("SELECT name FROM sqlite_master")
    }
    row = db.fetch_one("SELECT * FROM vector_index_meta WHERE table_name = 'memory_vectors'")

    assert row is not None
    assert (row["dimension"], row["distance_metric"]) == (VECTOR_DIMENSION, "cosine")
    assert row["embedding_model"] is None
    assert row["updated_at"] > NOW  # set from the database's clock at migration time


def test_defaults_of_a_memory(db: Database) -> None:
    _memory(db)
    row = db.fetch_one("SELECT * FROM memories WHERE id = 1")

    assert row is not None
    assert (row["category"], row["importance"], row["reinforcement_count"]) == ("general", 0.5, 1)
    assert (row["pinned"], row["status"], row["superseded_by"]) == (0, "active", None)


@pytest.mark.parametrize(
    ("statement", "reason"),
    [
        ("UPDATE messages SET role = 'robot'", "role IN"),
        ("UPDATE messages SET token_count = -1", "token_count >= 0"),
        ("UPDATE messages SET metadata = '{not json'", "json_valid(metadata)"),
        ("UPDATE conversations SET off_record = 2", "off_record IN"),
        ("UPDATE conversations SET created_at = 'yesterday'", "cannot store TEXT value in REAL"),
        ("UPDATE memories SET importance = 1.5", "importance BETWEEN"),
        ("UPDATE memories SET source_kind = 'rumour'", "source_kind IN"),
        ("UPDATE memories SET status = 'forgotten'", "status IN"),
        ("UPDATE memories SET reinforcement_count = 0", "reinforcement_count >= 1"),
        ("UPDATE memories SET content = '   '", "length(trim(content))"),
        ("UPDATE memories SET flags = '\"instruction_like\"'", "json_type(flags)"),
        ("UPDATE memories SET valid_to = valid_from - 1", "valid_to >= valid_from"),
        ("UPDATE memories SET superseded_by = 1", "status = 'superseded'"),
        ("INSERT INTO memory_sources (memory_id) VALUES (1)", "(external_ref IS NULL)"),
        (
            "INSERT INTO memory_sources (memory_id, message_id, external_ref) VALUES (1, 10, 'x')",
            "(external_ref IS NULL)",
        ),
        (
            "INSERT INTO memory_history (memory_id, operation, actor, created_at)"
            f" VALUES (1, 'add', 'somebody', {NOW})",
            "actor IN",
        ),
        (
            "INSERT INTO memory_history (memory_id, operation, actor, created_at)"
            f" VALUES (1, 'explode', 'user', {NOW})",
            "operation IN",
        ),
        (
            "INSERT INTO tasks (text, priority, created_at, updated_at)"
            f" VALUES ('t', 11, {NOW}, {NOW})",
            "priority BETWEEN 1 AND 10",
        ),
        (
            "INSERT INTO tasks (text, schedule_kind, created_at, updated_at)"
            f" VALUES ('t', 'hourly', {NOW}, {NOW})",
            "schedule_kind IN",
        ),
        (
            "INSERT INTO tasks (text, schedule_spec, created_at, updated_at)"
            f" VALUES ('t', '{{}}', {NOW}, {NOW})",
            "schedule_kind IS NOT NULL",
        ),
        (
            "INSERT INTO dream_runs (trigger, status, created_at)"
            f" VALUES ('idle', 'asleep', {NOW})",
            "'paused'",
        ),
        (
            "INSERT INTO background_jobs (kind, status, created_at, updated_at)"
            f" VALUES ('embed', 'lost', {NOW}, {NOW})",
            "'done'",
        ),
        (
            "INSERT INTO skills (name, file_name, status, created_at, updated_at)"
            f" VALUES ('s', 's.md', 'retired', {NOW}, {NOW})",
            "'draft'",
        ),
        (
            "INSERT INTO messages (conversation_id, role, content, created_at)"
            f" VALUES (999, 'user', 'orphan', {NOW})",
            "FOREIGN KEY",
        ),
    ],
)
def test_constraints_reject_bad_rows(db: Database, statement: str, reason: str) -> None:
    _conversation_with_message(db)
    _memory(db)

    with pytest.raises(QueryFailed, match=re.escape(reason)):
        _run(db, statement)


def test_skill_names_are_unique_regardless_of_case(db: Database) -> None:
    insert = (
        "INSERT INTO skills (name, file_name, created_at, updated_at)"
        f" VALUES ('{{}}', 'x.md', {NOW}, {NOW})"
    )
    _run(db, insert.format("Cooking"))

    with pytest.raises(QueryFailed, match="UNIQUE"):
        _run(db, insert.format("cooking"))


def test_deleting_a_conversation_cascades_but_keeps_provenance(db: Database) -> None:
    _conversation_with_message(db)
    _memory(db)
    _run(
        db,
        "INSERT INTO memory_sources (memory_id, message_id) VALUES (1, 10)",
        "INSERT INTO tasks (conversation_id, text, created_at, updated_at)"
        f" VALUES (1, 't', {NOW}, {NOW})",
        "INSERT INTO skills (id, name, file_name, created_at, updated_at)"
        f" VALUES (1, 's', 's.md', {NOW}, {NOW})",
        f"INSERT INTO skill_usage (skill_id, conversation_id, used_at) VALUES (1, 1, {NOW})",
    )

    _run(db, "DELETE FROM conversations WHERE id = 1")

    assert db.fetch_value("SELECT count(*) FROM messages") == 0
    assert db.fetch_value("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'dog'") == 0
    assert db.fetch_value("SELECT conversation_id FROM tasks") is None
    assert db.fetch_value("SELECT conversation_id FROM skill_usage") is None
    assert db.fetch_value("SELECT message_id FROM memory_sources WHERE memory_id = 1") == 10


def test_forgetting_a_memory_takes_its_sources_and_history(db: Database) -> None:
    _memory(db)
    _run(
        db,
        "INSERT INTO memory_sources (memory_id, external_ref) VALUES (1, 'bench:turn-3')",
        "INSERT INTO memory_history (memory_id, operation, new_content, actor, created_at)"
        f" VALUES (1, 'add', 'Has a dog called Rex', 'harvest', {NOW})",
    )

    _run(db, "DELETE FROM memories WHERE id = 1")

    assert db.fetch_value("SELECT count(*) FROM memory_sources") == 0
    assert db.fetch_value("SELECT count(*) FROM memory_history") == 0
    assert db.fetch_value("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'rex'") == 0


def test_message_search_follows_edits(db: Database) -> None:
    _conversation_with_message(db)

    _run(db, "UPDATE messages SET content = 'I feed my cat Tom' WHERE id = 10")

    def hits(word: str) -> int:
        return int(
            db.fetch_value("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (word,))
        )

    assert (hits("dog"), hits("cat")) == (0, 1)
    assert hits("feeding") == 1  # porter stemming


def test_memory_search_folds_accents_and_stems(db: Database) -> None:
    _run(
        db,
        "INSERT INTO memories (content, source_kind, created_at, last_seen_at, valid_from,"
        f" content_hash, updated_at) VALUES ('Loves the café on Rue Cler', 'harvested',"
        f" {NOW}, {NOW}, {NOW}, '{'b' * 64}', {NOW})",
    )

    found = db.fetch_value("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'cafe love'")

    assert found == 1


def test_memory_vectors_have_filterable_metadata(db_v1: Database) -> None:
    db = db_v1
    vector = "[" + ", ".join(["0.5"] * VECTOR_DIMENSION) + "]"
    _memory(db)
    _run(
        db,
        "INSERT INTO memory_vectors (memory_id, embedding, status, category)"
        f" VALUES (1, vec_f32('{vector}'), 'archived', 'pets')",
    )

    def knn(status: str) -> list[int]:
        rows = db.fetch_all(
            "SELECT memory_id FROM memory_vectors WHERE embedding MATCH vec_f32(?)"
            " AND k = 5 AND status = ? AND category = 'pets'",
            (vector, status),
        )
        return [row[0] for row in rows]

    assert knn("active") == []
    assert knn("archived") == [1]
