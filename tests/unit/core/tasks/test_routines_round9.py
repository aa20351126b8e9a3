"""Round 9 tests of desktop.core.tasks.routines: a run is said at most once.

A reminder (or a routine's answer) was said in one transaction and its run
recorded in another: a kill between the two said the same 9:00 run again
at the next start (and asked the model again).  A reminder's message and
its run's record now commit together; a routine's run is recorded before
its model call, so a kill never says it twice: after a kill that one run
says nothing, and the routine speaks again at its next time.

A kill is played by ``Killed``, a ``BaseException`` no code of Reverie
catches, raised where the process would die; "starting again" is a new
runner over the same database.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

import pytest

from desktop.core.base.jobs import JobControl
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ModelSettings
from desktop.core.db import ConversationStore, Database, Message
from desktop.core.db.schedules import Daily
from desktop.core.db.tasks import Task, TaskStore
from desktop.core.tasks.routines import KIND, RoutineRunner
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker, Job
from tests.fakes import ForkableChatModel
from tests.unit.core.tasks.test_routines import BERLIN, STRETCH, Clock, at


class Killed(BaseException):
    """The process dies here."""


class KilledWhileRecording(TaskService):
    """Dies as it records a task's run."""

    def mark_run(self, task_id: int, ran_at: datetime | None = None, **_: Any) -> Task:
        raise Killed


class KilledAfterSaying(ConversationStore):
    """Dies right after a message is stored (or, in a caller's transaction,
    before that commits)."""

    def add_message(self, *args: Any, **kwargs: Any) -> Message:
        super().add_message(*args, **kwargs)
        raise Killed


class KilledWhileSaying(ConversationStore):
    """Dies as a message is being stored."""

    def add_message(self, *args: Any, **kwargs: Any) -> Message:
        raise Killed


class KilledWaitingForTheModel(JobControl):
    """Dies while the model answers a routine."""

    def run(self, job: Job) -> Job:
        job.cancel()
        raise Killed


@pytest.fixture
def clock() -> Clock:
    return Clock(at("2026-11-23 08:00"))


@pytest.fixture
def model() -> ForkableChatModel:
    """Background jobs run on its fork, so a routine's requests are there."""
    return ForkableChatModel(default=STRETCH)


def _tasks(database: Database, clock: Clock, kind: type[TaskService] = TaskService) -> TaskService:
    return kind(TaskStore(database, clock=lambda: clock().timestamp()), BERLIN, clock=clock)


def _runner(
    tasks: TaskService,
    store: ConversationStore,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> RoutineRunner:
    return RoutineRunner(tasks, store, broker, prompts, ModelSettings())


def _said(store: ConversationStore, conversation_id: int) -> list[str]:
    return [
        m.content
        for m in store.messages(conversation_id)
        if (m.metadata or {}).get(KIND) in ("reminder", "routine")
    ]


def _asked(model: ForkableChatModel) -> int:
    return sum(len(fork.requests) for fork in model.forks)


def _water(tasks: TaskService, conversation_id: int, routine: bool) -> Task:
    return tasks.add(
        "Water the plants",
        conversation_id=conversation_id,
        schedule=Daily(time(9)),
        ai_prompt="Say which plants need water." if routine else None,
    )


@pytest.mark.parametrize("routine", [False, True], ids=["reminder", "routine"])
def test_a_kill_while_the_run_is_recorded_never_says_it_twice(
    database: Database,
    store: ConversationStore,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ForkableChatModel,
    clock: Clock,
    routine: bool,
) -> None:
    conversation = store.create("plants").id
    _water(_tasks(database, clock), conversation, routine)
    clock.set("2026-11-23 09:00")
    dying = _runner(_tasks(database, clock, KilledWhileRecording), store, broker, prompts)
    with pytest.raises(Killed):
        dying.run_due()

    [run] = _runner(_tasks(database, clock), store, broker, prompts).run_due()  # started again

    said = STRETCH if routine else "Reminder: Water the plants"
    assert run.ok and _said(store, conversation) == [said]
    assert _asked(model) == (1 if routine else 0)


def test_a_kill_right_after_speaking_does_not_speak_again(
    database: Database,
    store: ConversationStore,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ForkableChatModel,
    clock: Clock,
) -> None:
    # A reminder; a routine's answer is stored in the transaction that checks
    # it is still running (tests/unit/core/tasks/test_routines_round12.py).
    routine = False
    conversation = store.create("plants").id
    task = _water(_tasks(database, clock), conversation, routine)
    clock.set("2026-11-23 09:00")
    dying = _runner(_tasks(database, clock), KilledAfterSaying(database), broker, prompts)
    with pytest.raises(Killed):
        dying.run_due()

    tasks = _tasks(database, clock)
    _runner(tasks, store, broker, prompts).run_due()  # started again

    assert len(_said(store, conversation)) == 1
    assert _asked(model) == (1 if routine else 0)
    assert tasks.get(task.id).next_run_at == at("2026-11-24 09:00").timestamp()  # type: ignore[union-attr]


def test_a_reminder_cut_off_while_it_is_said_is_said_at_the_next_start(
    database: Database,
    store: ConversationStore,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
) -> None:
    conversation = store.create("plants").id
    _water(_tasks(database, clock), conversation, routine=False)
    clock.set("2026-11-23 09:00")
    dying = _runner(_tasks(database, clock), KilledWhileSaying(database), broker, prompts)
    with pytest.raises(Killed):
        dying.run_due()

    [run] = _runner(_tasks(database, clock), store, broker, prompts).run_due()  # started again

    assert run.ok and _said(store, conversation) == ["Reminder: Water the plants"]


def test_after_a_kill_while_the_model_answers_the_routine_waits_for_its_next_time(
    database: Database,
    store: ConversationStore,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ForkableChatModel,
    clock: Clock,
) -> None:
    conversation = store.create("plants").id
    task = _water(_tasks(database, clock), conversation, routine=True)
    clock.set("2026-11-23 09:00")
    with pytest.raises(Killed):
        _runner(_tasks(database, clock), store, broker, prompts).run_due(KilledWaitingForTheModel())

    tasks = _tasks(database, clock)
    runner = _runner(tasks, store, broker, prompts)

    # What the user sees: nothing for the cut 9:00 run, and the next day's answer.
    assert runner.run_due() == [] and _said(store, conversation) == []
    assert tasks.get(task.id).next_run_at == at("2026-11-24 09:00").timestamp()  # type: ignore[union-attr]
    clock.set("2026-11-24 09:00")
    [run] = runner.run_due()
    assert run.ok and _said(store, conversation) == [STRETCH]


def test_a_run_stopped_when_the_app_quits_is_not_taken_back_over_an_edit(
    database: Database,
    store: ConversationStore,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
) -> None:
    tasks = _tasks(database, clock)
    task = _water(tasks, store.create("plants").id, routine=True)
    clock.set("2026-11-23 09:00")
    recorded = tasks.mark_run(task.id)
    clock.set("2026-11-23 09:01")
    tasks.update(task.id, text="Water the plants and the herbs")

    assert not tasks.take_back_run(recorded, task)

    edited = tasks.get(task.id)
    assert edited is not None and edited.text == "Water the plants and the herbs"
    assert edited.next_run_at == at("2026-11-24 09:00").timestamp()
