"""Building a dreamer for tests, as the app builds it, over a test's own parts."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from desktop.core.db import ConversationStore, Database, Memory, NewMemory
from desktop.core.dreaming.contradictions import ContradictionPass
from desktop.core.dreaming.dedup import DedupPass
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.dreaming.fading import DecayPass, StalePass
from desktop.core.dreaming.preferences import PreferencePass
from desktop.core.memory_service import MemoryService
from desktop.core.prompts import PromptLibrary
from desktop.core.settings import DreamSettings
from models.broker import InferenceBroker


def make_dreamer(
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    folder: Path,
    settings: DreamSettings | None = None,
    clock: Callable[[], float] | None = None,
) -> Dreamer:
    """A dreamer with the app's passes; snapshots and MEMORIES.md in *folder*."""
    return Dreamer(
        database,
        memories,
        broker,
        prompts,
        settings or DreamSettings(quiet_seconds=0, max_retired_floor=10),
        [
            DecayPass(),
            DedupPass(),
            ContradictionPass(),
            StalePass(),
            PreferencePass(ConversationStore(database)),
        ],
        snapshots_dir=folder / "snapshots",
        working_set_file=folder / "MEMORIES.md",
        clock=clock or time.time,
    )


def add_memory(memories: MemoryService, content: str, **fields: object) -> Memory:
    """A memory stored now with its vector (*fields* as ``NewMemory`` takes them)."""
    vector = memories.embed([content])
    item = NewMemory(content, None if vector is None else vector[0], "harvested", **fields)  # type: ignore[arg-type]  # a test's loose fields
    [memory_id] = memories.store.add_many([item], actor="harvest")
    memory = memories.store.get(memory_id)
    assert memory is not None
    return memory
