"""The due reminders and routines run in a process of their own, for the
kill test: ``python -m tests.unit.core.tasks.routine_child DATABASE KILL_AT``.

Over DATABASE at 09:30 on 23 November 2026 (Berlin), with a scripted model
saying ``STRETCH``, it runs what is due (``RoutineRunner.run_due``), as the
app's runner does once a minute.  With KILL_AT the process kills itself
(SIGKILL) just before, or just after (``"N+"``), its KILL_AT-th SQL
statement (``Statements``); at the end it prints its statements.
"""

from __future__ import annotations

import sys
from pathlib import Path

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ModelSettings
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.db.tasks import TaskStore
from desktop.core.tasks.routines import RoutineRunner
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from tests.children import Statements
from tests.fakes import ForkableChatModel
from tests.unit.core.tasks.test_routines import BERLIN, STRETCH, at

NOW = at("2026-11-23 09:30")


def tasks_at_now(database: Database) -> TaskService:
    return TaskService(TaskStore(database, clock=NOW.timestamp), BERLIN, clock=lambda: NOW)


def run_due(database: Database) -> None:
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_chat_model(lambda: ForkableChatModel(default=STRETCH)).result(timeout=10)
        prompts = PromptLibrary(database.path.parent / "prompts")
        store = ConversationStore(database)
        RoutineRunner(tasks_at_now(database), store, broker, prompts, ModelSettings()).run_due()
    finally:
        broker.stop()


def main(database_path: str, kill_at: str) -> None:
    statements = Statements(kill_at)
    statements.install()
    with open_database(Path(database_path)) as database:
        run_due(database)
    statements.said()


if __name__ == "__main__":
    main(*sys.argv[1:3])
