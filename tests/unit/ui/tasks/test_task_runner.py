"""Scheduled tasks and agenda reviews on their threads: started, reported,
never stacked, giving way to a user turn and stopped cleanly; a real
database and broker, a scripted model, a clock that moves when told."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import datetime, time
from zoneinfo import ZoneInfo

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ModelSettings
from desktop.core.base.tokens import TokenCounter
from desktop.core.db import ConversationStore, Database
from desktop.core.db.schedules import Daily
from desktop.core.db.tasks import TaskStore
from desktop.core.memory.service import MemoryService
from desktop.core.tasks.agenda import NO_ACTION, AgendaReview, AgendaReviewer
from desktop.core.tasks.routines import RoutineRunner, TaskRun
from desktop.core.tasks.service import TaskService
from desktop.ui.tasks.runner import TaskRunner
from models.broker import InferenceBroker
from tests.fakes import HashingEmbedder, ScriptedChatModel, StepGate
from tests.unit.ui.conftest import WAIT_MS

BERLIN = ZoneInfo("Europe/Berlin")
SUNDAY_NOON = datetime(2026, 11, 22, 12, tzinfo=BERLIN)
MONDAY_9 = datetime(2026, 11, 23, 9, tzinfo=BERLIN)
STRETCH = "Roll your shoulders back five times."


class Clock:
    def __init__(self) -> None:
        self.now = SUNDAY_NOON

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def background() -> threading.Event:
    """Set while background work may run (cleared: the user is in a turn)."""
    allowed = threading.Event()
    allowed.set()
    return allowed


@pytest.fixture
def broker(model: ScriptedChatModel, background: threading.Event) -> Iterator[InferenceBroker]:
    broker = InferenceBroker(background_allowed=background.is_set)
    broker.start()
    broker.load_chat_model(lambda: model).result(timeout=5)
    broker.load_embedder(lambda: HashingEmbedder()).result(timeout=5)
    yield broker
    broker.stop()


@pytest.fixture
def tasks(database: Database, clock: Clock) -> TaskService:
    return TaskService(TaskStore(database, clock=lambda: clock().timestamp()), BERLIN, clock=clock)


@pytest.fixture
def runner(
    qtbot: QtBot,
    tasks: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> Iterator[TaskRunner]:
    routines = RoutineRunner(tasks, store, broker, prompts, ModelSettings(), memories=memories)
    agenda = AgendaReviewer(
        tasks, store, memories, broker, prompts, TokenCounter(broker), context_length=4096
    )
    runner = TaskRunner(routines, agenda)
    yield runner
    runner.stop()
    assert not any(lane.qthread.isRunning() for lane in runner._lanes.values())


@pytest.fixture
def conversation_id(store: ConversationStore) -> int:
    return store.create("desk").id


def _routine(tasks: TaskService, conversation_id: int) -> int:
    return tasks.add(
        "Stretch", conversation_id=conversation_id, schedule=Daily(time(9)), ai_prompt="Stretch."
    ).id


def test_a_due_reminder_is_said_off_the_ui_thread_and_reported(
    qtbot: QtBot,
    runner: TaskRunner,
    tasks: TaskService,
    store: ConversationStore,
    clock: Clock,
    conversation_id: int,
) -> None:
    tasks.add("Stand up", conversation_id=conversation_id, schedule=Daily(time(9)))
    clock.now = MONDAY_9

    ran: list[TaskRun] = []
    runner.ran.connect(ran.append)

    with qtbot.waitSignal(runner.idle, timeout=WAIT_MS):
        assert runner.run_due()

    [run] = ran
    assert (run.kind, run.said) == ("reminder", "Reminder: Stand up")
    assert run.conversation_id == conversation_id
    assert [m.content for m in store.messages(conversation_id)] == ["Reminder: Stand up"]
    assert not runner.busy("tasks")


def test_due_tasks_asked_for_while_they_run_are_not_stacked(
    qtbot: QtBot,
    runner: TaskRunner,
    tasks: TaskService,
    store: ConversationStore,
    model: ScriptedChatModel,
    clock: Clock,
    conversation_id: int,
) -> None:
    gate = StepGate()
    model.gate = gate
    model.default = STRETCH
    _routine(tasks, conversation_id)
    clock.now = MONDAY_9
    ran: list[TaskRun] = []
    runner.ran.connect(ran.append)
    idle: list[str] = []
    runner.idle.connect(idle.append)

    assert runner.run_due()
    gate.wait_for_arrival(1)  # the routine's answer is under way
    assert not runner.run_due() and not runner.run_due()  # asked for twice more meanwhile
    with qtbot.waitSignal(runner.idle, timeout=WAIT_MS):
        gate.open()

    assert [run.said for run in ran] == [STRETCH]
    assert idle == ["tasks"]  # one more look after the run, then idle
    assert [m.content for m in store.messages(conversation_id)] == [STRETCH]


def test_a_routine_waits_while_the_user_chats_and_a_reminder_does_not(
    qtbot: QtBot,
    runner: TaskRunner,
    tasks: TaskService,
    model: ScriptedChatModel,
    clock: Clock,
    background: threading.Event,
    conversation_id: int,
) -> None:
    model.default = STRETCH
    _routine(tasks, conversation_id)
    tasks.add("Stand up", conversation_id=conversation_id, schedule=Daily(time(9)))
    clock.now = MONDAY_9
    background.clear()  # the user is in a turn
    ran: list[TaskRun] = []
    runner.ran.connect(ran.append)

    runner.run_due()
    qtbot.waitUntil(lambda: [run.kind for run in ran] == ["reminder"], timeout=WAIT_MS)
    assert runner.busy("tasks")  # the routine waits for the user
    with qtbot.waitSignal(runner.idle, timeout=WAIT_MS):
        background.set()

    assert [run.said for run in ran] == ["Reminder: Stand up", STRETCH]


def test_quitting_while_a_routine_is_held_back_does_not_wait_for_the_user(
    qtbot: QtBot,
    runner: TaskRunner,
    tasks: TaskService,
    store: ConversationStore,
    clock: Clock,
    background: threading.Event,
    conversation_id: int,
) -> None:
    task_id = _routine(tasks, conversation_id)
    clock.now = MONDAY_9
    background.clear()
    before = tasks.get(task_id)

    runner.run_due()
    qtbot.waitUntil(lambda: runner.busy("tasks"))
    runner.stop()  # returns although the user never goes quiet

    assert store.messages(conversation_id) == []
    assert tasks.get(task_id) == before  # still due: it runs at the next start


def test_an_agenda_review_is_reported_with_what_it_said(
    qtbot: QtBot,
    runner: TaskRunner,
    tasks: TaskService,
    model: ScriptedChatModel,
    store: ConversationStore,
    conversation_id: int,
) -> None:
    task = tasks.add("Post the letter", conversation_id=conversation_id)
    store.add_message(conversation_id, "user", "I posted the letter this morning.")
    done = {"action": "complete", "task": 1, "evidence": "I posted the letter"}
    model.queue(json.dumps({"actions": [done]}))

    with qtbot.waitSignal(runner.reviewed, timeout=WAIT_MS) as reviewed:
        assert runner.review()
        assert not runner.review()  # one at a time; the second is dropped

    review: AgendaReview = reviewed.args[0]
    assert review.notice is not None and f"is #{task.id} " in review.notice.content
    qtbot.waitUntil(lambda: not runner.busy("agenda"))


def test_no_action_is_reported_as_a_review_that_said_nothing(
    qtbot: QtBot,
    runner: TaskRunner,
    tasks: TaskService,
    store: ConversationStore,
    model: ScriptedChatModel,
    conversation_id: int,
) -> None:
    tasks.add("Post the letter", conversation_id=conversation_id)
    model.queue(NO_ACTION)

    with qtbot.waitSignal(runner.reviewed, timeout=WAIT_MS) as reviewed:
        runner.review()

    assert reviewed.args[0].notice is None
    assert store.messages(conversation_id) == []
