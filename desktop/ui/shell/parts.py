"""The record of Reverie's Qt-free parts as the composition root built them
(``desktop.app.build_core``), which the application's windows are given.

Only ``desktop.app`` builds one; the UI reads it.  The parts that could not
start are None, and ``problems`` says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop.core.backends.library import ModelLibrary
from desktop.core.backends.roles import PreparationProgress, RoleSwitch
from desktop.core.base.paths import AppPaths
from desktop.core.base.secrets import SecretStore
from desktop.core.base.settings import Settings
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.activity import UserActivity
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.dreaming.erasure import Eraser
from desktop.core.memory.harvest import Harvester
from desktop.core.memory.message_index import MessageIndexer
from desktop.core.memory.recall import Recall
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.agenda import AgendaReviewer
from desktop.core.tasks.routines import RoutineRunner
from desktop.core.tasks.service import TaskService
from desktop.core.workers.service import Workers
from models.broker import InferenceBroker


@dataclass
class Core:
    """The Qt-free parts, built in order; ``problems`` lists what could not start."""

    paths: AppPaths
    settings: Settings
    broker: InferenceBroker
    secrets: SecretStore
    library: ModelLibrary
    roles: RoleSwitch
    database: Database | None = None
    conversations: ConversationStore | None = None
    memories: MemoryService | None = None
    tasks: TaskService | None = None
    skills: SkillLibrary | None = None
    chat: ChatService | None = None
    harvester: Harvester | None = None
    recall: Recall | None = None
    """Memories and past conversations recalled for a reply (``Recall.recall``)."""
    message_indexer: MessageIndexer | None = None
    dreamer: Dreamer | None = None
    eraser: Eraser | None = None
    routines: RoutineRunner | None = None
    agenda: AgendaReviewer | None = None
    workers: Workers | None = None
    """Background workers: built, not started (the application starts them
    once the database was found sound)."""
    activity: UserActivity = field(default_factory=UserActivity)
    """When the user is chatting: background work gives way."""
    preparation: PreparationProgress = field(default_factory=PreparationProgress)
    """How the first start's conversion of the memory model goes."""
    problems: list[str] = field(default_factory=list)

    def close(self) -> None:
        self.broker.stop()
        if self.database is not None:
            self.database.close()
