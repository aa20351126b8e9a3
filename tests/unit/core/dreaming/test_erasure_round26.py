"""Round 26: an erasure and a restore of the same item could interleave.

- A skill erased ("Delete now") while a window restored it: the eraser
  looked up where the skill's file was (``.deleted/``), the restore moved
  it back among the active skills, the eraser removed the (now empty)
  place it had looked up and erased the row.  The file stayed, its text
  the user was told is gone, and the next sync brought it back as a new
  skill.  The eraser did not hold the skill library's lock.
- ``erase_expired`` listed what was due before it waited its turn (behind
  a dream's copy, or another erasure rewriting the file): a memory, task,
  conversation or skill the user restored meanwhile was erased anyway,
  the restored skill's file with it.  What is due is now decided once the
  erasure holds everything, inside the transaction that erases it.
- An erasure of a task or skill whose tidying afterwards failed (a full
  disk while compacting) said "Nothing was due to be erased.": what it
  reported counted the memories and conversations only.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, Database, DiskFull
from desktop.core.db.purge import ErasedDraft, PurgeStore
from desktop.core.db.skills import EVERY_STATUS, SkillNotFound
from desktop.core.dreaming.erasure import ErasedNotFinished
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from tests.erasers import eraser_for, waiting_for_snapshots

MARKER = "Grommetwise"
WAIT_S = 10.0
LOCKED_OUT_S = 1.0
"""How long the racing restore is given before the erasure goes on: it
finishes in milliseconds unless the erasure holds it out."""


def _holding(folder: Path, text: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and text in p.read_text("utf-8")]


def test_a_skill_restored_while_it_is_erased_does_not_come_back(
    database: Database,
    user_dirs: AppPaths,
    skill_library: SkillLibrary,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    eraser = eraser_for(database, user_dirs, skills=skill_library)
    skill = skill_library.create("Fold flags", f"Fold a flag the {MARKER} way\n1. Halve it.\n")
    skill_library.delete(skill.id)
    restored: list[object] = []
    looked_up = PurgeStore.skill_files

    def restore_meanwhile(
        self: PurgeStore, skill_ids: list[int], copy: Path | None = None
    ) -> list[ErasedDraft]:
        found = looked_up(self, skill_ids, copy)
        if copy is None and not restored:
            restored.append("started")

            def restore() -> None:
                try:
                    restored.append(skill_library.restore(skill.id))
                except SkillNotFound as gone:
                    restored.append(gone)

            racing = threading.Thread(target=restore)
            racing.start()
            racing.join(LOCKED_OUT_S)  # done at once, unless the erasure holds the library
            restoring.append(racing)
        return found

    restoring: list[threading.Thread] = []
    monkeypatch.setattr(PurgeStore, "skill_files", restore_meanwhile)
    erasure = eraser.erase_skills([skill.id])
    for racing in restoring:
        racing.join(WAIT_S)

    assert erasure.skills == 1
    skill_library.sync()
    assert [s.name for s in skill_library.list(statuses=EVERY_STATUS)] == []
    assert _holding(user_dirs.skills_dir, MARKER) == []
    assert isinstance(restored[-1], SkillNotFound)  # the restore said it could not
    assert PurgeStore(database).erased().skill_ids == (skill.id,)


def test_what_is_restored_while_an_expiry_erasure_waits_its_turn_is_kept(
    database: Database,
    user_dirs: AppPaths,
    skill_library: SkillLibrary,
    memories: MemoryService,
    task_service: TaskService,
) -> None:
    eraser = eraser_for(database, user_dirs, kept_days=0, skills=skill_library)
    memory = memories.store.add(
        f"The user folds flags the {MARKER} way.",
        embedding=None,
        source_kind="user_explicit",
        actor="user",
    )
    memories.set_status([memory.id], "deleted")
    task = task_service.add(f"Buy {MARKER} flag pins", conversation_id=None)
    task_service.delete(task.id)
    conversations = ConversationStore(database)
    conversation = conversations.create(f"{MARKER} flags")
    conversations.delete(conversation.id)
    skill = skill_library.create("Fold flags", f"Fold a flag the {MARKER} way\n1. Halve it.\n")
    skill_library.delete(skill.id)
    outcome: list[object] = []

    with waiting_for_snapshots() as waiting:
        with eraser.snapshots_lock.held("A dream's copy"):
            erasing = threading.Thread(target=lambda: outcome.append(eraser.erase_expired()))
            erasing.start()
            assert waiting.wait(WAIT_S), "the erasure waits for the dream's copy"
            memories.set_status([memory.id], "active")  # the user restores meanwhile
            task_service.restore(task.id)
            conversations.restore(conversation.id)
            skill_library.restore(skill.id)
        erasing.join(WAIT_S)

    assert outcome and not erasing.is_alive()
    assert memories.store.get(memory.id) is not None
    assert task_service.store.get(task.id) is not None
    assert conversations.get(conversation.id) is not None
    assert skill_library.read(skill.id).text.startswith(f"Fold a flag the {MARKER} way")
    assert not PurgeStore(database).erased()


def test_an_unfinished_erasure_of_a_task_or_skill_says_it_was_erased(
    database: Database,
    user_dirs: AppPaths,
    skill_library: SkillLibrary,
    task_service: TaskService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A full disk while compacting, after the rows went: the notice said
    # "Nothing was due to be erased." of a task or skill that was.
    eraser = eraser_for(database, user_dirs, skills=skill_library)
    task = task_service.add(f"Buy {MARKER} flag pins", conversation_id=None)
    skill = skill_library.create("Fold flags", f"Fold a flag the {MARKER} way\n")

    def disk_full(self: PurgeStore) -> None:
        raise DiskFull("The disk holding reverie.sqlite3 is full.")

    monkeypatch.setattr(PurgeStore, "compact", disk_full)
    for erase, said in (
        (lambda: eraser.erase_tasks([task.id]), "Erased 1 task for good."),
        (lambda: eraser.erase_skills([skill.id]), "Erased 1 skill for good."),
    ):
        with pytest.raises(ErasedNotFinished) as unfinished:
            erase()
        assert unfinished.value.erasure.describe() == said
        assert str(unfinished.value).startswith(f"{said} Compacting the database file failed")
