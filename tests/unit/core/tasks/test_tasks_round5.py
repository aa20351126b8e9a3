"""Round 5 of the attacks on tasks: a text that is only placeholders (what
an erasure or the redaction left, "[erased]", "[redacted password]") says
nothing to do and is refused, as blank or invisible-only text is."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.tools.tasks import task_tools
from desktop.core.chat.tools.toolbox import Toolbox, ToolContext
from desktop.core.db import ConversationStore, Database
from desktop.core.db.purge import ERASED
from desktop.core.db.tasks import EVERY_STATUS, TaskStore
from desktop.core.tasks.service import TaskRefused, TaskService

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 22, 12, tzinfo=BERLIN)
PLACEHOLDERS_ONLY = [
    ERASED,
    f" {ERASED} {ERASED}. ",
    "[redacted password]",
    f"{ERASED}\u200b[redacted api key]",
]


@pytest.fixture
def tasks(database: Database) -> TaskService:
    return TaskService(TaskStore(database, clock=NOW.timestamp), BERLIN, clock=lambda: NOW)


@pytest.fixture
def conversation_id(store: ConversationStore) -> int:
    return store.create("tasks").id


@pytest.mark.parametrize("text", PLACEHOLDERS_ONLY)
def test_a_task_of_placeholders_only_is_refused(
    tasks: TaskService, conversation_id: int, text: str
) -> None:
    with pytest.raises(TaskRefused, match="A task needs some text"):
        tasks.add(text, conversation_id=conversation_id)

    assert tasks.list(EVERY_STATUS) == []


@pytest.mark.parametrize("text", PLACEHOLDERS_ONLY)
def test_a_task_is_not_changed_to_placeholders_only(
    tasks: TaskService, conversation_id: int, text: str
) -> None:
    task = tasks.add("Water the plants", conversation_id=conversation_id)

    with pytest.raises(TaskRefused, match="A task needs some text"):
        tasks.update(task.id, text=text)

    assert [t.text for t in tasks.list(EVERY_STATUS)] == ["Water the plants"]


def test_a_routine_prompt_of_placeholders_only_is_refused(
    tasks: TaskService, conversation_id: int
) -> None:
    with pytest.raises(TaskRefused, match="A routine needs a prompt"):
        tasks.add("Morning summary", conversation_id=conversation_id, ai_prompt=ERASED)

    assert tasks.list(EVERY_STATUS) == []


def test_a_task_with_words_beside_a_placeholder_is_kept(
    tasks: TaskService, conversation_id: int
) -> None:
    task = tasks.add(f"Call the bank about {ERASED}", conversation_id=conversation_id)

    assert task.text == f"Call the bank about {ERASED}"


def test_the_task_tool_refuses_placeholders_only(
    tasks: TaskService, prompts: PromptLibrary, store: ConversationStore
) -> None:
    conversation = store.create("tasks")
    message = store.add_message(conversation.id, "user", "Remind me.")
    toolbox = Toolbox(task_tools(tasks), prompts)
    call = json.dumps({"name": "task", "arguments": {"action": "add", "text": ERASED}})

    result = toolbox.call(call, ToolContext(conversation.id, (message.id,)), {"task"})

    assert not result.result.ok
    assert "A task needs some text" in json.dumps(result.result.content)
    assert tasks.list(EVERY_STATUS) == []
