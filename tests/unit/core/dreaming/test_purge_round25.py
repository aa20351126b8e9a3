"""Round 25: deleted tasks and skills were never erased.

A deleted memory or conversation is restorable for the restore window,
then erased for good (and "Delete now" erases at once); a deleted task or
skill kept its text for ever: in the database file, the dream's record of
its changes, every snapshot taken before a dream and (a skill) its file in
``skills/.deleted/``, older deleted copies of its name too.  The same
eraser now takes them: after the window, or at once, the text is in no
byte of the database, its WAL, a snapshot (the copy of the skills folder
beside it too) nor a fresh archive."""

from __future__ import annotations

import shutil
import zipfile
from datetime import UTC
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database, DreamStore
from desktop.core.db.skills import SkillStore
from desktop.core.db.tasks import TaskStore
from desktop.core.dreaming.erasure import DAY, Eraser
from desktop.core.dreaming.snapshots import SKILLS_SUFFIX, SNAPSHOT_PREFIX
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from desktop.core.transfer.archive import export_archive
from tests.erasers import eraser_for
from tests.unit.core.dreaming.test_purge import T0, app_db  # noqa: F401 (a fixture)

TASK_MARKER = "vexillary"
TASK_TEXT = "Call the Vexillary office about the flag permit"
SKILL_MARKER = "grommetwise"
SKILL_TEXT = "Fold a flag the Grommetwise way\n1. Halve it.\n2. Roll it tight.\n"


def _holding(marker: str, paths: AppPaths, archive: Path) -> list[str]:
    """Every file under the data folder whose bytes hold *marker* (any case),
    and the archive's entries that do."""
    needle = marker.encode()
    found = [
        str(path)
        for path in paths.data_dir.rglob("*")
        if path.is_file() and needle in path.read_bytes().lower()
    ]
    with zipfile.ZipFile(archive) as opened:
        found += [n for n in opened.namelist() if needle in opened.read(n).lower()]
    return found


def _archive(database: Database, paths: AppPaths, folder: Path) -> Path:
    target = folder / f"archive-{len(list(folder.glob('archive-*')))}.zip"
    export_archive(database, paths, target)
    return target


@pytest.fixture
def world(
    app_db: Database,  # noqa: F811 (the fixture imported above)
    user_dirs: AppPaths,
) -> tuple[TaskService, SkillLibrary, list[float]]:
    now = [T0]
    tasks = TaskService(TaskStore(app_db, clock=lambda: now[0]), UTC)
    skills = SkillLibrary(SkillStore(app_db, clock=lambda: now[0]), user_dirs.skills_dir)
    return tasks, skills, now


def _made_and_deleted(
    database: Database, paths: AppPaths, tasks: TaskService, skills: SkillLibrary
) -> tuple[int, int, Path]:
    """A task and a skill quoted by a dream, copied into a snapshot, then
    deleted (the skill twice, under one name)."""
    task = tasks.add(TASK_TEXT, conversation_id=None, ai_prompt=f"Remind me: {TASK_TEXT}")
    skill = skills.create("flags", SKILL_TEXT)
    skills.delete(skill.id)
    skill = skills.create("flags", SKILL_TEXT.replace("tight", "tighter"), replace_deleted=True)
    dreams = DreamStore(database)
    run = dreams.start("test")
    dreams.log(run.id, "tasks", "rolled_back", "Nothing changed.", f'["{TASK_TEXT}"]')
    paths.snapshots_dir.mkdir(parents=True, exist_ok=True)
    snapshot = paths.snapshots_dir / f"{SNAPSHOT_PREFIX}20270115-010000.sqlite3"
    database.snapshot_to(snapshot)
    shutil.copytree(paths.skills_dir, snapshot.with_suffix(SKILLS_SUFFIX))
    tasks.delete(task.id)
    skills.delete(skill.id)
    return task.id, skill.id, snapshot


@pytest.mark.parametrize("how", ["after the window", "delete now"])
def test_a_deleted_task_and_skill_are_erased_from_every_byte(
    app_db: Database,  # noqa: F811
    user_dirs: AppPaths,
    world: tuple[TaskService, SkillLibrary, list[float]],
    tmp_path: Path,
    how: str,
) -> None:
    tasks, skills, now = world
    kept = tasks.add("Water the plants", conversation_id=None)
    task_id, skill_id, _ = _made_and_deleted(app_db, user_dirs, tasks, skills)
    before = _archive(app_db, user_dirs, tmp_path)
    # The checks can fail: deleted, the texts are still everywhere.
    assert len(_holding(TASK_MARKER, user_dirs, before)) >= 2
    assert len(_holding(SKILL_MARKER, user_dirs, before)) >= 3
    eraser = eraser_for(app_db, user_dirs, kept_days=30, clock=lambda: now[0])

    if how == "delete now":
        erasures = [eraser.erase_tasks([task_id]), eraser.erase_skills([skill_id])]
    else:
        now[0] = T0 + 29 * DAY
        assert eraser.erase_expired().describe() == "Nothing was due to be erased."
        now[0] = T0 + 31 * DAY
        erasures = [eraser.erase_expired()]

    assert [e.describe() for e in erasures][-1].endswith("from the database and 1 snapshot.")
    assert (sum(e.tasks for e in erasures), sum(e.skills for e in erasures)) == (1, 1)
    after = _archive(app_db, user_dirs, tmp_path)
    assert _holding(TASK_MARKER, user_dirs, after) == []
    assert _holding(SKILL_MARKER, user_dirs, after) == []
    assert tasks.get(task_id) is None and skills.store.get(skill_id) is None
    assert [t.id for t in tasks.list()] == [kept.id]  # what was not deleted stays


def test_a_deleted_task_is_restorable_until_its_window_is_up(
    app_db: Database,  # noqa: F811
    user_dirs: AppPaths,
    world: tuple[TaskService, SkillLibrary, list[float]],
) -> None:
    tasks, skills, now = world
    task = tasks.add(TASK_TEXT, conversation_id=None)
    skill = skills.create("flags", SKILL_TEXT)
    tasks.delete(task.id)
    skills.delete(skill.id)
    eraser: Eraser = eraser_for(app_db, user_dirs, kept_days=30, clock=lambda: now[0])
    now[0] = T0 + 29 * DAY

    eraser.erase_expired()

    assert tasks.restore(task.id).text == TASK_TEXT
    assert skills.read(skills.restore(skill.id).id).text == SKILL_TEXT


def test_erasing_with_nothing_deleted_leaves_tasks_and_skills_alone(
    app_db: Database,  # noqa: F811
    user_dirs: AppPaths,
    world: tuple[TaskService, SkillLibrary, list[float]],
) -> None:
    tasks, skills, now = world
    task = tasks.add(TASK_TEXT, conversation_id=None)
    skill = skills.create("flags", SKILL_TEXT)
    now[0] = T0 + 400 * DAY

    erased = eraser_for(app_db, user_dirs, clock=lambda: now[0]).erase_expired()

    assert erased.describe() == "Nothing was due to be erased."
    assert tasks.get(task.id).text == TASK_TEXT  # type: ignore[union-attr]
    assert skills.read(skill.id).text == SKILL_TEXT
