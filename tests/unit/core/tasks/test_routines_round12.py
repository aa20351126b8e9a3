"""Round 12 tests of desktop.core.tasks.routines: a task the user changed while it
ran, and lateness across a change of the clocks.

- A reminder the user paused, completed, deleted or rescheduled after the
  runner read the due list (and before it recorded the run) was still said,
  and its next run moved on even on a completed or deleted task: the run's
  record checked neither the status nor that the run was the one read.
- A routine deleted or paused while the model answered still said its
  answer (the wait can last minutes: the call waits while the user chats).
- Lateness subtracted two datetimes of one zone, which Python does on wall
  clocks: across a change of the clocks a reminder said 2 minutes late read
  as an hour late, and one 50 minutes late as on time.

A routine's answer is now stored in a transaction with that check, so a
kill before it commits says nothing for that run (as a kill while the model
answers always did), and one after says it once.

The user's click is played in another thread at the instant the runner
asks the time right after reading the due list, as a real click would land.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ModelSettings
from desktop.core.db import ConversationStore, Database, Transaction
from desktop.core.db.schedules import Daily
from desktop.core.db.tasks import Task, TaskStore
from desktop.core.tasks.routines import KIND, RoutineRunner
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from models.interfaces import ChatMessage, Chunk, GenerationOptions, ShouldStop
from tests.fakes import HashingEmbedder, ScriptedChatModel
from tests.unit.core.tasks.test_routines import BERLIN, Clock, at
from tests.unit.core.tasks.test_routines_round9 import Killed, KilledAfterSaying

NEW_YORK = ZoneInfo("America/New_York")
NEWS = "Here is the news."

UserAction = Callable[[TaskService, int], object]
ACTIONS: dict[str, UserAction] = {
    "paused": lambda tasks, task_id: tasks.pause(task_id),
    "completed": lambda tasks, task_id: tasks.complete(task_id),
    "deleted": lambda tasks, task_id: tasks.delete(task_id),
    "rescheduled": lambda tasks, task_id: tasks.update(task_id, schedule=Daily(time(18))),
}


class ActingModel(ScriptedChatModel):
    """A model during whose answer the user does ``while_answering`` (set by the test)."""

    def __init__(self) -> None:
        super().__init__(default=NEWS)
        self.while_answering: Callable[[], object] | None = None

    def stream(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        should_stop: ShouldStop | None = None,
    ) -> Iterator[Chunk]:
        if self.while_answering is not None:
            self.while_answering()
        yield from super().stream(messages, options, should_stop)


@pytest.fixture
def model() -> ActingModel:
    return ActingModel()


@pytest.fixture
def acting_broker(model: ActingModel) -> Iterator[InferenceBroker]:
    broker = InferenceBroker()
    broker.start()
    broker.load_chat_model(lambda: model).result(timeout=5)
    broker.load_embedder(lambda: HashingEmbedder()).result(timeout=5)
    yield broker
    broker.stop()


def _service(
    database: Database, clock: Callable[[], datetime], zone: tzinfo = BERLIN
) -> TaskService:
    return TaskService(TaskStore(database, clock=lambda: clock().timestamp()), zone, clock=clock)


class ClickedAfterTheDueList(TaskService):
    """The runner's side: the user's *click* lands (in another thread) the
    first time the runner asks the time, right after it read the due list."""

    def __init__(self, database: Database, clock: Clock, click: Callable[[], object]) -> None:
        super().__init__(
            TaskStore(database, clock=lambda: clock().timestamp()), BERLIN, clock=clock
        )
        self._click: Callable[[], object] | None = click

    def now(self) -> datetime:
        click, self._click = self._click, None
        if click is not None:
            user = threading.Thread(target=click)
            user.start()
            user.join()
        return super().now()


def _said(store: ConversationStore, conversation_id: int, kind: str) -> list[str]:
    return [
        m.content for m in store.messages(conversation_id) if (m.metadata or {}).get(KIND) == kind
    ]


@pytest.mark.parametrize("action", list(ACTIONS))
def test_a_reminder_changed_after_the_due_list_was_read_is_not_said_nor_moved_on(
    database: Database,
    store: ConversationStore,
    acting_broker: InferenceBroker,
    prompts: PromptLibrary,
    action: str,
) -> None:
    clock = Clock(at("2026-11-23 08:00"))
    user = _service(database, clock)
    conversation = store.create("plants").id
    task = user.add("Water the plants", conversation_id=conversation, schedule=Daily(time(9)))
    clock.set("2026-11-23 09:00:30")
    runner_side = ClickedAfterTheDueList(database, clock, lambda: ACTIONS[action](user, task.id))
    runner = RoutineRunner(runner_side, store, acting_broker, prompts, ModelSettings())

    runs = runner.run_due()

    assert runs == [] and _said(store, conversation, "reminder") == []
    after = user.get(task.id)
    assert after is not None and after.last_run_at is None
    expected_next = {
        "paused": at("2026-11-23 09:00").timestamp(),  # kept: resume moves it on from then
        "completed": None,
        "deleted": at("2026-11-23 09:00").timestamp(),
        "rescheduled": at("2026-11-23 18:00").timestamp(),
    }[action]
    assert (after.status, after.next_run_at) == (
        {"rescheduled": "active"}.get(action, action),
        expected_next,
    )


def test_a_reminder_whose_text_changed_after_the_due_list_was_read_says_the_new_text(
    database: Database,
    store: ConversationStore,
    acting_broker: InferenceBroker,
    prompts: PromptLibrary,
) -> None:
    clock = Clock(at("2026-11-23 08:00"))
    user = _service(database, clock)
    conversation = store.create("plants").id
    task = user.add("Water the plants", conversation_id=conversation, schedule=Daily(time(9)))
    clock.set("2026-11-23 09:00:30")
    edit = ClickedAfterTheDueList(
        database, clock, lambda: user.update(task.id, text="Call the plumber")
    )

    [run] = RoutineRunner(edit, store, acting_broker, prompts, ModelSettings()).run_due()

    assert _said(store, conversation, "reminder") == ["Reminder: Call the plumber"]
    assert run.task.text == "Call the plumber"  # what the notification shows
    ran = user.get(task.id)
    assert ran is not None and ran.next_run_at == at("2026-11-24 09:00").timestamp()


@pytest.mark.parametrize("action", ["deleted", "paused", "completed"])
def test_a_routine_changed_while_the_model_answers_says_nothing(
    database: Database,
    store: ConversationStore,
    acting_broker: InferenceBroker,
    model: ActingModel,
    prompts: PromptLibrary,
    action: str,
) -> None:
    clock = Clock(at("2026-11-23 08:00"))
    tasks = _service(database, clock)
    conversation = store.create("news").id
    task = tasks.add(
        "Morning news",
        conversation_id=conversation,
        schedule=Daily(time(9)),
        ai_prompt="Summarise the news for me.",
    )
    clock.set("2026-11-23 09:00:30")
    model.while_answering = lambda: ACTIONS[action](tasks, task.id)

    runs = RoutineRunner(tasks, store, acting_broker, prompts, ModelSettings()).run_due()

    assert len(model.requests) == 1  # it was asked, and the user acted meanwhile
    assert runs == [] and _said(store, conversation, "routine") == []
    after = tasks.get(task.id)
    assert after is not None and after.status == action


def test_a_routine_edited_while_the_model_answers_still_says_its_answer(
    database: Database,
    store: ConversationStore,
    acting_broker: InferenceBroker,
    model: ActingModel,
    prompts: PromptLibrary,
) -> None:
    clock = Clock(at("2026-11-23 08:00"))
    tasks = _service(database, clock)
    conversation = store.create("news").id
    task = tasks.add(
        "Morning news",
        conversation_id=conversation,
        schedule=Daily(time(9)),
        ai_prompt="Summarise the news for me.",
    )
    clock.set("2026-11-23 09:00:30")
    model.while_answering = lambda: tasks.update(task.id, text="Morning news, short")

    [run] = RoutineRunner(tasks, store, acting_broker, prompts, ModelSettings()).run_due()

    assert run.ok and _said(store, conversation, "routine") == [NEWS]


@pytest.mark.parametrize(
    ("at_time", "made", "due", "said_after", "late"),
    [
        # Spring forward: due 01:59 EST, said at 03:01 EDT, two minutes later.
        (time(1, 59), "2026-03-08 05:00", "2026-03-08 06:59", timedelta(minutes=2), False),
        # Fall back: due 01:30 EDT, said at 01:20 EST, fifty minutes later.
        (time(1, 30), "2026-11-01 04:00", "2026-11-01 05:30", timedelta(minutes=50), True),
        # An ordinary day, for comparison.
        (time(9), "2026-11-10 12:00", "2026-11-10 14:00", timedelta(minutes=6), True),
    ],
    ids=["spring-forward", "fall-back", "ordinary"],
)
def test_lateness_is_real_time_across_a_change_of_the_clocks(
    database: Database,
    store: ConversationStore,
    acting_broker: InferenceBroker,
    prompts: PromptLibrary,
    at_time: time,
    made: str,
    due: str,
    said_after: timedelta,
    late: bool,
) -> None:
    now = Clock(at(made, UTC).astimezone(NEW_YORK))
    tasks = _service(database, now, NEW_YORK)
    conversation = store.create("pills").id
    task = tasks.add("Take the pill", conversation_id=conversation, schedule=Daily(at_time))
    assert task.next_run_at == at(due, UTC).timestamp()
    now.now = (at(due, UTC) + said_after).astimezone(NEW_YORK)

    RoutineRunner(tasks, store, acting_broker, prompts, ModelSettings()).run_due()

    [said] = _said(store, conversation, "reminder")
    assert ("was due" in said) == late, said


# -- kills around a routine's answer, now stored with that check ---------------------------


class KilledAfterTheAnswerIsKept(TaskService):
    """Dies right after a routine's answer (and its check) committed."""

    @contextmanager
    def still_running(self, task_id: int) -> Iterator[tuple[Task, Transaction]]:
        with super().still_running(task_id) as found:
            yield found
        raise Killed


def _news(tasks: TaskService, conversation_id: int) -> Task:
    return tasks.add(
        "Morning news",
        conversation_id=conversation_id,
        schedule=Daily(time(9)),
        ai_prompt="Summarise the news for me.",
    )


def test_a_kill_right_after_a_routines_answer_is_kept_never_says_it_again(
    database: Database,
    store: ConversationStore,
    acting_broker: InferenceBroker,
    model: ActingModel,
    prompts: PromptLibrary,
) -> None:
    clock = Clock(at("2026-11-23 08:00"))
    conversation = store.create("news").id
    task = _news(_service(database, clock), conversation)
    clock.set("2026-11-23 09:00")
    dying = KilledAfterTheAnswerIsKept(
        TaskStore(database, clock=lambda: clock().timestamp()), BERLIN, clock=clock
    )
    with pytest.raises(Killed):
        RoutineRunner(dying, store, acting_broker, prompts, ModelSettings()).run_due()

    tasks = _service(database, clock)  # started again
    assert RoutineRunner(tasks, store, acting_broker, prompts, ModelSettings()).run_due() == []

    assert _said(store, conversation, "routine") == [NEWS] and len(model.requests) == 1
    after = tasks.get(task.id)
    assert after is not None and after.next_run_at == at("2026-11-24 09:00").timestamp()


def test_a_kill_before_a_routines_answer_is_kept_says_nothing_for_that_run(
    database: Database,
    store: ConversationStore,
    acting_broker: InferenceBroker,
    model: ActingModel,
    prompts: PromptLibrary,
) -> None:
    clock = Clock(at("2026-11-23 08:00"))
    conversation = store.create("news").id
    _news(_service(database, clock), conversation)
    clock.set("2026-11-23 09:00")
    dying = RoutineRunner(
        _service(database, clock),
        KilledAfterSaying(database),
        acting_broker,
        prompts,
        ModelSettings(),
    )
    with pytest.raises(Killed):
        dying.run_due()

    runner = RoutineRunner(
        _service(database, clock), store, acting_broker, prompts, ModelSettings()
    )
    assert runner.run_due() == []  # that run is not asked again, nor said

    assert _said(store, conversation, "routine") == [] and len(model.requests) == 1
    clock.set("2026-11-24 09:00")
    [run] = runner.run_due()
    assert run.ok and _said(store, conversation, "routine") == [NEWS]
