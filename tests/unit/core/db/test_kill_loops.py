"""Kill loops: SIGKILL at random moments of a dream and of a stream of writes.

A child process (``kill_child``) dreams, or writes memories and messages,
over one database; it is killed a random moment after it starts, again and
again over the same files.  After each kill the database must open, pass
``PRAGMA integrity_check`` and the full-text indexes' own checks, hold every
write the child said had committed (and any it had only begun either whole
or not at all), and every safety copy that counts must be whole.

The test runs a modest round; a bigger one by hand:

    python -m tests.unit.core.db.test_kill_loops [--trials 100]
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from desktop.core.db import Database, MemoryStore, open_database
from desktop.core.db.errors import QueryFailed
from desktop.core.dreaming.snapshots import complete_snapshots
from tests.children import READY_S, start_ready

CHILD = "tests.unit.core.db.kill_child"
CHILD_ROUNDS = 10_000
"""More rounds than a child lives (it is killed within seconds)."""
TRIALS = 10
LONGEST_S = {"dream": 2.0, "writes": 1.0}
"""How long after it started a child may live: a kill lands anywhere within."""


@dataclass
class Round:
    """What a round of kills found."""

    mode: str
    trials: int = 0
    confirmed: int = 0
    """Writes the children said had committed (each checked after every later kill)."""
    cut_midway: dict[str, int] = field(default_factory=dict)
    """Kills that landed after a write began and before it was confirmed, by kind."""
    kept_midway: int = 0
    """Of those, the writes found whole in the database anyway."""

    def cut(self, kind: str) -> None:
        self.cut_midway[kind] = self.cut_midway.get(kind, 0) + 1

    problems: list[str] = field(default_factory=list)


def _start(mode: str, database: Path, journal: Path, seed: int) -> subprocess.Popen[str]:
    return start_ready(["-m", CHILD, mode, str(database), str(journal), str(seed)], mode)


def _kill_after(child: subprocess.Popen[str], seconds: float) -> None:
    """SIGKILL *child* once *seconds* have passed (it never ends by itself)."""
    try:
        code = child.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGKILL)
        child.wait(READY_S)
    else:
        raise AssertionError(f"the child ended by itself with {code}")
    finally:
        assert child.stdout is not None
        child.stdout.close()


def _journal(path: Path) -> list[tuple[bool, dict[str, Any]]]:
    """Each write the children began, in order, and whether it was confirmed."""
    writes: list[tuple[bool, dict[str, Any]]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        begun = entry.pop("stage") == "begin"
        if not begun and writes and not writes[-1][0] and writes[-1][1]["kind"] == entry["kind"]:
            writes[-1] = (True, entry)  # the write begun last, confirmed
        else:
            writes.append((not begun, entry))  # begun, or said as found
    return writes


def _database_problems(database: Database) -> list[str]:
    problems = []
    verdict = [row[0] for row in database.fetch_all("PRAGMA integrity_check")]
    if verdict != ["ok"]:
        problems.append(f"integrity_check: {verdict[:3]}")
    for index in ("memories_fts", "messages_fts"):
        try:  # rank 1: checked against the table it indexes, not only itself
            with database.transaction() as tx:
                tx.execute(f"INSERT INTO {index} ({index}, rank) VALUES ('integrity-check', 1)")
        except QueryFailed as error:  # SQLite's word on a damaged index: the finding
            problems.append(f"{index}: {error}")
    return problems


def _snapshot_problems(folder: Path) -> list[str]:
    problems = []
    for copy in complete_snapshots(folder) if folder.is_dir() else []:
        with open_database(copy) as snapshot:
            if snapshot.fetch_value("PRAGMA integrity_check") != "ok":
                problems.append(f"snapshot {copy.name} is damaged")
            if (
                snapshot.fetch_value("SELECT count(*) FROM sqlite_master WHERE name = 'memories'")
                != 1
            ):
                problems.append(f"snapshot {copy.name} counts but has no tables")
    return problems


def _memory(database: Database, memory_id: int) -> tuple[str, str] | None:
    row = database.fetch_one("SELECT content, status FROM memories WHERE id = ?", (memory_id,))
    return None if row is None else (row[0], row[1])


State = tuple[str, str]
"""A memory's content and status."""


def _possible_states(writes: list[tuple[bool, dict[str, Any]]]) -> dict[int, set[State]]:
    """What each memory may hold now: a confirmed write decides it, one cut
    short leaves it as it was or as the write made it (nothing between)."""
    states: dict[int, set[State]] = {}
    for confirmed, write in writes:
        kind = write["kind"]
        if kind in ("add", "found") and confirmed:
            states[write["id"]] = {(write["content"], "active")}
        elif kind == "update":
            made = {(write["content"], status) for _, status in states[write["id"]]}
            states[write["id"]] = made if confirmed else states[write["id"]] | made
        elif kind == "delete":
            made = {(content, "deleted") for content, _ in states[write["id"]]}
            states[write["id"]] = made if confirmed else states[write["id"]] | made
    return states


def _writes_problems(database: Database, journal: Path, found: Round) -> list[str]:
    """Every confirmed write is there; each one cut short is whole or absent."""
    writes = _journal(journal)
    found.confirmed = sum(confirmed for confirmed, w in writes if w["kind"] != "found")
    problems = []
    # Read at once: a round's journal names thousands of rows.
    memories = {
        row[0]: (row[1], row[2])
        for row in database.fetch_all("SELECT id, content, status FROM memories")
    }
    stored = {
        "memories": Counter(content for content, _ in memories.values()),
        "messages": Counter(r[0] for r in database.fetch_all("SELECT content FROM messages")),
    }
    for memory_id, possible in _possible_states(writes).items():
        if (state := memories.get(memory_id)) not in possible:
            problems.append(f"memory {memory_id} is {state}, not one of {possible}")
    for confirmed, write in writes:
        table = {"add": "memories", "message": "messages"}.get(write["kind"])
        if table is None:
            continue
        rows = stored[table][write["content"]]
        # A confirmed add is checked by its id above (an edit may have changed its words).
        if rows > 1 or (confirmed and table == "messages" and rows != 1):
            problems.append(f"{write['kind']} {write['content'][:20]!r} stored {rows} times")
    last_confirmed, last = writes[-1] if writes else (True, {})
    if not last_confirmed:  # this kill cut a write short: was it kept?
        found.cut(last["kind"])
        state = _memory(database, last["id"]) if "id" in last else None
        if last["kind"] in ("add", "message"):
            table = "memories" if last["kind"] == "add" else "messages"
            found.kept_midway += database.fetch_value(
                f"SELECT count(*) FROM {table} WHERE content = ?", (last["content"],)
            )
        elif last["kind"] == "update":
            found.kept_midway += state is not None and state[0] == last["content"]
        else:
            found.kept_midway += state is not None and state[1] == "deleted"
    return problems


def _dream_problems(database: Database, journal: Path, found: Round) -> list[str]:
    """Every confirmed memory is there (merged or not), every confirmed
    dream is recorded as it ended, and at most one dream is left running."""
    writes = _journal(journal)
    found.confirmed = sum(confirmed for confirmed, _ in writes)
    problems = []
    for confirmed, write in writes:
        if write["kind"] == "memory":
            # A merge may store the same words again, as the dream's own memory.
            rows = database.fetch_value(
                "SELECT count(*) FROM memories WHERE content = ? AND source_kind = 'harvested'",
                (write["content"],),
            )
            if rows > 1 or (confirmed and rows != 1):
                problems.append(f"memory {write['content']!r} stored {rows} times")
            if confirmed and _memory(database, write["id"]) is None:
                problems.append(f"memory {write['id']} lost")
        elif confirmed:
            status = database.fetch_value(
                "SELECT status FROM dream_runs WHERE id = ?", (write["id"],)
            )
            if status != write["status"]:
                problems.append(f"dream {write['id']} is {status}, not {write['status']}")
    last_confirmed, last = writes[-1] if writes else (True, {})
    if not last_confirmed:
        found.cut(last["kind"])
        if last["kind"] == "memory":
            found.kept_midway += database.fetch_value(
                "SELECT count(*) FROM memories WHERE content = ? AND source_kind = 'harvested'",
                (last["content"],),
            )
    running = database.fetch_value(
        "SELECT count(*) FROM dream_runs WHERE status IN ('running', 'paused')"
    )
    if running > 1:
        problems.append(f"{running} dreams left running")
    return problems


def kill_round(mode: str, folder: Path, trials: int, seed: int) -> Round:
    """Start and kill a *mode* child *trials* times over one database in *folder*."""
    database_path, journal = folder / "reverie.sqlite3", folder / "journal.jsonl"
    open_database(database_path).close()  # migrated before any child: kills land in the work
    journal.touch()
    chance = random.Random(seed)
    found = Round(mode)
    for trial in range(trials):
        # Each child counts its rounds from a number of its own: no text repeats another's.
        child = _start(mode, database_path, journal, (seed * 1000 + trial) * CHILD_ROUNDS)
        _kill_after(child, chance.uniform(0.0, LONGEST_S[mode]))
        found.trials += 1
        with open_database(database_path) as database:
            problems = _database_problems(database)
            check = _dream_problems if mode == "dream" else _writes_problems
            problems += check(database, journal, found)
        problems += _snapshot_problems(folder / "snapshots")
        found.problems += [f"trial {trial}: {p}" for p in problems]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["dream", "writes"])
def test_a_kill_anywhere_loses_no_committed_write_and_damages_nothing(
    tmp_path: Path, mode: str
) -> None:
    found = kill_round(mode, tmp_path, TRIALS, seed=20261124)

    assert found.problems == []
    assert found.trials == TRIALS
    assert found.confirmed > TRIALS  # the children got well into their work
    assert sum(found.cut_midway.values()) > 0  # some kills landed inside a write


def test_the_checks_see_a_lost_write_and_a_half_write(
    tmp_path: Path,
) -> None:
    # The loops above can fail: what they look for is found when it is there.
    journal = tmp_path / "journal.jsonl"
    kept = {"kind": "add", "id": 1, "content": "The user's dog is Rex."}
    lost = {"kind": "message", "id": 7, "content": "Hello."}
    half = {"kind": "update", "id": 1, "content": "The user's dog is Max."}
    journal.write_text(
        "".join(
            json.dumps({"stage": stage, **w}) + "\n"
            for stage, w in [
                ("begin", kept),
                ("done", kept),
                ("begin", lost),
                ("done", lost),
                ("begin", half),
            ]
        )
    )
    with open_database(tmp_path / "reverie.sqlite3") as database:
        MemoryStore(database).add(
            "The user's dog is R", embedding=None, source_kind="harvested", actor="harvest"
        )

        problems = _writes_problems(database, journal, Round("writes"))

    assert problems == [
        "memory 1 is (\"The user's dog is R\", 'active'), not one of "
        + str({("The user's dog is Rex.", "active"), ("The user's dog is Max.", "active")}),
        "message 'Hello.' stored 0 times",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A bigger round of kills, by hand.")
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--folder", type=Path, required=True, help="an empty folder of yours")
    parser.add_argument("--mode", choices=["dream", "writes"], action="append")
    args = parser.parse_args(argv)
    for mode in args.mode or ["dream", "writes"]:
        (args.folder / mode).mkdir(parents=True)
        found = kill_round(mode, args.folder / mode, args.trials, args.seed)
        print(
            f"{mode}: {found.trials} kills, {found.confirmed} committed writes checked, "
            f"kills inside a write: {found.cut_midway} ({found.kept_midway} kept whole), "
            f"{len(found.problems)} problems"
        )
        for problem in found.problems:
            print("  " + problem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
