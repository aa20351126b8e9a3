"""A harvest in a process of its own, for the kill test: ``python -m
tests.unit.core.memory.harvest_child DATABASE FOLDER KILL_AT``.

It harvests every conversation of DATABASE that has new messages, over a
fake model that states each user message of the transcript as a fact.
With KILL_AT above 0 the process kills itself (SIGKILL, nothing cleaned
up) just before its KILL_AT-th SQL statement, so the test chooses exactly
where a harvest dies: between two facts, between a fact's row and its
history, before the watermark, before COMMIT.  At the end it prints how
many statements it ran, and which of them ran inside a transaction.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import MemorySettings
from desktop.core.base.tokens import TokenCounter
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.memory.harvest import Harvester
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.interfaces import ChatMessage
from tests.fakes import HashingEmbedder, ScriptedChatModel

_USER_LINE = re.compile(r"^\[(\d+)\] User: (.+)$", re.MULTILINE)


class StatingModel(ScriptedChatModel):
    """Answers a harvest with one fact per user message: the message itself."""

    def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
        said = _USER_LINE.findall(messages[-1].content)
        facts = [{"fact": text, "category": "other", "messages": [int(n)]} for n, text in said]
        return json.dumps({"facts": facts})


def harvest_all(database: Database, prompts: PromptLibrary) -> None:
    """Harvest every conversation with a new user message, to the end."""
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_chat_model(StatingModel).result(timeout=10)
        broker.load_embedder(HashingEmbedder).result(timeout=10)
        store = ConversationStore(database)
        harvester = Harvester(
            store,
            MemoryService.over(database, broker, prompts),
            broker,
            prompts,
            TokenCounter(broker),
            context_length=8192,
            settings=MemorySettings(harvest_after_messages=1),
        )
        for _ in range(100):  # a bound, should a harvest never finish
            if not harvester.due():
                break
            harvester.harvest_due()
    finally:
        broker.stop()


def _counting(
    method: Callable[..., Any], kill_at: int, count: list[int], inside: list[int]
) -> Callable[..., Any]:
    def counted(database: Database, *args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        if database._in_transaction:  # where a kill hurts most
            inside.append(count[0])
        if count[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return method(database, *args, **kwargs)

    return counted


def main(database_path: str, folder: str, kill_at: str) -> None:
    count = [0]
    inside: list[int] = []
    # Every statement, BEGIN and COMMIT included, passes one of these two.
    for name in ("_execute", "_fetch"):
        method = getattr(Database, name)
        setattr(Database, name, _counting(method, int(kill_at), count, inside))
    with open_database(Path(database_path)) as database:
        harvest_all(database, PromptLibrary(Path(folder) / "prompts"))
    print(f"statements {count[0]}", flush=True)
    print("in transactions", *inside, flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
