"""Round 5 of the attacks on tool calls: a call is read strictly, so what
the model wrote never raises out of the turn nor runs as something it did
not settle on.  An id past what SQLite holds is wrong arguments, not an
``OverflowError``; a key named twice is refused, not read as its last (which
ran ``delete`` where ``list`` was written first); NaN and Infinity, which no
JSON holds, are refused before anything is stored."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.service import ChatService
from desktop.core.chat.tools.memory import memory_tools
from desktop.core.chat.tools.skills import skill_tools
from desktop.core.chat.tools.tasks import task_tools
from desktop.core.chat.tools.toolbox import Toolbox, ToolCall, ToolContext
from desktop.core.db import ConversationStore, Database, MemoryQuery
from desktop.core.db.message_kinds import TOOL_CALL_START
from desktop.core.db.tasks import EVERY_STATUS, Task
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from tests.fakes import Recorder, ScriptedChatModel
from tests.unit.core.chat.tool_checks import TOOL_ERROR

NEEDS_ID = ["complete", "update", "pause", "resume", "delete"]
HUGE = [2**63, 2**63 + 1, 2**64, 10**30]


@pytest.fixture
def toolbox(
    memories: MemoryService,
    task_service: TaskService,
    skill_library: SkillLibrary,
    prompts: PromptLibrary,
) -> Toolbox:
    tools = [*memory_tools(memories), *task_tools(task_service), *skill_tools(skill_library)]
    return Toolbox(tools, prompts)


@pytest.fixture
def context(store: ConversationStore) -> ToolContext:
    conversation = store.create("tools")
    message = store.add_message(conversation.id, "user", "Tidy my list.")
    return ToolContext(conversation.id, (message.id,))


@pytest.fixture
def plumber(task_service: TaskService) -> Task:
    return task_service.add("Call the plumber", conversation_id=None)


def _all(tasks: TaskService) -> list[Task]:
    return tasks.list(EVERY_STATUS)


def _refused(call: ToolCall) -> str:
    """The error a refused *call* came back with, one the model can read."""
    assert not call.result.ok
    assert set(call.result.content) == {"error"}
    error = str(call.result.content["error"])
    assert TOOL_ERROR.fullmatch(error), error
    return error


# -- (a) an id past SQLite's integers -----------------------------------------------
@pytest.mark.parametrize("huge", HUGE)
@pytest.mark.parametrize("action", NEEDS_ID)
def test_an_id_past_what_sqlite_holds_is_wrong_arguments(
    toolbox: Toolbox,
    task_service: TaskService,
    context: ToolContext,
    plumber: Task,
    action: str,
    huge: int,
) -> None:
    arguments: dict[str, Any] = {"action": action, "id": huge}
    if action == "update":
        arguments["text"] = "Call the electrician"
    before = _all(task_service)

    call = toolbox.call(json.dumps({"name": "task", "arguments": arguments}), context, {"task"})

    assert _refused(call).startswith("Wrong arguments for task: id: ")
    assert _all(task_service) == before


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    action=st.sampled_from(NEEDS_ID),
    task_id=st.integers() | st.integers(2**62, 2**70) | st.integers(-(2**70), -(2**62)),
)
def test_no_id_a_model_can_write_raises(
    toolbox: Toolbox, task_service: TaskService, context: ToolContext, action: str, task_id: int
) -> None:
    arguments: dict[str, Any] = {"action": action, "id": task_id, "text": "Call the electrician"}
    if action != "update":
        del arguments["text"]

    call = toolbox.call(json.dumps({"name": "task", "arguments": arguments}), context, {"task"})

    if not call.result.ok:
        _refused(call)


# -- (b) a key named twice ------------------------------------------------------------
@pytest.mark.parametrize(
    "written",
    [
        # The arguments twice: read as the last, they deleted the task.
        '{"name": "task", "arguments": {"action": "list"}, '
        '"arguments": {"action": "delete", "id": ID}}',
        # The name twice: another tool than the first one named.
        '{"name": "search_memory", "name": "task", "arguments": {"action": "delete", "id": ID}}',
        # A key twice inside the arguments.
        '{"name": "task", "arguments": {"action": "list", "action": "delete", "id": ID}}',
        '{"name": "task", "arguments": {"action": "delete", "id": 99999, "id": ID}}',
    ],
    ids=["arguments twice", "name twice", "action twice", "id twice"],
)
def test_a_key_named_twice_is_refused_and_changes_nothing(
    toolbox: Toolbox,
    task_service: TaskService,
    context: ToolContext,
    plumber: Task,
    written: str,
) -> None:
    call = toolbox.call(written.replace("ID", str(plumber.id)), context, toolbox.names)

    assert _refused(call) == "The tool call is not valid JSON."
    assert _all(task_service) == [plumber]


def test_the_same_call_with_each_key_once_still_runs(
    toolbox: Toolbox, task_service: TaskService, context: ToolContext, plumber: Task
) -> None:
    written = json.dumps({"name": "task", "arguments": {"action": "delete", "id": plumber.id}})

    call = toolbox.call(written, replace(context, said=f"delete #{plumber.id}"), toolbox.names)

    assert call.result.ok
    assert [t.status for t in _all(task_service)] == ["deleted"]


# -- (c) NaN and Infinity -------------------------------------------------------------
NOT_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"]


@pytest.mark.parametrize("number", NOT_NUMBERS)
@pytest.mark.parametrize(
    "written",
    [
        '{"name": "search_memory", "arguments": {"query": "boat", "limit": %s}}',
        '{"name": "no_such_tool", "arguments": {"x": [1, {"y": %s}]}}',
        '{"name": %s, "arguments": {}}',
    ],
    ids=["an argument", "an unknown tool's argument", "the name"],
)
def test_nan_or_infinity_is_no_json_and_refused(
    toolbox: Toolbox, context: ToolContext, written: str, number: str
) -> None:
    call = toolbox.call(written % number, context, toolbox.names)

    assert _refused(call) == "The tool call is not valid JSON."
    json.dumps(call.arguments, allow_nan=False)  # what is stored of the call is JSON


def _turn(chat: ChatService, text: str) -> tuple[int, Recorder]:
    conversation = chat.new_conversation()
    recorder = Recorder()
    turn = chat.send(conversation.id, text)
    turn.seed = False
    chat.run(turn, recorder)
    return conversation.id, recorder


@pytest.mark.parametrize(
    "written",
    [
        '{"name": "search_memory", "arguments": {"query": "boat", "limit": NaN}}',
        '{"name": "no_such_tool", "arguments": {"x": Infinity}}',
        json.dumps({"name": "task", "arguments": {"action": "complete", "id": 2**63}}),
        '{"name": "task", "arguments": {"action": "delete", "id": 1}, '
        '"arguments": {"action": "list"}}',
    ],
    ids=["NaN", "Infinity", "huge id", "arguments twice"],
)
def test_a_bad_call_in_a_chat_turn_is_read_back_and_the_turn_goes_on(
    chat: ChatService,
    model: ScriptedChatModel,
    store: ConversationStore,
    memories: MemoryService,
    written: str,
) -> None:
    model.queue(f"Let me look. {TOOL_CALL_START}{written}", "I could not look it up.")

    conversation_id, recorder = _turn(chat, "What do you know about my boat?")

    assert [r.text for r in recorder.replies()] == ["Let me look.", "I could not look it up."]
    tool = next(m for m in store.messages(conversation_id) if m.role == "tool")
    error = json.loads(tool.content)["error"]
    assert TOOL_ERROR.fullmatch(error), error
    assert error in model.requests[-1][0][-1].content  # the model read what was wrong
    assert memories.browse(MemoryQuery(statuses=())) == []


def test_an_overflowing_id_in_a_turn_changes_no_task(
    chat: ChatService, model: ScriptedChatModel, task_service: TaskService, database: Database
) -> None:
    plumber = task_service.add("Call the plumber", conversation_id=None)
    written = json.dumps({"name": "task", "arguments": {"action": "delete", "id": 2**64}})
    model.queue(f"{TOOL_CALL_START}{written}", "Sorry.")

    _turn(chat, "Delete my plumber task.")

    assert _all(task_service) == [plumber]
