"""A dream over tasks and skills in a process of its own, for the kill test
(``test_task_skill_dream_kills_round32``)::

    python -m tests.unit.core.dreaming.task_skill_dream_child HOME KILL_AT

Runs one dream over ``HOME/reverie.sqlite3`` and the skills in ``HOME/skills``
with the task and skill passes, a model answering each pass as the test's
world asks, and is killed (SIGKILL) at statement *KILL_AT* (``Statements``;
"0": never).  It prints the statement counts at the end.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from zoneinfo import ZoneInfo

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import MemoryStore, open_database
from desktop.core.db.skills import SkillStore
from desktop.core.db.tasks import TaskStore
from desktop.core.dreaming.control import DreamControl
from desktop.core.memory.embedding import Embeddings
from desktop.core.memory.gate import WriteGate
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from models.interfaces import ChatMessage
from tests.children import Statements
from tests.dreams import make_dreamer
from tests.fakes import HashingEmbedder, ScriptedChatModel

CONDENSED = "How to brew tea the way the user likes it\nBoil the water, then wait.\n"
MERGED = "How to brew green tea\nBoil water, then steep the green tea for 3 minutes.\n"
DRAFT = {"name": "invoice summary", "text": "Summarise invoices\n1. Collect. 2. Tabulate."}
TASK_ACTIONS = [
    {"task": 1, "action": "update", "priority": 2},
    {"task": 2, "action": "complete", "evidence": "The taxes are filed"},
]


class Model(ScriptedChatModel):
    """Answers each pass by what it asks about."""

    def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
        asked = messages[-1].content
        if asked.startswith("The tasks:"):
            return json.dumps({"actions": TASK_ACTIONS})
        if asked.startswith("The skill "):
            return json.dumps({"text": CONDENSED})
        if asked.startswith("[1]"):
            return json.dumps({"overlap": True, "text": MERGED})
        if asked.startswith("Words that came up"):
            return json.dumps({"skills": [DRAFT]})
        return json.dumps({"preferences": []})


def main(home: Path, kill_at: str) -> int:
    statements = Statements(kill_at)
    broker = InferenceBroker()
    broker.start()
    database = open_database(home / "reverie.sqlite3")
    try:
        broker.load_chat_model(Model).result(timeout=30)
        broker.load_embedder(HashingEmbedder).result(timeout=30)
        prompts = PromptLibrary(home / "prompts")
        memories = MemoryService(
            MemoryStore(database), Embeddings(broker), WriteGate.for_prompts(prompts)
        )
        dreamer = make_dreamer(
            database,
            memories,
            broker,
            prompts,
            home,
            DreamSettings(quiet_seconds=0),
            tasks=TaskService(TaskStore(database), ZoneInfo("UTC")),
            skills=SkillLibrary(SkillStore(database), home / "skills"),
        )
        statements.install()
        report = dreamer.run("manual", DreamControl())
        statements.said()
        return 0 if report.run.status == "completed" else 1
    finally:
        database.close()
        broker.stop()


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2]))
