"""A dreamer on a real database and broker, a scripted model and a settable clock."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import Database, Memory, MemoryStore
from desktop.core.db.skills import SkillStore
from desktop.core.db.tasks import TaskStore
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.memory.embedding import Embeddings
from desktop.core.memory.gate import WriteGate
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from tests.dreams import add_memory, make_dreamer
from tests.fakes import ScriptedChatModel
from tests.skill_worlds import World, open_world
from tests.unit.core.db.conftest import START, FakeClock

DAY = 86_400.0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def model() -> ScriptedChatModel:
    """The model behind the (shared) ``broker`` fixture: by default no duplicates."""
    return ScriptedChatModel(default='{"toSave": [], "toDelete": []}')


@pytest.fixture
def memories(
    database: Database, broker: InferenceBroker, prompts: PromptLibrary, clock: FakeClock
) -> MemoryService:
    return MemoryService(
        MemoryStore(database, clock=clock), Embeddings(broker), WriteGate.for_prompts(prompts)
    )


@pytest.fixture
def settings() -> DreamSettings:
    # Tests' stores are small: the breaker is tested on its own.
    return DreamSettings(quiet_seconds=0, max_retired_floor=10)


@dataclass
class Dreaming:
    """What a dream test needs at hand."""

    dreamer: Dreamer
    memories: MemoryService
    clock: FakeClock
    folder: Path

    def add(self, content: str, **fields: object) -> Memory:
        """A memory stored now, with its vector (``fields`` as ``NewMemory`` takes them)."""
        return add_memory(self.memories, content, **fields)

    def get(self, memory_id: int) -> Memory:
        memory = self.memories.store.get(memory_id)
        assert memory is not None
        return memory


@pytest.fixture
def make_dreaming(
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: FakeClock,
    tmp_path: Path,
) -> Callable[..., Dreaming]:
    def make(
        settings: DreamSettings | None = None,
        *,
        tasks: TaskService | None = None,
        skills: SkillLibrary | None = None,
    ) -> Dreaming:
        dreamer = make_dreamer(
            database,
            memories,
            broker,
            prompts,
            tmp_path,
            settings,
            clock,
            tasks=tasks,
            skills=skills,
        )
        return Dreaming(dreamer, memories, clock, tmp_path)

    return make


@pytest.fixture
def dreaming(make_dreaming: Callable[..., Dreaming], settings: DreamSettings) -> Dreaming:
    return make_dreaming(settings)


@pytest.fixture
def tasks(database: Database, clock: FakeClock) -> TaskService:
    """Tasks on the dream's clock."""
    return TaskService(
        TaskStore(database, clock=clock),
        ZoneInfo("Europe/Berlin"),
        clock=lambda: datetime.fromtimestamp(clock(), UTC),
    )


@pytest.fixture
def skills(database: Database, tmp_path: Path, clock: FakeClock) -> SkillLibrary:
    return SkillLibrary(SkillStore(database, clock=clock), tmp_path / "skills")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def world(home: Path) -> Iterator[World]:
    opened = open_world(home)
    yield opened
    opened.close()
