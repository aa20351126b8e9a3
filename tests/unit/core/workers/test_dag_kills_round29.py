"""Round 29: a run of a worker DAG killed (SIGKILL) before or just after
any SQL statement (workers completing, one failing and the worker behind it
failing too, one cancelled with the worker waiting on it), then started
again as the next start does (``recover``, then what is ready runs): the
database is whole, every worker ends, and each one's end is reported into
its conversation exactly once, whatever the statement the kill fell on."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.db.message_kinds import WORKER_REPORT
from tests.children import heard, killed_in_copy, run_child
from tests.unit.core.workers.dag_child import OBJECTIVES, drain, plan, workers_of

CHILD = "tests.unit.core.workers.dag_child"
INSIDE_STRIDE = 4
"""Every fourth statement inside a transaction: a child takes seconds to start."""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A conversation with ``OBJECTIVES``' workers spawned, none run yet."""
    path = tmp_path_factory.mktemp("dag-kill") / "reverie.sqlite3"
    with open_database(path) as database, workers_of(database) as workers:
        plan(workers, ConversationStore(database).create("plans").id)
    return path


def _reported(database: Database) -> Counter[int]:
    """How many reports named each worker."""
    found = database.fetch_all(
        "SELECT value FROM messages, json_each(json_extract(metadata, '$.workers'))"
        " WHERE json_extract(metadata, '$.kind') = ?",
        (WORKER_REPORT,),
    )
    return Counter(int(row[0]) for row in found)


def _states(database: Database) -> dict[str, str]:
    return {r[0]: r[1] for r in database.fetch_all("SELECT objective, state FROM workers")}


def _started_again(database: Database) -> None:
    """The next start: ends left unreported are reported, what is ready runs;
    then the user cancels "later" again if the kill came before the cancel."""
    with workers_of(database) as workers:
        workers.recover()
        drain(workers)
        later = database.fetch_value(
            "SELECT id FROM workers WHERE objective = 'later' AND state = 'waiting_time'"
        )
        if later is not None:
            workers.cancel(int(later))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_dag_killed_anywhere_ends_every_worker_and_reports_each_once(
    base: Path, tmp_path: Path
) -> None:
    whole = tmp_path / "whole" / "reverie.sqlite3"
    whole.parent.mkdir()
    shutil.copy(base, whole)
    finished = run_child(CHILD, whole, "0")
    assert finished.returncode == 0, finished.stderr
    counts = heard(finished.stdout)
    with open_database(whole) as database:
        assert _reported(database) == Counter(range(1, len(OBJECTIVES) + 1))
        expected = _states(database)
    assert expected == {
        "fetch": "completed",
        "clean": "failed",
        "chart": "failed",
        "aside": "completed",
        "later": "cancelled",
        "after later": "failed",
    }

    # Each commit, and the statement before it (its transaction's last
    # write) killed before it ran, and every fourth statement inside a
    # transaction: of 20 transactions, 135 statements, 57 kills.
    commits = counts.commits
    points = [f"{n}+" for n in commits] + [str(n - 1) for n in commits]
    points += [str(n) for n in counts.inside[::INSIDE_STRIDE]]
    wrong: list[str] = []
    for kill_at in dict.fromkeys(points):
        copy = tmp_path / f"kill-{kill_at}" / "reverie.sqlite3"
        killed_in_copy(base, copy, CHILD, kill_at=kill_at)
        with open_database(copy) as database:
            assert database.fetch_value("PRAGMA integrity_check") == "ok"
            _started_again(database)
            states, reported = _states(database), _reported(database)
        if states != expected:
            wrong.append(f"killed at {kill_at} of {counts.count}: {states}")
        if set(reported.values()) != {1} or len(reported) != len(OBJECTIVES):
            wrong.append(f"killed at {kill_at} of {counts.count}: reported {dict(reported)}")
    assert wrong == []
