"""Fixtures for the workers' tests: a real database and broker, a scripted
model that answers each worker by its objective, clocks that move only when
told, and a reporter that writes down every report."""

from __future__ import annotations

import re
import threading
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import WorkerSettings
from desktop.core.chat.tools.sub_sessions import SpawnCall
from desktop.core.chat.tools.toolbox import Tool, ToolContext
from desktop.core.db import ConversationStore, Database
from desktop.core.db.connection import Transaction
from desktop.core.db.workers import Worker, WorkerStore
from desktop.core.privacy.redaction import Redactor
from desktop.core.workers.service import Workers
from models.broker import InferenceBroker
from models.interfaces import ChatMessage
from tests.fakes import HashingEmbedder, ScriptedChatModel
from tests.unit.core.db.conftest import START, FakeClock

BERLIN = ZoneInfo("Europe/Berlin")
_OBJECTIVE = re.compile(r"^Objective: (.*)$", re.MULTILINE)


class RunningClock(FakeClock):
    """The clock of a worker's running time: moved by the model; *on_read*
    (optional) is called at every reading, to hold a thread there."""

    def __init__(self) -> None:
        super().__init__(0.0)
        self.on_read: Callable[[], None] | None = None

    def __call__(self) -> float:
        if self.on_read is not None:
            self.on_read()
        return self.now


class ByObjective(ScriptedChatModel):
    """Answers each worker from the replies queued for its objective (the
    first user message says it), else ``done: <objective>``; every call
    costs *cost* seconds of *clock*, the running time a worker is charged."""

    def __init__(self, clock: FakeClock, cost: float = 1.0) -> None:
        super().__init__()
        self.clock = clock
        self.cost = cost
        self.scripts: dict[str, deque[str | BaseException]] = defaultdict(deque)
        self.asked: list[str] = []
        self.prompts: dict[str, list[list[ChatMessage]]] = defaultdict(list)
        self._lock = threading.Lock()

    def script(self, objective: str, *replies: str | BaseException) -> None:
        self.scripts[objective].extend(replies)

    def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
        first = next((m.content for m in messages if m.role == "user"), "")
        found = _OBJECTIVE.search(first)
        objective = found.group(1) if found else "?"
        with self._lock:
            self.asked.append(objective)
            self.prompts[objective].append(list(messages))
            self.clock.advance(self.cost)
            queued = self.scripts[objective]
            reply = queued.popleft() if queued else f"done: {objective}"
        if isinstance(reply, BaseException):
            raise reply
        return reply


class ReportFailed(Exception):
    """What ``Reports`` raises while ``failing`` (a disk full, a bug)."""


@dataclass
class Reports:
    """Every report the workers made, in order; thread-safe.  While
    *failing* is above 0, a report raises ``ReportFailed`` instead (counting down)."""

    made: list[tuple[int, str, tuple[int, ...]]] = field(default_factory=list)
    failing: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def report(
        self, conversation_id: int, text: str, worker_ids: tuple[int, ...], tx: Transaction
    ) -> None:
        with self._lock:
            if self.failing > 0:
                self.failing -= 1
                raise ReportFailed(f"the report of {worker_ids} could not be written")
            self.made.append((conversation_id, text, worker_ids))


@dataclass
class World:
    workers: Workers
    store: WorkerStore
    model: ByObjective
    reports: Reports
    conversation_id: int
    now: FakeClock
    """Unix time: what the time gates are read against."""
    running: RunningClock
    """The running-time clock the model moves."""
    changes: list[list[int]] = field(default_factory=list)
    """What ``ready()`` said at each time the host was told of a change."""

    def spawn(self, objective: str, **arguments: object) -> int:
        call = SpawnCall.model_validate({"objective": objective, **arguments})
        return self.workers.spawn(call, ToolContext(self.conversation_id))

    def drain(self, limit: int = 100) -> list[int]:
        """Run what is ready until nothing is; the ids run, in order."""
        ran: list[int] = []
        while ready := self.workers.ready():
            for worker_id in ready:
                if self.workers.run_one(worker_id, lambda: False) is not None:
                    ran.append(worker_id)
            assert len(ran) < limit, "workers that never end"
        return ran

    def get(self, worker_id: int) -> Worker:
        worker = self.store.get(worker_id)
        assert worker is not None
        return worker

    def states(self, *ids: int) -> list[str]:
        return [self.get(i).state for i in ids]


MakeWorld = Callable[..., World]


@pytest.fixture
def make_world(database: Database, prompts: PromptLibrary) -> Iterator[MakeWorld]:
    """Makes a world: ``make_world(settings=..., tools=..., off_record=..., redactor=...)``."""
    brokers: list[InferenceBroker] = []

    def make(
        settings: WorkerSettings | None = None,
        tools: Sequence[Tool[Any]] = (),
        off_record: bool = False,
        cost: float = 1.0,
        redactor: Redactor | None = None,
    ) -> World:
        now, running = FakeClock(START), RunningClock()
        model = ByObjective(running, cost)
        broker = InferenceBroker()
        brokers.append(broker)
        broker.start()
        broker.load_chat_model(lambda: model).result(timeout=5)
        broker.load_embedder(HashingEmbedder).result(timeout=5)
        conversations = ConversationStore(database)
        conversation = conversations.create("plans", off_record=off_record)
        store = WorkerStore(database, clock=now)
        reports = Reports()
        changes: list[list[int]] = []
        workers: Workers | None = None

        def changed() -> None:
            assert workers is not None
            changes.append(workers.ready())

        workers = Workers(
            store,
            conversations,
            broker,
            prompts,
            reports,
            tools=tools,
            settings=settings or WorkerSettings(quiet_seconds=0),
            zone=lambda: BERLIN,
            now=now,
            clock=running,
            on_change=changed,
            redactor=redactor,
        )
        return World(workers, store, model, reports, conversation.id, now, running, changes)

    yield make
    for broker in brokers:
        broker.stop()
