"""Building a dreamer for tests, as the app builds it, over a test's own parts."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import ConversationStore, Database, Memory, NewMemory
from desktop.core.dreaming.contradictions import ContradictionPass
from desktop.core.dreaming.dedup import DedupPass
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.dreaming.fading import DecayPass, StalePass
from desktop.core.dreaming.passes import DreamPass
from desktop.core.dreaming.preferences import PreferencePass
from desktop.core.dreaming.skill_review import SkillPass
from desktop.core.dreaming.task_review import TaskPass
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker


def make_dreamer(
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    folder: Path,
    settings: DreamSettings | None = None,
    clock: Callable[[], float] | None = None,
    *,
    tasks: TaskService | None = None,
    skills: SkillLibrary | None = None,
) -> Dreamer:
    """A dreamer with the app's passes (those for tasks and skills when given);
    snapshots and MEMORIES.md in *folder*."""
    conversations = ConversationStore(database)
    passes: list[DreamPass] = [DecayPass(), DedupPass(), ContradictionPass(), StalePass()]
    if tasks is not None:
        passes.append(TaskPass(tasks, conversations))
    if skills is not None:
        passes.append(SkillPass(skills, conversations))
    passes.append(PreferencePass(conversations))
    return Dreamer(
        database,
        memories,
        broker,
        prompts,
        settings or DreamSettings(quiet_seconds=0, max_retired_floor=10),
        passes,
        snapshots_dir=folder / "snapshots",
        working_set_file=folder / "MEMORIES.md",
        tasks=tasks,
        skills=skills,
        clock=clock or time.time,
    )


def add_memory(memories: MemoryService, content: str, **fields: object) -> Memory:
    """A memory stored now with its vector (*fields* as ``NewMemory`` takes them)."""
    vector = memories.embed([content])
    if vector is not None:
        fields.setdefault("embedding_model", memories.embedding_model)
    item = NewMemory(content, None if vector is None else vector[0], "harvested", **fields)  # type: ignore[arg-type]  # a test's loose fields
    [memory_id] = memories.store.add_many([item], actor="harvest")
    memory = memories.store.get(memory_id)
    assert memory is not None
    return memory
