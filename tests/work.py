"""Background workers for the Work window's tests and screenshots: the
service over a real database with a conversation reporter, and a DAG of
five workers in five states, made through ``Workers.spawn`` and moved on
by the store as a runner would (no model is asked)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import WorkerSettings
from desktop.core.chat.tools.sub_sessions import SpawnCall
from desktop.core.chat.tools.toolbox import ToolContext
from desktop.core.db import ConversationStore, Database
from desktop.core.db.workers import NewWorker, WorkerStore
from desktop.core.workers.service import ConversationReporter, Workers
from models.broker import InferenceBroker

BERLIN = ZoneInfo("Europe/Berlin")


def workers_over(
    database: Database,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    *,
    now: Callable[[], float] = time.time,
) -> Workers:
    """The service as the app builds it, giving way to no one (quiet 0)."""
    conversations = ConversationStore(database)
    return Workers(
        WorkerStore(database),
        conversations,
        broker,
        prompts,
        ConversationReporter(conversations),
        settings=WorkerSettings(quiet_seconds=0),
        zone=lambda: BERLIN,
        now=now,
    )


@dataclass(frozen=True)
class FiveWorkers:
    conversation_id: int
    completed: int
    running: int
    waiting_deps: int
    waiting_time: int
    failed: int


def five_workers(workers: Workers, database: Database) -> FiveWorkers:
    """Research two things, then write from both (waiting on them), send it
    tomorrow evening (waiting for its time); the running one spawned a
    worker of its own, which failed."""
    conversation = ConversationStore(database).create("Tea plans")
    context = ToolContext(conversation.id)
    store = WorkerStore(database)

    def spawn(objective: str, **more: object) -> int:
        return workers.spawn(SpawnCall.model_validate({"objective": objective, **more}), context)

    history = spawn("Research the history of green tea in Japan")
    prices = spawn("Compare the prices of sencha at three shops", mode="full")
    summary = spawn("Write a one-page summary from both", depends_on=[history, prices])
    evening = (datetime.now(BERLIN) + timedelta(days=1)).replace(hour=20, minute=0)
    send = spawn("Remind the user to read the summary", not_before=evening.isoformat())
    with store.transaction() as tx:
        shops = store.add(
            NewWorker(
                conversation_id=conversation.id,
                objective="Find the opening hours of the tea shop on Main Street",
                mode="minimal",
                tools=(),
                max_tool_calls=8,
                timeout_s=300,
                parent_id=prices,
                depth=2,
            ),
            tx,
        )
    for worker_id in (history, prices, shops):
        # as this process's runner: a host's start does not resume them
        assert store.claim(worker_id, workers.runner_id, datetime.now().timestamp()) is not None
    store.add_message(history, "user", "Objective: Research the history of green tea in Japan")
    store.add_message(history, "assistant", "Green tea came to Japan from China around 800.")
    store.add_time(history, 42.0)
    store.add_message(prices, "user", "Objective: Compare the prices of sencha at three shops")
    store.add_time(prices, 95.0)
    store.add_time(shops, 12.0)
    with store.transaction() as tx:
        store.finish(history, "completed", "Tea came to Japan from China around 800.", tx)
        store.finish(shops, "failed", "the model could not be reached", tx)
        store.settle(tx)
    return FiveWorkers(conversation.id, history, prices, summary, send, shops)
