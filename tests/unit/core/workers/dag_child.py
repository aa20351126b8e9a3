"""A worker DAG run in a process of its own, for the kill test
(``test_dag_kills_round29``):
    python -m tests.unit.core.workers.dag_child DATABASE KILL_AT

Over DATABASE (``plan``'s workers, spawned by the test), it runs every
worker ready until none is, as the app's work thread does, then cancels
the one waiting for its time ("later"), as the Work window's Cancel does.
With KILL_AT the process kills itself (SIGKILL) just before, or just after
(``"N+"``), its KILL_AT-th SQL statement (``Statements``); at the end it
prints its statements.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import WorkerSettings
from desktop.core.chat.tools.sub_sessions import SpawnCall
from desktop.core.chat.tools.toolbox import ToolContext
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.db.workers import WorkerStore
from desktop.core.workers.service import ConversationReporter, Workers
from models.broker import InferenceBroker
from models.interfaces import ChatMessage
from tests.children import Statements
from tests.fakes import ScriptedChatModel
from tests.unit.core.workers.conftest import BERLIN

OBJECTIVES: dict[str, dict[str, Any]] = {
    "fetch": {},
    "clean": {"depends_on": ["fetch"]},  # its model's answer is empty: it fails
    "chart": {"depends_on": ["clean"]},  # fails behind it
    "aside": {},
    "later": {"not_before": "2099-01-01T00:00"},  # cancelled
    "after later": {"depends_on": ["later"]},  # fails behind it
}


class ByObjective(ScriptedChatModel):
    """Answers "" to the worker cleaning, and says each other one is done."""

    def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
        first = next(m.content for m in messages if m.role == "user")
        return "" if "clean" in first else "Done."


@contextmanager
def workers_of(database: Database) -> Iterator[Workers]:
    """The workers over *database*, as the app builds them (a report is an
    event message of the conversation)."""
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_chat_model(ByObjective).result(timeout=30)
        conversations = ConversationStore(database)
        yield Workers(
            WorkerStore(database),
            conversations,
            broker,
            PromptLibrary(database.path.parent / "prompts"),
            ConversationReporter(conversations),
            settings=WorkerSettings(quiet_seconds=0),
            zone=lambda: BERLIN,
        )
    finally:
        broker.stop()


def plan(workers: Workers, conversation_id: int) -> dict[str, int]:
    """The workers of ``OBJECTIVES``, spawned in *conversation_id*; their ids."""
    ids: dict[str, int] = {}
    for objective, asked in OBJECTIVES.items():
        call = {**asked, "depends_on": [ids[d] for d in asked.get("depends_on", [])]}
        ids[objective] = workers.spawn(
            SpawnCall.model_validate({"objective": objective, **call}),
            ToolContext(conversation_id),
        )
    return ids


def drain(workers: Workers) -> None:
    """Run what is ready until nothing is."""
    while ready := workers.ready():
        for worker_id in ready:
            workers.run_one(worker_id, lambda: False)


def main(database_path: str, kill_at: str) -> None:
    statements = Statements(kill_at)
    statements.install()
    with open_database(Path(database_path)) as database, workers_of(database) as workers:
        drain(workers)
        later = database.fetch_value("SELECT id FROM workers WHERE objective = 'later'")
        workers.cancel(int(later))
    statements.said()


if __name__ == "__main__":
    main(*sys.argv[1:3])
