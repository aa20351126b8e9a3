"""Scheduled tasks speaking up, on a clock that moves only when told: when
they run (missed runs, windows, time zones), where they speak, what a
routine asks the model, and that failures and stops neither crash nor
repeat nor stack."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.jobs import JobControl
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ModelSettings
from desktop.core.db import ConversationStore, Database
from desktop.core.db.schedules import Daily, Interval, Once, TimeWindow
from desktop.core.db.tasks import TaskStore
from desktop.core.memory.service import MemoryService
from desktop.core.tasks.routines import KIND, TASK, RoutineRunner, TaskRun
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from models.llama_chat import LlamaChatModel
from tests.fakes import ForkableChatModel, HashingEmbedder, StepGate, eventually

BERLIN = ZoneInfo("Europe/Berlin")
TOKYO = ZoneInfo("Asia/Tokyo")
STRETCH = "Roll your shoulders back five times, slowly."


class Clock:
    """An aware clock that moves only when told to."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def set(self, text: str, zone: tzinfo = BERLIN) -> None:
        self.now = at(text, zone)


def at(text: str, zone: tzinfo = BERLIN) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=zone)


@pytest.fixture
def clock() -> Clock:
    return Clock(at("2026-11-22 12:00"))  # a Sunday


@pytest.fixture
def model() -> ForkableChatModel:
    """Background jobs run on its fork, so a routine's requests are there."""
    return ForkableChatModel(default=STRETCH)


@pytest.fixture
def tasks(database: Database, clock: Clock) -> TaskService:
    return _service(database, clock, BERLIN)


def _service(database: Database, clock: Clock, zone: tzinfo) -> TaskService:
    return TaskService(TaskStore(database, clock=lambda: clock().timestamp()), zone, clock=clock)


@pytest.fixture
def runner(
    tasks: TaskService,
    store: ConversationStore,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    memories: MemoryService,
) -> RoutineRunner:
    return RoutineRunner(tasks, store, broker, prompts, ModelSettings(), memories=memories)


@pytest.fixture
def conversation_id(store: ConversationStore) -> int:
    return store.create("plants").id


def _said(store: ConversationStore, conversation_id: int) -> list[tuple[str, str, str | None]]:
    return [
        (m.role, m.content, (m.metadata or {}).get(KIND)) for m in store.messages(conversation_id)
    ]


def _local(timestamp: float | None) -> str | None:
    return None if timestamp is None else f"{datetime.fromtimestamp(timestamp, BERLIN):%m-%d %H:%M}"


def _routine_prompts(model: ForkableChatModel) -> list[str]:
    return [messages[-1].content for fork in model.forks for messages, _ in fork.requests]


# -- when ----------------------------------------------------------------------


def test_a_due_reminder_is_said_in_its_conversation_once_and_its_next_run_moves_on(
    runner: RoutineRunner,
    tasks: TaskService,
    store: ConversationStore,
    clock: Clock,
    conversation_id: int,
) -> None:
    task = tasks.add("Water the plants", conversation_id=conversation_id, schedule=Daily(time(9)))
    clock.set("2026-11-23 08:59")
    assert runner.run_due() == []

    clock.set("2026-11-23 09:00")
    [run] = runner.run_due()

    assert (run.kind, run.ok, run.said, run.as_event) == (
        "reminder",
        True,
        "Reminder: Water the plants",
        False,
    )
    assert run.message is not None and run.message.metadata == {KIND: "reminder", TASK: task.id}
    assert _said(store, conversation_id) == [
        ("assistant", "Reminder: Water the plants", "reminder")
    ]
    ran = tasks.get(task.id)
    assert ran is not None
    assert (_local(ran.last_run_at), _local(ran.next_run_at)) == ("11-23 09:00", "11-24 09:00")
    assert runner.run_due() == []  # said once, not again at the same minute


def test_runs_missed_while_asleep_are_said_once_and_say_when_they_were_due(
    runner: RoutineRunner, tasks: TaskService, store: ConversationStore, clock: Clock
) -> None:
    conversation = store.create("c").id
    task = tasks.add("Water the plants", conversation_id=conversation, schedule=Daily(time(9)))

    clock.set("2026-11-25 15:10")  # asleep through Monday's, Tuesday's and Wednesday's runs
    [run] = runner.run_due()

    assert run.said == (
        "Reminder: Water the plants (this was due at Monday 2026-11-23 09:00 (CET))"
    )
    assert _local(tasks.get(task.id).next_run_at) == "11-26 09:00"  # type: ignore[union-attr]
    assert runner.run_due() == []


def test_an_interval_speaks_only_inside_its_window(
    runner: RoutineRunner, tasks: TaskService, clock: Clock, conversation_id: int
) -> None:
    tasks.add(
        "Drink water",
        conversation_id=conversation_id,
        schedule=Interval(30, TimeWindow(time(8), time(9))),
    )
    spoke: list[str] = []
    clock.set("2026-11-23 07:00")
    while clock.now < at("2026-11-23 11:00"):  # every minute, as the app's clock ticks
        spoke += [f"{clock.now:%H:%M}" for _ in runner.run_due()]
        clock.now += timedelta(minutes=1)

    assert spoke == ["08:00", "08:30", "09:00"]


@pytest.mark.parametrize(
    ("zone", "instant", "due"),
    [
        (TOKYO, "2026-11-23 00:00", True),  # 09:00 in Tokyo
        (BERLIN, "2026-11-23 00:00", False),  # 01:00 in Berlin
        (BERLIN, "2026-11-23 08:00", True),  # 09:00 in Berlin
    ],
)
def test_schedules_are_read_in_the_users_time_zone(
    database: Database,
    store: ConversationStore,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
    zone: ZoneInfo,
    instant: str,
    due: bool,
) -> None:
    tasks = _service(database, clock, zone)
    runner = RoutineRunner(tasks, store, broker, prompts, ModelSettings())
    tasks.add("Stand up", conversation_id=store.create("c").id, schedule=Daily(time(9)))

    clock.set(instant, UTC)
    runs = runner.run_due()

    assert [run.said for run in runs] == (["Reminder: Stand up"] if due else [])


def test_a_daily_task_keeps_its_hour_across_the_change_to_winter_time(
    runner: RoutineRunner, tasks: TaskService, clock: Clock, conversation_id: int
) -> None:
    clock.set("2026-10-24 12:00")  # Berlin leaves summer time in the night to the 25th
    task = tasks.add("Stand up", conversation_id=conversation_id, schedule=Daily(time(9)))
    for day in ("2026-10-25 09:00", "2026-10-26 09:00"):
        clock.set(day)
        assert len(runner.run_due()) == 1

    assert _local(tasks.get(task.id).next_run_at) == "10-27 09:00"  # type: ignore[union-attr]


# -- what once tasks become ------------------------------------------------------


def test_a_once_reminder_stays_to_do_and_a_once_routine_is_completed(
    runner: RoutineRunner, tasks: TaskService, clock: Clock, conversation_id: int
) -> None:
    once = Once(datetime(2026, 11, 23, 9))
    reminder = tasks.add("Vote", conversation_id=conversation_id, schedule=once)
    routine = tasks.add(
        "Stretch", conversation_id=conversation_id, schedule=once, ai_prompt="Suggest a stretch."
    )

    clock.set("2026-11-23 09:00")
    assert len(runner.run_due()) == 2

    voted, stretched = tasks.get(reminder.id), tasks.get(routine.id)
    assert voted is not None and (voted.status, voted.next_run_at) == ("active", None)
    assert stretched is not None and stretched.status == "completed"
    clock.set("2026-11-30 09:00")
    assert runner.run_due() == []


# -- routines --------------------------------------------------------------------


def test_a_routine_answers_its_prompt_in_the_background_into_its_own_conversation(
    runner: RoutineRunner,
    tasks: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    model: ForkableChatModel,
    clock: Clock,
) -> None:
    elsewhere, own = store.create("other").id, store.create("desk").id
    store.add_message(elsewhere, "user", "Hello")
    memories.remember(
        "The user's back hurts after long days at the desk.",
        source_kind="harvested",
        actor="harvest",
    )
    task = tasks.add(
        "Stretch break",
        conversation_id=own,
        schedule=Daily(time(15)),
        ai_prompt="Suggest one stretch for my back.",
    )

    clock.set("2026-11-22 15:00")
    [run] = runner.run_due()

    assert (run.kind, run.said, run.conversation_id) == ("routine", STRETCH, own)
    assert _said(store, own) == [("assistant", STRETCH, "routine")]
    assert [m.content for m in store.messages(elsewhere)] == ["Hello"]
    [asked] = _routine_prompts(model)  # on the background fork: a background job
    assert "Current time: Sunday 2026-11-22 15:00 (CET) (the routine was due at 15:00)" in asked
    assert f'task #{task.id} "Stretch break":\nSuggest one stretch for my back.' in asked
    assert "The user's back hurts after long days at the desk." in asked
    assert model.requests == []  # the chat's own context was not used


@pytest.mark.parametrize("conversation", ["none", "deleted"])
def test_a_task_without_a_conversation_speaks_as_a_system_event_in_the_latest_one(
    runner: RoutineRunner,
    tasks: TaskService,
    store: ConversationStore,
    clock: Clock,
    conversation: str,
) -> None:
    own = store.create("gone").id
    latest = store.create("latest").id
    task = tasks.add(
        "News",
        conversation_id=None if conversation == "none" else own,
        schedule=Daily(time(8)),
        ai_prompt="Say good morning.",
    )
    if conversation == "deleted":
        store.delete(own)

    clock.set("2026-11-23 08:00")
    [run] = runner.run_due()

    assert (run.as_event, run.conversation_id, run.said) == (True, latest, STRETCH)
    [event] = store.messages(latest)
    assert event.role == "event" and event.metadata == {KIND: "routine", TASK: task.id}
    assert event.content.startswith(
        f'[SYSTEM EVENT] The routine of task #{task.id} "News" ran at Monday 2026-11-23 08:00'
    )
    assert event.content.endswith(STRETCH)


def test_with_no_conversation_at_all_a_reminder_is_only_reported(
    runner: RoutineRunner, tasks: TaskService, clock: Clock
) -> None:
    tasks.add("Stand up", conversation_id=None, schedule=Daily(time(9)))
    clock.set("2026-11-23 09:00")

    [run] = runner.run_due()

    assert (run.as_event, run.conversation_id, run.message, run.said) == (
        True,
        None,
        None,
        "Reminder: Stand up",
    )


def test_a_failed_routine_is_reported_stores_nothing_and_waits_for_its_next_time(
    runner: RoutineRunner,
    tasks: TaskService,
    store: ConversationStore,
    model: ForkableChatModel,
    clock: Clock,
    conversation_id: int,
) -> None:
    model.default = ""  # the fork answers nothing
    task = tasks.add(
        "Stretch", conversation_id=conversation_id, schedule=Daily(time(15)), ai_prompt="Stretch."
    )
    clock.set("2026-11-22 15:00")

    [run] = runner.run_due()

    assert not run.ok and run.problem == "the model's answer was empty"
    assert store.messages(conversation_id) == []
    assert _local(tasks.get(task.id).next_run_at) == "11-23 15:00"  # type: ignore[union-attr]
    clock.set("2026-11-22 15:01")
    assert runner.run_due() == []  # no retry storm


def test_an_unavailable_model_is_a_reported_failure_not_a_crash(
    tasks: TaskService,
    store: ConversationStore,
    prompts: PromptLibrary,
    clock: Clock,
    conversation_id: int,
) -> None:
    empty = InferenceBroker()  # no model loaded
    empty.start()
    try:
        runner = RoutineRunner(tasks, store, empty, prompts, ModelSettings())
        tasks.add(
            "Stretch", conversation_id=conversation_id, schedule=Daily(time(15)), ai_prompt="Go."
        )
        clock.set("2026-11-22 15:00")
        [run] = runner.run_due()
    finally:
        empty.stop()

    assert run.problem == "No chat model is loaded."
    assert runner.run_due() == []


# -- never stacked, stopped cleanly --------------------------------------------------


@pytest.fixture
def held(model: ForkableChatModel) -> Iterator[StepGate]:
    gate = StepGate()
    model.gate = gate
    yield gate
    gate.open()


def _in_thread(runner: RoutineRunner, control: JobControl, runs: list[TaskRun]) -> threading.Thread:
    thread = threading.Thread(target=lambda: runs.extend(runner.run_due(control)))
    thread.start()
    return thread


def test_a_routine_still_running_is_not_started_again_but_reminders_are_said(
    runner: RoutineRunner,
    tasks: TaskService,
    store: ConversationStore,
    clock: Clock,
    held: StepGate,
    conversation_id: int,
) -> None:
    routine = tasks.add(
        "Stretch", conversation_id=conversation_id, schedule=Interval(1), ai_prompt="Stretch."
    )
    clock.set("2026-11-22 12:01")
    runs: list[TaskRun] = []
    thread = _in_thread(runner, JobControl(), runs)
    held.wait_for_arrival(1)  # the routine's answer is under way
    tasks.add("Stand up", conversation_id=conversation_id, schedule=Interval(1))

    clock.set("2026-11-22 12:05")  # the routine is due again, and so is the reminder
    assert runner.running == {routine.id}
    assert runner.run(tasks.get(routine.id)) is None  # type: ignore[arg-type]
    assert [run.said for run in runner.run_due()] == ["Reminder: Stand up"]
    held.open()
    thread.join()

    assert [run.said for run in runs] == [STRETCH]
    assert [content for _, content, kind in _said(store, conversation_id) if kind == "routine"] == [
        STRETCH
    ]
    assert runner.running == frozenset()


def test_reminders_are_said_before_routines_due_at_the_same_time(
    runner: RoutineRunner, tasks: TaskService, clock: Clock, conversation_id: int
) -> None:
    tasks.add("Stretch", conversation_id=conversation_id, schedule=Daily(time(9)), ai_prompt="Go.")
    tasks.add("Stand up", conversation_id=conversation_id, schedule=Daily(time(9)))
    clock.set("2026-11-23 09:00")
    heard: list[str] = []

    runner.run_due(report=lambda run: heard.append(run.kind))

    assert heard == ["reminder", "routine"]


def test_a_routine_stopped_when_the_app_quits_stays_due_and_runs_once_later(
    runner: RoutineRunner,
    tasks: TaskService,
    store: ConversationStore,
    clock: Clock,
    held: StepGate,
    conversation_id: int,
) -> None:
    task = tasks.add(
        "Stretch", conversation_id=conversation_id, schedule=Daily(time(15)), ai_prompt="Go."
    )
    clock.set("2026-11-22 15:00")
    control = JobControl()
    runs: list[TaskRun] = []
    thread = _in_thread(runner, control, runs)
    held.wait_for_arrival(1)

    control.cancel()
    held.open()
    thread.join()

    assert runs == [] and store.messages(conversation_id) == []
    assert tasks.get(task.id) == task  # not marked run: still due
    [run] = runner.run_due()
    assert run.ok and run.said == STRETCH


def test_stopping_a_routine_the_broker_holds_back_does_not_wait_for_the_user(
    tasks: TaskService,
    store: ConversationStore,
    prompts: PromptLibrary,
    model: ForkableChatModel,
    clock: Clock,
    conversation_id: int,
) -> None:
    chatting = InferenceBroker(background_allowed=lambda: False)  # the user never stops
    chatting.start()
    try:
        chatting.load_chat_model(lambda: model).result(timeout=5)
        runner = RoutineRunner(tasks, store, chatting, prompts, ModelSettings())
        task = tasks.add(
            "Stretch", conversation_id=conversation_id, schedule=Daily(time(15)), ai_prompt="Go."
        )
        clock.set("2026-11-22 15:00")
        control = JobControl()
        runs: list[TaskRun] = []
        thread = _in_thread(runner, control, runs)
        control.cancel()
        thread.join(timeout=10)
        assert not thread.is_alive()
    finally:
        chatting.stop()

    assert runs == [] and tasks.get(task.id) == task


def test_stopping_a_routine_held_back_in_its_memory_search_does_not_wait_for_the_user(
    tasks: TaskService,
    store: ConversationStore,
    prompts: PromptLibrary,
    model: ForkableChatModel,
    clock: Clock,
    conversation_id: int,
    database: Database,
) -> None:
    chatting = InferenceBroker(background_allowed=lambda: False)  # the user never stops
    chatting.start()
    try:
        chatting.load_chat_model(lambda: model).result(timeout=5)
        chatting.load_embedder(HashingEmbedder).result(timeout=5)
        memories = MemoryService.over(database, chatting, prompts)
        runner = RoutineRunner(
            tasks, store, chatting, prompts, ModelSettings(), memories=memories, memories_k=5
        )
        task = tasks.add(
            "Stretch", conversation_id=conversation_id, schedule=Daily(time(15)), ai_prompt="Go."
        )
        clock.set("2026-11-22 15:00")
        control = JobControl()
        runs: list[TaskRun] = []
        thread = _in_thread(runner, control, runs)
        # The search's embedding is queued, and held.
        assert eventually(lambda: control.job is not None)
        assert control.job is not None and not control.job.done()

        control.cancel()
        thread.join(timeout=10)

        assert not thread.is_alive()
    finally:
        chatting.stop()
    assert runs == [] and tasks.get(task.id) == task  # still due: it runs later


# -- the real small model ------------------------------------------------------------


@pytest.mark.model
def test_a_routine_runs_end_to_end_on_the_real_small_model(
    fresh_smollm2: Callable[[], LlamaChatModel],
    database: Database,
    store: ConversationStore,
    prompts: PromptLibrary,
    clock: Clock,
    tasks: TaskService,
) -> None:
    broker = InferenceBroker()
    broker.start()
    try:
        chat = fresh_smollm2()
        broker.load_chat_model(lambda: chat).result(timeout=60)
        broker.load_embedder(lambda: HashingEmbedder()).result(timeout=5)
        memories = MemoryService.over(database, broker, prompts)
        runner = RoutineRunner(
            tasks,
            store,
            broker,
            prompts,
            ModelSettings(max_reply_tokens=48, temperature=0.0),
            memories=memories,
        )
        own = store.create("mornings").id
        tasks.add(
            "Good morning",
            conversation_id=own,
            schedule=Daily(time(8)),
            ai_prompt="Wish the user a good morning in one sentence.",
        )
        clock.set("2026-11-23 08:00")
        [run] = runner.run_due()
    finally:
        broker.stop()

    assert run.ok, run.problem
    [said] = store.messages(own)
    assert said.role == "assistant" and said.content == run.said and said.content.strip()


def test_a_secret_in_a_routines_answer_is_taken_out_before_it_is_said(
    runner: RoutineRunner,
    tasks: TaskService,
    store: ConversationStore,
    model: ForkableChatModel,
    clock: Clock,
    conversation_id: int,
) -> None:
    # Round 15: a chat reply was redacted, a routine's answer was stored as written.
    model.default = "Guests join HomeNet; the wifi password is Gu5Xe62Mo."
    tasks.add(
        "Guest note",
        conversation_id=conversation_id,
        schedule=Daily(time(15)),
        ai_prompt="Write the note for my guests.",
    )

    clock.set("2026-11-22 15:00")
    [run] = runner.run_due()

    said = [content for _, content, kind in _said(store, conversation_id) if kind == "routine"]
    assert said == ["Guests join HomeNet; the wifi password is [redacted password]."]
    assert "Gu5Xe62Mo" not in run.said
