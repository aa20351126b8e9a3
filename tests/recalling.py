"""A chat service that recalls past conversations, built as the app builds it."""

from __future__ import annotations

from collections.abc import Callable

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, ModelSettings
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database
from desktop.core.memory.excerpts import ExcerptRetriever
from desktop.core.memory.recall import Recall
from desktop.core.memory.service import MemoryService
from desktop.core.privacy.redaction import Redactor
from models.broker import InferenceBroker


def recalling_chat(
    database: Database,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    chat_settings: ChatSettings | None = None,
    recalling: Callable[[], bool] = lambda: True,
) -> ChatService:
    """The chat of *database*, recalling excerpts while *recalling* says so."""
    memories = MemoryService.over(database, broker, prompts)
    recall = Recall(
        memories.retriever,
        ExcerptRetriever.over(database, broker, Redactor()),
        memories.store.source_messages,
        recalling,
    )
    return ChatService(
        ConversationStore(database),
        memories,
        broker,
        prompts,
        ModelSettings(),
        chat_settings,
        recall=recall,
    )
