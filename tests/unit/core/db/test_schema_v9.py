"""Migration 9: a task keeps when it was opened again after being completed
(``reopened_at``), so the words it was completed on do not complete it
again (round 14)."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.db import open_database
from desktop.core.db.migrations import MIGRATIONS, applied_versions
from desktop.core.db.tasks import TaskStore
from tests.unit.core.db.conftest import START, FakeClock

_BEFORE_V9 = tuple(m for m in MIGRATIONS if m.version < 9)


def test_a_version_8_database_learns_when_a_dream_completion_was_undone(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    with open_database(path, migrations=_BEFORE_V9) as old, old.transaction() as tx:
        assert max(applied_versions(old)) == 8
        run = tx.fetch_value(
            "INSERT INTO dream_runs (trigger, status, created_at) VALUES ('manual', 'completed', ?)"
            " RETURNING id",
            (START,),
        )
        ids = {}
        for text in ("Call the dentist", "Water the plants", "File the taxes"):
            ids[text] = tx.fetch_value(
                "INSERT INTO tasks (text, status, created_at, updated_at)"
                " VALUES (?, 'active', ?, ?) RETURNING id",
                (text, START, START),
            )
        changes = [
            # undone twice: the last undo counts
            ("Call the dentist", "task_complete", "reverted", START + 10),
            ("Call the dentist", "task_complete", "reverted", START + 50),
            ("Water the plants", "task_update", "reverted", START + 20),  # not a completion
            ("File the taxes", "task_complete", "applied", START + 30),  # never undone
        ]
        for text, kind, status, decided in changes:
            tx.execute(
                "INSERT INTO dream_changes (dream_run_id, pass, kind, summary, payload, status,"
                " created_at, decided_at) VALUES (?, 'tasks', ?, 's', ?, ?, ?, ?)",
                (run, kind, json.dumps({"task": ids[text]}), status, START, decided),
            )

    with open_database(path) as database:
        assert 9 in applied_versions(database)
        reopened = {t.text: t.reopened_at for t in TaskStore(database).list()}

    assert reopened == {
        "Call the dentist": START + 50,
        "Water the plants": None,
        "File the taxes": None,
    }


def test_putting_a_completed_task_back_open_reopens_it_and_nothing_else_does(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    with open_database(tmp_path / "reverie.sqlite3") as database:
        tasks = TaskStore(database, clock=clock)
        task = tasks.add("Call the dentist", conversation_id=None)
        with database.transaction() as tx:
            before = TaskStore.state(tx, task.id)
        clock.advance(10)
        tasks.complete(task.id)
        clock.advance(10)
        with database.transaction() as tx:
            tasks.put_back(tx, task.id, before)  # the completion undone
        reopened = tasks.get(task.id)
        clock.advance(10)
        with database.transaction() as tx:
            tasks.put_back(tx, task.id, {**before, "text": "Call the dentist at 9"})

        assert reopened is not None
        assert (reopened.status, reopened.reopened_at) == ("active", START + 20)
        assert tasks.get(task.id).reopened_at == START + 20  # type: ignore[union-attr]
        assert tasks.add("Water the plants", conversation_id=None).reopened_at is None
