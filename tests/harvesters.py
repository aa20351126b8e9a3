"""The ``Harvester`` the tests build, the clock it reads, the answers a
scripted model gives it and the conversations it reads."""

from __future__ import annotations

import json
from typing import Any

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import MemorySettings
from desktop.core.base.tokens import TokenCounter
from desktop.core.db import ConversationStore, Message
from desktop.core.memory.harvest import Harvester
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker

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
