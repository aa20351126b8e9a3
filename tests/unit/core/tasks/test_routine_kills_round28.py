"""Round 28: the due reminders and routines, killed (SIGKILL) before or
just after any SQL statement of their run, then run again as the next start
does: a reminder says its run exactly once, a routine at most once (its run
is recorded before the model is asked: a kill while it answers says
nothing, round 9), nothing twice, and each task's next run is the one
after, whatever the statement the kill fell on."""

from __future__ import annotations

import shutil
from collections import Counter
from datetime import time
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.db.schedules import Daily
from desktop.core.tasks.routines import KIND, TASK
from tests.children import heard, killed_in_copy, run_child
from tests.unit.core.tasks.routine_child import run_due, tasks_at_now
from tests.unit.core.tasks.test_routines import at

CHILD = "tests.unit.core.tasks.routine_child"
TASKS = {"Water the plants": None, "Stretch": "Say a stretch to do.", "Call Ana": None}
ROUTINE = 2
"""The id of the one routine ("Stretch"); the others are reminders."""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three daily tasks (two reminders and a routine), all due at 09:00."""
    path = tmp_path_factory.mktemp("routine-kill") / "reverie.sqlite3"
    with open_database(path) as database:
        tasks = tasks_at_now(database)
        conversation = ConversationStore(database).create("mornings").id
        for text, prompt in TASKS.items():
            task = tasks.add(
                text, conversation_id=conversation, schedule=Daily(time(9)), ai_prompt=prompt
            )
            database._execute(  # made the day before: today's 09:00 run is due
                "UPDATE tasks SET next_run_at = ? WHERE id = ?",
                (at("2026-11-23 09:00").timestamp(), task.id),
            )
    return path


def _said(database: Database) -> Counter[int]:
    """How many times each task's run was said in a conversation, by task id."""
    found = database.fetch_all(
        f"SELECT json_extract(metadata, '$.{TASK}') FROM messages"
        f" WHERE json_extract(metadata, '$.{KIND}') IN ('reminder', 'routine')"
    )
    return Counter(row[0] for row in found)


def _next_runs(database: Database) -> dict[str, float]:
    return {r[0]: r[1] for r in database.fetch_all("SELECT text, next_run_at FROM tasks")}


@pytest.mark.slow
def test_runs_killed_anywhere_are_said_once_and_move_on_once(base: Path, tmp_path: Path) -> None:
    whole = tmp_path / "whole" / "reverie.sqlite3"
    whole.parent.mkdir()
    shutil.copy(base, whole)
    finished = run_child(CHILD, whole, "0")
    assert finished.returncode == 0, finished.stderr
    counts = heard(finished.stdout)
    with open_database(whole) as database:
        expected = (_said(database), _next_runs(database))
    assert expected[0] == Counter([1, 2, 3])  # each said once when nothing is killed

    points = [f"{n}{after}" for n in counts.inside for after in ("", "+")]
    points += [f"{n}+" for n in counts.commits]
    wrong: list[str] = []
    for kill_at in sorted(set(points)):
        copy = tmp_path / f"kill-{kill_at}" / "reverie.sqlite3"
        killed_in_copy(base, copy, CHILD, kill_at=kill_at)
        with open_database(copy) as database:
            assert database.fetch_value("PRAGMA integrity_check") == "ok"
            run_due(database)  # the next start
            found = (_said(database), _next_runs(database))
        said, next_runs = found
        if said - Counter({ROUTINE: 1}) != expected[0] - Counter({ROUTINE: 1}) or said[ROUTINE] > 1:
            wrong.append(f"killed at {kill_at} of {counts.count}: said {dict(said)}")
        if next_runs != expected[1]:
            wrong.append(f"killed at {kill_at} of {counts.count}: next runs {next_runs}")
    assert wrong == []
