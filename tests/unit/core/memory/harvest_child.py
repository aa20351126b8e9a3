"""A harvest in a process of its own, for the kill test: ``python -m
tests.unit.core.memory.harvest_child DATABASE FOLDER KILL_AT``.

It harvests every conversation of DATABASE that has new messages, over a
fake model that states each user message of the transcript as a fact.
With KILL_AT above 0 the process kills itself (SIGKILL, nothing cleaned
up) just before its KILL_AT-th SQL statement (``Statements``), so the test
chooses exactly where a harvest dies: between two facts, between a fact's
row and its history, before the watermark, before COMMIT.  At the end it
prints how many statements it ran, and which of them ran inside a transaction.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import MemorySettings
from desktop.core.base.tokens import TokenCounter
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.memory.harvest import Harvester
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.interfaces import ChatMessage
from tests.children import Statements
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


def main(database_path: str, folder: str, kill_at: str) -> None:
    statements = Statements(kill_at)
    statements.install()
    with open_database(Path(database_path)) as database:
        harvest_all(database, PromptLibrary(Path(folder) / "prompts"))
    statements.said()


if __name__ == "__main__":
    main(*sys.argv[1:])
