"""The ``AgendaReviewer`` the tests build: over the test's tasks,
conversations, memories and model, with a 4,096-token window and the
default task settings unless told otherwise."""

from __future__ import annotations

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import TaskSettings
from desktop.core.base.tokens import TokenCounter
from desktop.core.db import ConversationStore
from desktop.core.memory.service import MemoryService
from desktop.core.tasks.agenda import AgendaReviewer
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker


def reviewer_for(
    tasks: TaskService,
    store: ConversationStore,
    memories: MemoryService | None,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    context_length: int = 4096,
) -> AgendaReviewer:
    """An agenda reviewer over these parts, as the application builds one."""
    return AgendaReviewer(
        tasks,
        store,
        memories,
        broker,
        prompts,
        TokenCounter(broker),
        context_length=context_length,
        settings=TaskSettings(),
    )
