"""Round 14, through whole dreams with a scripted model: the task pass
completes a task only on words positively saying it is done
(``task_evidence.said_done``), asks the user only for the rule's two
doubts, never completes a repeating task, and does not complete again a
task the user reopened by undoing its completion."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.db.tasks import Task
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.dreamer import DreamReport
from desktop.core.tasks.schedules import parse_schedule
from desktop.core.tasks.service import TaskService
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming


@pytest.fixture
def dreaming(make_dreaming: Callable[..., Dreaming], tasks: TaskService) -> Dreaming:
    return make_dreaming(tasks=tasks)


@pytest.fixture
def store(database: Database, dreaming: Dreaming) -> ConversationStore:
    return ConversationStore(database, clock=dreaming.clock)


def _dream(
    dreaming: Dreaming,
    tasks: TaskService,
    store: ConversationStore,
    model: ScriptedChatModel,
    task_text: str,
    said: list[str],
    quote: str,
    schedule: str | None = None,
) -> tuple[Task, DreamReport]:
    """A task, what the user said after, and a dream whose model completes it quoting *quote*."""
    conversation = store.create("c").id
    when = None if schedule is None else parse_schedule(schedule, tasks.now())
    task = tasks.add(task_text, conversation_id=conversation, schedule=when)
    for text in said:
        dreaming.clock.advance(30)
        store.add_message(conversation, "user", text)
    model.queue(json.dumps({"actions": [{"task": 1, "action": "complete", "evidence": quote}]}))
    report = dreaming.dreamer.run("manual", DreamControl())
    now = tasks.get(task.id)
    assert now is not None
    return now, report


NOT_DONE = [
    # Round 14's repros: (task, what the user typed, the quote)
    ("Call the dentist", ["Move the dentist call to Friday at 10."], "dentist call"),
    ("Water the plants", ["Water the plants."], "water the plants"),
    ("Water the plants", ["I am watering the plants right now."], "watering the plants"),
    ("Water the plants", ["I keep forgetting to water the plants."], "water the plants"),
    ("Water the plants", ["I wish I had watered the plants."], "watered the plants"),
    ("Water the plants", ["I watered the plants... just kidding."], "watered the plants"),
    ("Water the plants", ["Has anyone watered the plants"], "watered the plants"),
    ("Water the plants", ["I have n\u200bot watered the plants."], "watered the plants"),
    ("Water the plants", ["I watered the plants\uff1f"], "watered the plants"),
    ("Pflanzen gie\u00dfen", ["Ich habe die Pflanzen noch nicht gegossen."],
     "die Pflanzen noch nicht gegossen"),
    ("Arroser les plantes", ["Je n'ai pas encore arros\u00e9 les plantes."],
     "pas encore arros\u00e9 les plantes"),
    ("Water the plants",
     ["I watered the plants this morning.",
      "Sorry, scratch that: I haven't watered the plants, the can was empty."],
     "watered the plants this morning"),
    ("Lock the door", ["I unlocked the door."], "locked the door"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "said", "quote"), NOT_DONE, ids=[c[1][-1][:40] for c in NOT_DONE])
def test_words_that_do_not_positively_say_it_is_done_leave_the_task_open_unasked(
    dreaming: Dreaming,
    tasks: TaskService,
    store: ConversationStore,
    model: ScriptedChatModel,
    text: str,
    said: list[str],
    quote: str,
) -> None:
    task, report = _dream(dreaming, tasks, store, model, text, said, quote)

    assert task.status == "active"
    assert report.pending == 0 and dreaming.dreamer.dreams.changes(report.run.id) == []


@pytest.mark.parametrize(
    ("text", "said", "quote"),
    [
        ("Water the plants", ["I watered the plants this morning."], "I watered the plants"),
        ("File the taxes", ["Done: filed the taxes."], "done: filed the taxes"),
        ("Call the dentist", ["My husband called the dentist for me."], "called the dentist"),
        ("Regar las plantas", ["Regar las plantas: hecho."], "regar las plantas: hecho"),
    ],
)
def test_words_positively_saying_it_is_done_complete_it_once_approved(
    dreaming: Dreaming,
    tasks: TaskService,
    store: ConversationStore,
    model: ScriptedChatModel,
    text: str,
    said: list[str],
    quote: str,
) -> None:
    task, report = _dream(dreaming, tasks, store, model, text, said, quote)

    # Round 15: never without asking (words read wrong ended tasks for good).
    assert task.status == "active" and report.pending == 1
    [change] = dreaming.dreamer.dreams.changes(report.run.id)
    dreaming.dreamer.book.approve(change.id)
    assert tasks.get(task.id).status == "completed"  # type: ignore[union-attr]


def test_a_daily_task_is_never_completed_by_a_dream(
    dreaming: Dreaming, tasks: TaskService, store: ConversationStore, model: ScriptedChatModel
) -> None:
    # Round 14, F8: "today" ended a daily task for good, unasked.
    task, report = _dream(
        dreaming,
        tasks,
        store,
        model,
        "Water the plants",
        ["I watered the plants today."],
        "I watered the plants today",
        "daily at 09:00",
    )

    assert task.status == "active" and report.pending == 0
    [entry] = [
        e for e in dreaming.dreamer.dreams.log_entries(report.run.id) if e.pass_name == "tasks"
    ]
    assert "a repeating task is yours to complete or delete" in entry.message


def test_a_dream_does_not_complete_again_what_the_user_reopened(
    dreaming: Dreaming, tasks: TaskService, store: ConversationStore, model: ScriptedChatModel
) -> None:
    task, report = _dream(
        dreaming,
        tasks,
        store,
        model,
        "Call the dentist",
        ["I called the dentist's office."],
        "I called the dentist",
    )
    [change] = dreaming.dreamer.dreams.changes(report.run.id)
    dreaming.dreamer.book.approve(change.id)
    dreaming.clock.advance(600)
    dreaming.dreamer.book.revert(change.id)
    dreaming.clock.advance(3600)
    tasks.update(task.id, priority=2)  # so the next dream looks at it again
    again = {"task": 1, "action": "complete", "evidence": "I called the dentist"}
    model.queue(json.dumps({"actions": [again]}))

    second = dreaming.dreamer.run("manual", DreamControl())

    now = tasks.get(task.id)
    assert now is not None and now.status == "active" and second.pending == 0
