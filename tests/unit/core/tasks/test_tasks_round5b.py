"""Round 5 of the attacks on tasks: a task's text and a routine's prompt are
stored as a reader sees them, as memories are: no NUL or other control
character, no bidirectional override reordering what is shown, no
invisible letters only a model reads; whoever writes them (the user, a tool
call, an agenda review)."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.tools.tasks import task_tools
from desktop.core.chat.tools.toolbox import Toolbox, ToolContext
from desktop.core.db import ConversationStore, Database
from desktop.core.db.tasks import EVERY_STATUS, Task, TaskStore
from desktop.core.memory.service import MemoryService
from desktop.core.tasks.schedules import parse_schedule
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel
from tests.reviewers import reviewer_for

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 22, 12, tzinfo=BERLIN)
HIDDEN = [
    ("buy\x00milk", "buymilk"),  # NUL
    ("buy\x07milk\x1b[31m", "buymilk[31m"),  # bell, escape
    ("Pay \u202eselim 01\u202c on Friday", "Pay selim 01 on Friday"),  # right-to-left override
    ("Call \u2066Ana\u2069 back", "Call Ana back"),  # isolates
    ("Water\u200b the plants\U000e0069\U000e0067", "Water the plants"),  # zero width, tags
]
"""(written, as a reader sees it)."""


@pytest.fixture
def tasks(database: Database) -> TaskService:
    return TaskService(TaskStore(database, clock=NOW.timestamp), BERLIN, clock=lambda: NOW)


@pytest.fixture
def conversation_id(store: ConversationStore) -> int:
    return store.create("tasks").id


def _texts(tasks: TaskService) -> list[str]:
    return [task.text for task in tasks.list(EVERY_STATUS)]


def _stored(tasks: TaskService, task_id: int) -> Task:
    task = tasks.get(task_id)
    assert task is not None
    return task


@pytest.mark.parametrize(("written", "seen"), HIDDEN)
def test_a_task_is_stored_as_a_reader_sees_it(
    tasks: TaskService, conversation_id: int, written: str, seen: str
) -> None:
    task = tasks.add(written, conversation_id=conversation_id)

    assert _stored(tasks, task.id).text == seen
    tasks.update(task.id, text=f"{written} again")
    assert _stored(tasks, task.id).text == f"{seen} again"


@pytest.mark.parametrize(("written", "seen"), HIDDEN)
def test_a_routines_prompt_is_stored_as_a_reader_sees_it(
    tasks: TaskService, conversation_id: int, written: str, seen: str
) -> None:
    daily = parse_schedule("daily at 09:00", tasks.now())
    task = tasks.add("Stretch", conversation_id=conversation_id, schedule=daily, ai_prompt=written)

    assert _stored(tasks, task.id).ai_prompt == seen


def test_shaping_characters_of_scripts_and_emoji_stay(
    tasks: TaskService, conversation_id: int
) -> None:
    text = "Buy 🧑\u200d🚀 stickers and call \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"

    task = tasks.add(text, conversation_id=conversation_id)

    assert _stored(tasks, task.id).text == text


@pytest.mark.parametrize(("written", "seen"), HIDDEN)
def test_a_task_the_model_adds_with_a_tool_is_stored_as_a_reader_sees_it(
    tasks: TaskService, prompts: PromptLibrary, conversation_id: int, written: str, seen: str
) -> None:
    toolbox = Toolbox(task_tools(tasks), prompts)
    call = json.dumps({"name": "task", "arguments": {"action": "add", "text": written}})

    asked = ToolContext(conversation_id, said=f"Remind me: {seen}")
    result = toolbox.call(call, asked, {"task"}).result

    assert result.ok, result.summary
    assert _texts(tasks) == [seen]
    assert result.content["task"]["text"] == seen


@pytest.mark.parametrize(("written", "seen"), HIDDEN)
def test_a_task_an_agenda_review_adds_is_stored_as_a_reader_sees_it(
    tasks: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    conversation_id: int,
    written: str,
    seen: str,
) -> None:
    tasks.add("Call the plumber", conversation_id=conversation_id)
    store.add_message(conversation_id, "user", f"Remind me: {seen}")
    model.queue(json.dumps({"actions": [{"action": "add", "text": written}]}))
    reviewer = reviewer_for(tasks, store, memories, broker, prompts)

    review = reviewer.review(conversation_id)

    assert _texts(tasks) == ["Call the plumber", seen]
    assert review.notice is not None and seen in review.notice.content
