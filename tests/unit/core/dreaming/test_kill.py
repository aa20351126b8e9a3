"""Killing a dream (SIGKILL) anywhere loses nothing, and the next dream finishes it.

A dream runs in a child process (``dream_child``) over a copy of one store
holding duplicates, a contradiction and stale memories.  The test lets it
take a random number of steps, lets one more start and kills it a random
moment later (mid-answer, mid-transaction, mid-snapshot), then checks the
file: it passes ``PRAGMA integrity_check``, every memory that existed is
still there, active, archived or superseded with a pointer, and vectors and
memories match one to one.  A rerun without stopping completes the dream.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import Database, MemoryStore, open_database
from desktop.core.memory.embedding import Embeddings
from desktop.core.memory.gate import WriteGate
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from tests.dreams import add_memory
from tests.fakes import HashingEmbedder
from tests.unit.core.db.conftest import FakeClock

ROOT = Path(__file__).resolve().parents[4]
KILLS = 12
DAY = 86_400.0
MEMORIES = [
    "The user has a dog named Rex",
    "The user has a dog called Rex",
    "The user lives in Rome",
    "The user lives in Oslo",
    "The user plays the cello on Sundays.",
    "The user's sister Ana works in Porto.",
]
STALE = ["The user once tried pottery.", "The user once visited Graz."]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store every killed dream starts from (stale memories seen 120 days ago)."""
    folder = tmp_path_factory.mktemp("kill-base")
    path = folder / "reverie.sqlite3"
    database = open_database(path)
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_embedder(HashingEmbedder).result(timeout=5)
        clock = FakeClock(time.time() - 120 * DAY)
        prompts = PromptLibrary(folder / "prompts")
        old = MemoryService(
            MemoryStore(database, clock=clock), Embeddings(broker), WriteGate.for_prompts(prompts)
        )
        for text in STALE:
            add_memory(old, text)
        memories = MemoryService(
            MemoryStore(database), Embeddings(broker), WriteGate.for_prompts(prompts)
        )
        for text in MEMORIES:
            add_memory(memories, text)
    finally:
        broker.stop()
        database.close()
    return path


def _child(database: Path, folder: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.unit.core.dreaming.dream_child", str(database), str(folder)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _problems(database: Database, before: set[int]) -> list[str]:
    """What is wrong with the file after a kill (nothing, if all is well)."""
    found = []
    if database.fetch_value("PRAGMA integrity_check") != "ok":
        found.append("integrity_check failed")
    rows = {r["id"]: r for r in database.fetch_all("SELECT * FROM memories")}
    for memory_id in before:
        row = rows.get(memory_id)
        if row is None:
            found.append(f"memory #{memory_id} is gone")
        elif row["status"] not in ("active", "superseded", "archived"):
            found.append(f"memory #{memory_id} is {row['status']}")
        elif row["status"] == "superseded" and row["superseded_by"] not in rows:
            found.append(f"memory #{memory_id} is superseded by nothing")
    vectors = database.fetch_all(
        "SELECT memory_id, signs = vec_quantize_binary(embedding) FROM memory_embeddings"
    )
    ids = [v[0] for v in vectors]
    for memory_id, signs_match in vectors:
        if memory_id not in rows:
            found.append(f"memory #{memory_id} is gone but its vector is not")
        if not signs_match:
            found.append(f"the sign bits of #{memory_id} do not match its vector")
    for memory_id, row in rows.items():
        if row["embedding_model"] is not None and memory_id not in ids:
            found.append(f"memory #{memory_id} lost its vector")
    return found


@pytest.mark.slow
def test_a_dream_killed_anywhere_loses_nothing_and_the_next_one_finishes(
    base: Path, tmp_path: Path
) -> None:
    chance = random.Random(20261122)
    with open_database(base) as database:
        before = {int(r[0]) for r in database.fetch_all("SELECT id FROM memories")}
    steps_seen = []
    interrupted: list[int] = []
    for attempt in range(KILLS):
        folder = tmp_path / f"kill-{attempt}"
        folder.mkdir()
        database_path = folder / "reverie.sqlite3"
        shutil.copy(base, database_path)
        child = _child(database_path, folder)
        assert child.stdin is not None and child.stdout is not None
        steps = chance.randint(1, 14)
        for _ in range(steps):
            line = child.stdout.readline()
            if not line.startswith("gate"):
                break  # the dream ended before the kill
            child.stdin.write("go\n")
            child.stdin.flush()
        time.sleep(chance.uniform(0.0, 0.03))  # somewhere inside the step just let go
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        child.stdin.close()
        child.stdout.close()
        steps_seen.append(steps)
        with open_database(database_path) as database:
            assert _problems(database, before) == [], f"after a kill at step {steps}"
            interrupted.append(
                database.fetch_value("SELECT count(*) FROM dream_runs WHERE status = 'running'")
            )

        rerun = _child(database_path, folder)
        output, _ = rerun.communicate("", timeout=60)
        assert rerun.returncode == 0, output
        assert "dream completed" in output
        with open_database(database_path) as database:
            assert _problems(database, before) == []
            statuses = [r[0] for r in database.fetch_all("SELECT status FROM dream_runs")]
            assert statuses == ["completed"]  # the interrupted run was resumed, not restarted
    assert len(set(steps_seen)) > 5  # the kills landed at many different places
    assert sum(interrupted) >= KILLS // 2  # most of them in the middle of a dream
