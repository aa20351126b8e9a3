"""The workers' thread: what is spawned runs there and is reported into its
conversation; a dependency's end starts its dependent at once; the clock,
not a polling loop, opens a time gate; a refusal (a damaged database) runs
nothing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.tools.sub_sessions import SpawnCall
from desktop.core.chat.tools.toolbox import ToolContext
from desktop.core.db import ConversationStore, Database
from desktop.core.db.message_kinds import is_worker_report
from desktop.core.workers.service import Workers
from desktop.ui.shell.scheduler import Clock
from desktop.ui.workers.runner import WorkRunner
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel, StepGate
from tests.work import BERLIN, workers_over

WAIT_MS = 10_000
GATE_S = 1.5
WORKERS_JOB = "workers"


@pytest.fixture
def workers(database: Database, broker: InferenceBroker, prompts: PromptLibrary) -> Workers:
    return workers_over(database, broker, prompts)


@pytest.fixture
def runner(qtbot: QtBot, workers: Workers) -> Iterator[WorkRunner]:
    made = WorkRunner(workers)
    yield made
    made.stop()
    assert not made.qthread.isRunning()


def _spawn(workers: Workers, conversation_id: int, objective: str, **more: object) -> int:
    call = SpawnCall.model_validate({"objective": objective, **more})
    return workers.spawn(call, ToolContext(conversation_id))


def _state(workers: Workers, worker_id: int) -> str:
    worker = workers.get(worker_id)
    assert worker is not None
    return worker.state


def test_a_spawned_worker_runs_and_its_report_reaches_its_conversation(
    qtbot: QtBot, runner: WorkRunner, workers: Workers, store: ConversationStore
) -> None:
    conversation = store.create("Tea")
    with qtbot.waitSignal(runner.reported, timeout=WAIT_MS) as reported:
        worker_id = _spawn(workers, conversation.id, "Find a green tea")
    assert reported.args == [conversation.id]
    assert _state(workers, worker_id) == "completed"
    [report] = [m for m in store.messages(conversation.id) if is_worker_report(m)]
    assert f"Background worker #{worker_id} finished" in report.content
    assert "Hello there, friend." in report.content  # the scripted model's answer


def test_each_step_of_a_running_worker_is_told(
    qtbot: QtBot, runner: WorkRunner, workers: Workers, store: ConversationStore
) -> None:
    conversation = store.create("Tea")
    steps: list[None] = []
    runner.stepped.connect(lambda: steps.append(None))
    with qtbot.waitSignal(runner.reported, timeout=WAIT_MS):
        _spawn(workers, conversation.id, "Find a green tea")
    qtbot.waitUntil(lambda: bool(steps), timeout=WAIT_MS)
    assert len(steps) == 1  # its one step: the answer


def test_a_dependency_ending_starts_its_dependent_at_once(
    qtbot: QtBot, runner: WorkRunner, workers: Workers, store: ConversationStore
) -> None:
    conversation = store.create("Tea")
    first = _spawn(workers, conversation.id, "Research sencha")
    with qtbot.waitSignal(runner.idle, timeout=WAIT_MS):
        second = _spawn(workers, conversation.id, "Summarise it", depends_on=[first])
    qtbot.waitUntil(lambda: _state(workers, second) == "completed", timeout=WAIT_MS)
    ended, started = workers.get(first), workers.get(second)
    assert ended is not None and started is not None
    assert ended.ended_at is not None and started.started_at is not None
    assert started.started_at - ended.ended_at < 1.0  # no tick waited for


def test_the_clock_wakes_a_worker_waiting_for_its_time_and_nothing_polls(
    qtbot: QtBot, runner: WorkRunner, workers: Workers, store: ConversationStore
) -> None:
    clock = Clock()
    runner.next_wake.connect(
        lambda at: clock.once_at(WORKERS_JOB, datetime.fromtimestamp(at).astimezone())
    )
    dues: list[float] = []
    clock.due.connect(lambda _: dues.append(time.monotonic()))  # before the wake it causes
    clock.due.connect(lambda _: runner.wake())
    runs: list[float] = []
    runner.requested.connect(lambda _: runs.append(time.monotonic()))
    clock.start()
    try:
        conversation = store.create("Tea")
        gate = datetime.now(BERLIN) + timedelta(seconds=GATE_S)
        with qtbot.waitSignal(runner.next_wake, timeout=WAIT_MS) as woken:
            worker_id = _spawn(workers, conversation.id, "Later", not_before=gate.isoformat())
        assert woken.args[0] == pytest.approx(gate.timestamp(), abs=1.0)
        assert _state(workers, worker_id) == "waiting_time"
        with qtbot.waitSignal(runner.reported, timeout=WAIT_MS):
            pass
    finally:
        clock.stop()
    assert _state(workers, worker_id) == "completed"
    assert len(dues) == 1
    assert [r for r in runs if r < dues[0]] == runs[:1]  # one look at the spawn, then the clock


def test_a_refusal_runs_nothing(qtbot: QtBot, workers: Workers, store: ConversationStore) -> None:
    refused = WorkRunner(workers, refusal=lambda: "the database is damaged")
    try:
        worker_id = _spawn(workers, store.create("Tea").id, "Find a green tea")
        assert not refused.wake() and not refused.running
        assert _state(workers, worker_id) == "waiting_time"
        assert workers.transcript(worker_id) == []
    finally:
        refused.stop()


def test_quitting_mid_run_leaves_the_worker_to_resume_at_the_next_start(
    qtbot: QtBot,
    database: Database,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    store: ConversationStore,
) -> None:
    gate = StepGate()
    model.gate = gate
    first = WorkRunner(workers_over(database, broker, prompts))
    conversation = store.create("Tea")
    worker_id = _spawn(first.workers, conversation.id, "Find a green tea")
    gate.wait_for_arrival(1)  # the worker's model call is under way
    first.loop.stop()  # as quitting does, before the held call may go on
    gate.open()
    first.stop()
    assert not first.qthread.isRunning()
    assert _state(first.workers, worker_id) == "running"  # left for the next start

    again = WorkRunner(workers_over(database, broker, prompts))  # the next process
    try:
        with qtbot.waitSignal(again.reported, timeout=WAIT_MS):
            assert again.wake()
        assert _state(again.workers, worker_id) == "completed"
    finally:
        again.stop()
