"""The ``Harvester`` the tests build, the clock it reads, the answers a
scripted model gives it and the conversations it reads."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import MemorySettings
from desktop.core.base.tokens import TokenCounter
from desktop.core.db import ConversationStore, Database, Message, open_database
from desktop.core.memory.harvest import Harvester
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.interfaces import ChatModel
from tests.fakes import HashingEmbedder

NOW = 1_800_000_000.0


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


def harvester_for(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
    *,
    context_length: int = 4096,
    **settings: Any,
) -> Harvester:
    """A harvester over these parts, as the application builds one, with
    the memory *settings* given and the defaults for the rest."""
    return Harvester(
        store,
        memories,
        broker,
        prompts,
        TokenCounter(broker),
        context_length=context_length,
        settings=MemorySettings(**settings),
        clock=clock,
    )


@contextmanager
def real_harvester(
    chat_model: Callable[[], ChatModel],
    database: Database,
    store: ConversationStore,
    prompts: PromptLibrary,
    clock: Clock,
) -> Iterator[tuple[Harvester, MemoryService]]:
    """A harvester reading with the real *chat_model* (on a broker of its
    own, with a hashing embedder and a context of 2048 tokens), and its memories."""
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_chat_model(chat_model).result(timeout=60)
        broker.load_embedder(HashingEmbedder).result(timeout=5)
        memories = MemoryService.over(database, broker, prompts)
        yield harvester_for(store, memories, broker, prompts, clock, context_length=2048), memories
    finally:
        broker.stop()


class Harvesting(NamedTuple):
    """A harvest's parts over a database of their own (``harvesting``)."""

    database: Database
    store: ConversationStore
    memories: MemoryService
    harvester: Harvester


@contextmanager
def harvesting(path: Path, broker: InferenceBroker, prompts: PromptLibrary) -> Iterator[Harvesting]:
    """A harvester over a new database at *path*, with a context no
    conversation of a test fills."""
    with open_database(path) as database:
        store = ConversationStore(database)
        memories = MemoryService.over(database, broker, prompts)
        harvester = Harvester(
            store, memories, broker, prompts, TokenCounter(broker), context_length=100_000
        )
        yield Harvesting(database, store, memories, harvester)


def harvest_answer(*facts: tuple[str, str, list[int]]) -> str:
    """A harvest's answer: (fact, category, message numbers) each."""
    return json.dumps({"facts": [{"fact": f, "category": c, "messages": m} for f, c, m in facts]})


def talk(store: ConversationStore, conversation_id: int, *texts: str) -> list[Message]:
    """User messages, each answered by Reverie."""
    said = []
    for text in texts:
        said.append(store.add_message(conversation_id, "user", text))
        said.append(store.add_message(conversation_id, "assistant", f"Noted: {text}"))
    return said
