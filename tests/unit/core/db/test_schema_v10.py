"""Migration 10: the tables of background workers, from a blank database and
from version 9, and the guards of the store over them."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, QueryFailed, open_database
from desktop.core.db.migrations import MIGRATIONS, applied_versions
from desktop.core.db.workers import NewWorker, WorkerStore

_BEFORE_V10 = tuple(m for m in MIGRATIONS if m.version < 10)


def _new(conversation_id: int, *depends_on: int) -> NewWorker:
    return NewWorker(conversation_id, "look it up", "minimal", (), 4, 300.0, depends_on)


def test_a_version_9_database_gains_the_worker_tables_and_keeps_its_conversations(
    tmp_path: Path,
) -> None:
    path = tmp_path / "reverie.sqlite3"
    with open_database(path, migrations=_BEFORE_V10) as old:
        assert max(applied_versions(old)) == 9
        kept = ConversationStore(old).create("before workers")

    with open_database(path) as database:
        assert 10 in applied_versions(database)
        store = WorkerStore(database)
        with store.transaction() as tx:
            worker_id = store.add(_new(kept.id), tx)
        assert [c.title for c in ConversationStore(database).list()] == ["before workers"]
        assert store.get(worker_id) is not None


def test_the_tables_refuse_what_they_cannot_mean(tmp_path: Path) -> None:
    with open_database(tmp_path / "reverie.sqlite3") as database:
        conversation = ConversationStore(database).create("c")
        store = WorkerStore(database)
        with store.transaction() as tx:
            first = store.add(_new(conversation.id), tx)
        bad = [
            "UPDATE workers SET state = 'sleeping' WHERE id = ?",
            "UPDATE workers SET mode = 'maximal' WHERE id = ?",
            "UPDATE workers SET depth = 3 WHERE id = ?",
            "UPDATE workers SET tools = '{}' WHERE id = ?",
            "INSERT INTO worker_dependencies (worker_id, depends_on) VALUES (?1, ?1)",
            "INSERT INTO worker_dependencies (worker_id, depends_on) VALUES (?1, 999)",
        ]
        for sql in bad:
            with pytest.raises(QueryFailed), database.transaction() as tx:
                tx.execute(sql, (first,))


def test_a_worker_is_claimed_once_and_an_ended_one_never_changes(tmp_path: Path) -> None:
    with open_database(tmp_path / "reverie.sqlite3") as database:
        conversation = ConversationStore(database).create("c")
        store = WorkerStore(database)
        with store.transaction() as tx:
            worker_id = store.add(_new(conversation.id), tx)

        first = store.claim(worker_id, "runner-a", now=1.0)
        again = store.claim(worker_id, "runner-a", now=1.0)
        with store.transaction() as tx:
            ended = store.finish(worker_id, "completed", "found it", tx)
        with store.transaction() as tx:
            ended_again = store.finish(worker_id, "failed", "late", tx)
            cancelled = store.cancel(worker_id, tx)
        taken_by_next_process = store.claim(worker_id, "runner-b", now=2.0)

        assert first is not None and first.state == "running"
        assert (again, ended, ended_again, cancelled) == (None, True, False, [])
        assert taken_by_next_process is None
        worker = store.get(worker_id)
        assert worker is not None
        assert (worker.state, worker.result, worker.failure) == ("completed", "found it", None)


def test_erasing_the_conversation_erases_its_workers_and_what_they_said(tmp_path: Path) -> None:
    with open_database(tmp_path / "reverie.sqlite3") as database:
        conversation = ConversationStore(database).create("c")
        store = WorkerStore(database)
        with store.transaction() as tx:
            first = store.add(_new(conversation.id), tx)
            store.add(_new(conversation.id, first), tx)
        store.add_message(first, "user", "the objective")
        with database.transaction() as tx:
            tx.execute("DELETE FROM conversations WHERE id = ?", (conversation.id,))

        counts = [
            database.fetch_value(f"SELECT count(*) FROM {table}")
            for table in ("workers", "worker_dependencies", "worker_messages")
        ]
        assert counts == [0, 0, 0]
