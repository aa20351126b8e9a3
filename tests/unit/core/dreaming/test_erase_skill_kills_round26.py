"""Round 26, an attack that found nothing: a skill's "Delete now" or its
restore killed (SIGKILL) at random moments.

A skill is a file and a row: erasing removes the file, then the row;
restoring moves the file, then the row.  After a kill anywhere, the next
"Delete now" leaves no copy of the skill's text on disk and no skill that
a sync brings back; after a killed restore, the skill's one file is where
its row says, and its text is never lost.

    python -m pytest tests/unit/core/dreaming/test_erase_skill_kills_round26.py -m slow
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from desktop.core.db import Database, open_database
from desktop.core.db.skills import EVERY_STATUS, SkillStore
from desktop.core.dreaming.erasure import Eraser
from desktop.core.dreaming.snapshots import SNAPSHOT_PREFIX
from desktop.core.skills.library import SkillLibrary
from tests.children import start_ready
from tests.unit.core.dreaming.test_erase_resume import end_child, eraser_over, holding_marker

MARKER = "grommetwise"
TEXT = "Fold a flag the Grommetwise way\n1. Halve it.\n2. Halve it again.\n"
TRIALS = 8

CHILD = """
import os, signal, sys
from pathlib import Path
from desktop.core.db import MemoryStore, open_database
from desktop.core.db.purge import PurgeStore
from desktop.core.db.skills import SkillStore
from desktop.core.dreaming.erasure import Eraser
from desktop.core.skills.library import SkillLibrary

what, home, skill_id, where = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
if where == "between":  # dies after the file moved or went, before the row follows
    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)
    SkillStore.set_status = die
    PurgeStore.erase = die
database = open_database(home / "reverie.sqlite3")
library = SkillLibrary(SkillStore(database), home / "skills")
eraser = Eraser(
    database,
    MemoryStore(database),
    snapshots_dir=home / "snapshots",
    working_set_file=home / "MEMORIES.md",
    working_set_size=lambda: 50,
    kept_days=lambda: 30,
    skills=library,
)
print("ready", flush=True)
if what == "erase":
    eraser.erase_skills([skill_id])
else:
    library.restore(skill_id)
print("done", flush=True)
"""


def _world(home: Path) -> int:
    """A deleted skill holding the marker, and a snapshot of the database."""
    home.mkdir(parents=True)
    with open_database(home / "reverie.sqlite3") as database:
        library = SkillLibrary(SkillStore(database), home / "skills")
        skill = library.create("Fold flags", TEXT)
        library.delete(skill.id)
        (home / "snapshots").mkdir()
        database.snapshot_to(home / "snapshots" / f"{SNAPSHOT_PREFIX}20270110-010000.sqlite3")
        return skill.id


def _opened(home: Path) -> tuple[Database, SkillLibrary, Eraser]:
    database = open_database(home / "reverie.sqlite3")
    library = SkillLibrary(SkillStore(database), home / "skills")
    return database, library, eraser_over(database, home, library)


def _killed(what: str, template: Path, home: Path, skill_id: int, within: float) -> int:
    """Run *what* on a copy of *template* at *home*, killed after *within*
    seconds (every other trial: between the file and the row, *within* 0)."""
    subprocess.run(["cp", "-a", str(template), str(home)], check=True)
    where = "between" if within == 0 else "anywhere"
    child = start_ready(["-c", CHILD, what, str(home), str(skill_id), where], f"skill {what}")
    return end_child(child, within=within or 30.0)


@pytest.mark.slow
def test_a_skill_erasure_killed_anywhere_is_finished_by_delete_now_again(tmp_path: Path) -> None:
    template = tmp_path / "template"
    skill_id = _world(template)
    rng = random.Random(26)
    problems: list[str] = []
    for trial in range(TRIALS):
        home = tmp_path / f"erase{trial}"
        code = _killed("erase", template, home, skill_id, trial % 2 * rng.uniform(0.01, 0.12))
        database, library, eraser = _opened(home)
        try:
            if library.store.get(skill_id) is not None:
                eraser.erase_skills([skill_id])  # the user asks again
            else:
                eraser.erase_expired()  # the next start finishes what is left
            library.sync()
            back = [s.name for s in library.list(statuses=EVERY_STATUS)]
        finally:
            database.close()
        left = holding_marker(home, MARKER)
        if left or back:
            problems.append(f"trial {trial} (child exit {code}): {left} {back}")
    assert problems == []


@pytest.mark.slow
def test_a_skill_restore_killed_anywhere_keeps_its_one_file_where_its_row_says(
    tmp_path: Path,
) -> None:
    template = tmp_path / "template"
    skill_id = _world(template)
    rng = random.Random(2026)
    problems: list[str] = []
    for trial in range(TRIALS):
        home = tmp_path / f"restore{trial}"
        code = _killed("restore", template, home, skill_id, trial % 2 * rng.uniform(0.0, 0.012))
        database, library, _ = _opened(home)
        try:
            library.sync()
            skill = library.store.get(skill_id)
            text = library.read(skill_id).text if skill is not None else None
            files = [
                p.relative_to(home / "skills").as_posix()
                for p in (home / "skills").rglob("*.md")
                if MARKER in p.read_text("utf-8").lower()
            ]
        finally:
            database.close()
        status = None if skill is None else skill.status
        expected = {"deleted": [".deleted/Fold flags.md"], "active": ["Fold flags.md"]}
        if text != TEXT or status not in expected or files != expected[status]:
            problems.append(f"trial {trial} (child exit {code}): {status} {files} {text!r}")
    assert problems == []
