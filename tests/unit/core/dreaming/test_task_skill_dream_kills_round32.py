"""Round 32: a dream killed (SIGKILL) anywhere in its task and skill passes,
then run again to its end, and once more: nothing is applied twice.

The world: a task the user's words since say is done (its completion waits
for approval), a task the model moves to priority 2, a long skill the
dream condenses, two overlapping skills it merges, and a request made in
two conversations it drafts a skill for.  A child process dreams over a
copy and is killed at a random statement (most of them inside a
transaction); the next dream and the one after run to their end.  Then
the task is moved once and its completion asked for once, the skill is
condensed once, the merge is made once (one skill retired, one rewritten),
one draft is proposed, each file is where its row says, no change note is
left in ``skills/.changes`` and the file passes SQLite's integrity check."""

from __future__ import annotations

import random
import shutil
import signal
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from desktop.core.db import ConversationStore, DreamStore, open_database
from desktop.core.db.skills import SkillStore
from desktop.core.db.tasks import TaskStore
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from tests.children import heard, run_child
from tests.unit.core.db.conftest import FakeClock
from tests.unit.core.dreaming.task_skill_dream_child import CONDENSED, DRAFT, MERGED

CHILD = "tests.unit.core.dreaming.task_skill_dream_child"
TRIALS = 8
LONG = "How to brew tea the way the user likes it\n" + "Boil the water, then wait. " * 60


def _build(home: Path) -> None:
    clock = FakeClock(time.time() - 3_600)
    database = open_database(home / "reverie.sqlite3")
    try:
        tasks = TaskService(TaskStore(database, clock=clock), ZoneInfo("UTC"))
        conversations = ConversationStore(database, clock=clock)
        errands = conversations.create("errands")
        tasks.add("Water the plants", conversation_id=errands.id)
        tasks.add("File the taxes", conversation_id=errands.id)
        clock.advance(60)
        conversations.add_message(errands.id, "user", "The taxes are filed, finally.")
        for title in ("monday", "friday"):
            said = conversations.create(title)
            conversations.add_message(said.id, "user", "Summarise my invoices into a spreadsheet.")
        skills = SkillLibrary(SkillStore(database), home / "skills")
        skills.create("brew-tea", LONG)
        skills.create("tea", "How to brew green tea\nBoil water, steep 3 minutes.")
        skills.create("green-tea", "How to brew green tea\nSteep green tea 3 minutes.")
        skills.use("green-tea", None)
    finally:
        database.close()


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("dream-kills") / "home"
    home.mkdir()
    _build(home)
    return home


def _dreamed(home: Path) -> None:
    ended = run_child(CHILD, home, "0")
    assert ended.returncode == 0, ended.stderr


@dataclass(frozen=True)
class State:
    """What the dreams left: their changes counted, the tasks, the skills
    with their texts, and the files of the skills folder."""

    changes: tuple[tuple[tuple[str, str, object], int], ...]
    tasks: tuple[tuple[str, int, str], ...]
    skills: tuple[tuple[str, str, str], ...]
    files: tuple[str, ...]


def _state(home: Path) -> State:
    database = open_database(home / "reverie.sqlite3")
    try:
        assert database.damage() == []
        changes = [
            (c.kind, c.status, c.payload.get("task") or c.payload.get("skill"))
            for run in DreamStore(database).runs(limit=100)
            for c in DreamStore(database).changes(run.id)
        ]
        skills = SkillLibrary(SkillStore(database), home / "skills")
        tasks = TaskService(TaskStore(database), ZoneInfo("UTC"))
        return State(
            tuple(sorted(Counter(changes).items(), key=str)),
            tuple((t.text, t.priority, t.status) for t in tasks.list(("active", "completed"))),
            tuple(
                sorted(
                    (s.name, s.status, skills.read(s.id).text)
                    for s in skills.list(statuses=("active", "draft", "deleted"))
                )
            ),
            tuple(
                sorted(
                    str(p.relative_to(home / "skills"))
                    for p in (home / "skills").rglob("*")
                    if p.is_file()
                )
            ),
        )
    finally:
        database.close()


@pytest.mark.slow
def test_a_dream_killed_in_its_task_and_skill_passes_applies_nothing_twice(
    base: Path, tmp_path: Path
) -> None:
    whole = tmp_path / "whole" / "home"
    shutil.copytree(base, whole)
    first = run_child(CHILD, whole, "0")
    assert first.returncode == 0, first.stderr
    counted = heard(first.stdout)
    _dreamed(whole)  # the dream after: nothing new to do
    expected = _state(whole)
    assert dict(expected.changes)[("task_complete", "pending", 2)] == 1
    texts = {text for _, _, text in expected.skills}
    assert {CONDENSED, MERGED, DRAFT["text"] + "\n"} <= texts
    chosen = random.Random(32)
    kills = [
        chosen.choice(counted.inside if trial % 4 else range(1, counted.count))
        for trial in range(TRIALS)
    ]
    differing = []
    for kill_at in dict.fromkeys(kills):  # a statement drawn twice is killed at once
        home = tmp_path / f"killed-at-{kill_at}" / "home"
        shutil.copytree(base, home)
        killed = run_child(CHILD, home, kill_at)
        assert killed.returncode == -signal.SIGKILL, f"statement {kill_at}: {killed.stderr}"
        _dreamed(home)  # finishes what the kill cut short
        _dreamed(home)  # and one more: nothing new to do
        if _state(home) != expected:
            differing.append((kill_at, _state(home)))
    assert differing == [], f"of {kills} (of {counted.count} statements)"
