"""Tests of the ``task`` tool: one call per action, written as a model would
write it, and every bad call answered with a clear error and no change."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, time
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.tools.tasks import TaskCall, task_tools
from desktop.core.chat.tools.toolbox import Toolbox, ToolContext
from desktop.core.db import ConversationStore, Database
from desktop.core.db.schedules import Daily
from desktop.core.db.tasks import EVERY_STATUS, Task, TaskStore
from desktop.core.tasks.schedules import parse_schedule
from desktop.core.tasks.service import TaskService
from models.interfaces import ChatMessage, GenerationOptions
from models.llama_chat import LlamaChatModel
from models.sampling import grammar_for_schema
from tests.unit.core.chat.tool_checks import TOOL_ERROR

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 22, 12, tzinfo=BERLIN)
TASK = frozenset({"task"})
DONE = {
    "add": "added",
    "complete": "completed",
    "update": "updated",
    "pause": "paused",
    "resume": "resumed",
    "delete": "deleted",
}
"""What each action says it did."""


@pytest.fixture
def tasks(database: Database) -> TaskService:
    return TaskService(TaskStore(database, clock=NOW.timestamp), BERLIN, clock=lambda: NOW)


@pytest.fixture
def toolbox(tasks: TaskService, prompts: PromptLibrary) -> Toolbox:
    return Toolbox(task_tools(tasks), prompts)


@pytest.fixture
def context(store: ConversationStore) -> ToolContext:
    conversation = store.create("tasks")
    message = store.add_message(conversation.id, "user", "Remind me to water the plants.")
    return ToolContext(conversation.id, (message.id,), message.content)


def _call(**arguments: Any) -> str:
    return json.dumps({"name": "task", "arguments": arguments})


def _all(tasks: TaskService) -> list[Task]:
    return tasks.list(EVERY_STATUS)


def test_the_schema_is_small_flat_and_compiles(toolbox: Toolbox, prompts: PromptLibrary) -> None:
    [option] = toolbox.schema(TASK)["anyOf"]
    arguments = option["properties"]["arguments"]

    assert arguments["required"] == ["action"]
    assert list(arguments["properties"]) == [
        "action",
        "id",
        "text",
        "priority",
        "schedule",
        "routine",
    ]
    assert arguments["properties"]["action"]["enum"] == [
        "add",
        "complete",
        "update",
        "pause",
        "resume",
        "delete",
        "list",
    ]
    assert "daily at" in grammar_for_schema(toolbox.schema(TASK))
    described = toolbox.describe(TASK)
    assert described.startswith(
        "- task(action: add | complete | update | pause | resume | delete | list, "
        "id?: whole number, text?: text, priority?: whole number, schedule?: text, "
        "routine?: text): "
        "Keep the user's to-do list."
    )


def test_add_stores_a_task_in_the_calls_conversation(
    toolbox: Toolbox, tasks: TaskService, context: ToolContext
) -> None:
    context = replace(context, said="Remind me to water the plants daily at 9am, it matters")
    call = toolbox.call(
        _call(action="add", text="Water the plants", priority=3, schedule="daily at 09:00"),
        context,
        TASK,
    )

    [task] = _all(tasks)
    assert call.result.ok
    assert (task.conversation_id, task.text, task.priority) == (
        context.conversation_id,
        "Water the plants",
        3,
    )
    assert call.result.content == {
        "result": "added",
        "task": {
            "id": task.id,
            "text": "Water the plants",
            "priority": 3,
            "status": "active",
            "schedule": "daily at 09:00",
            "next_run": "2026-11-23 09:00",
        },
    }
    assert call.result.summary == f"Task #{task.id} added: Water the plants [daily at 09:00]"


def test_a_schedule_counted_from_now_is_read_on_the_tasks_clock(
    toolbox: Toolbox, tasks: TaskService, context: ToolContext
) -> None:
    context = replace(context, said="Remind me to call the bank tomorrow at 9am")
    call = toolbox.call(
        _call(action="add", text="Call the bank", schedule="tomorrow at 9am"), context, TASK
    )

    assert call.result.ok, call.result.summary
    [task] = _all(tasks)
    assert task.next_run_at == datetime(2026, 11, 23, 9, tzinfo=BERLIN).timestamp()


def test_add_with_a_routine_makes_a_task_that_runs_its_prompt(
    toolbox: Toolbox, tasks: TaskService, context: ToolContext
) -> None:
    context = replace(context, said="Every day at 15:00, suggest a short stretching exercise.")
    call = toolbox.call(
        _call(
            action="add",
            text="Stretch",
            schedule="daily at 15:00",
            routine="  Suggest one short stretching exercise. ",
        ),
        context,
        TASK,
    )

    [task] = _all(tasks)
    assert call.result.ok, call.result.content
    assert task.is_routine and task.ai_prompt == "Suggest one short stretching exercise."
    assert call.result.content["task"]["routine"] == task.ai_prompt


def test_update_gives_a_task_a_routine_and_none_takes_it_away(
    toolbox: Toolbox, tasks: TaskService, context: ToolContext
) -> None:
    context = replace(context, said="Remind me to stretch daily at 15:00")
    added = toolbox.call(
        _call(action="add", text="Stretch", schedule="daily at 15:00"), context, TASK
    )
    task_id = added.result.content["task"]["id"]
    context = replace(context, said="Have my stretch reminder suggest a stretch.")

    given = toolbox.call(
        _call(action="update", id=task_id, routine="Suggest a stretch."), context, TASK
    )
    assert given.result.ok and given.result.content["task"]["routine"] == "Suggest a stretch."
    assert tasks.get(task_id).schedule is not None  # type: ignore[union-attr]

    taken = toolbox.call(_call(action="update", id=task_id, routine="none"), context, TASK)
    assert taken.result.ok and "routine" not in taken.result.content["task"]
    assert not tasks.get(task_id).is_routine  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"action": "add", "text": "Stretch", "routine": "Suggest a stretch."}, "needs a schedule"),
        (
            {"action": "pause", "id": 1, "routine": "Suggest a stretch."},
            "a routine is given with add or update",
        ),
    ],
)
def test_a_routine_without_a_schedule_or_with_the_wrong_action_is_refused(
    toolbox: Toolbox,
    tasks: TaskService,
    context: ToolContext,
    arguments: dict[str, Any],
    message: str,
) -> None:
    call = toolbox.call(_call(**arguments), context, TASK)

    assert not call.result.ok and message in call.result.content["error"]
    assert _all(tasks) == []


def test_each_action_does_what_it_says(
    toolbox: Toolbox, tasks: TaskService, context: ToolContext
) -> None:
    # Round 18: each change is the user's call, so the user asks for each.
    said = replace(
        context,
        said="I paid the rent. Call Ana back every 30 minutes, then pause the Ana task, "
        "resume it, and delete it.",
    )

    def run(**arguments: Any) -> dict[str, Any]:
        call = toolbox.call(_call(**arguments), said, TASK)
        assert call.result.ok, call.result.content
        return call.result.content

    task_id = run(action="add", text="Call Ana")["task"]["id"]
    other = run(action="add", text="Pay the rent", priority=1)["task"]["id"]

    assert run(action="update", id=task_id, text="Call Ana back", schedule="every 30 minutes")[
        "task"
    ] == {
        "id": task_id,
        "text": "Call Ana back",
        "priority": 5,
        "status": "active",
        "schedule": "every 30 minutes",
        "next_run": "2026-11-22 12:30",
    }
    assert "schedule" not in run(action="update", id=task_id, schedule="none")["task"]
    assert run(action="pause", id=task_id)["result"] == "paused"
    assert [t["id"] for t in run(action="list")["tasks"]] == [other, task_id]
    assert run(action="resume", id=task_id)["task"]["status"] == "active"
    assert run(action="complete", id=other)["task"]["status"] == "completed"
    assert run(action="delete", id=task_id)["result"] == "deleted"
    assert run(action="list") == {"tasks": []}


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"action": "remind", "text": "x"}, "action: Input should be 'add', 'complete', 'update'"),
        ({"text": "Water the plants"}, "Wrong arguments for task: action: Field required."),
        ({"action": "complete", "id": "the first"}, "id: Input should be a valid integer"),
        # Strict types: true is not task #1, nor "3" or 3.0 a priority.
        ({"action": "delete", "id": True}, "id: Input should be a valid integer"),
        ({"action": "delete", "id": "1"}, "id: Input should be a valid integer"),
        ({"action": "add", "text": "Tea", "priority": True}, "priority: Input should be a valid"),
        ({"action": "add", "text": "Tea", "priority": 3.0}, "priority: Input should be a valid"),
        ({"action": "add", "text": 5}, "text: Input should be a valid string"),
        ({"action": "add", "text": "Tea", "priority": "high"}, "priority: Input should be a valid"),
        ({"action": "add", "text": "Tea", "priority": 11}, "priority: Input should be less than"),
        ({"action": "add", "text": "Tea", "when": "now"}, "when: Extra inputs are not permitted"),
        ({"action": "complete"}, "complete needs the id of the task (its #number)"),
        ({"action": "add"}, "add needs the text of the task"),
        ({"action": "update", "id": 1}, "update needs a new text, priority, schedule or routine"),
        (
            {"action": "add", "text": "Vote", "schedule": "once on 2020-01-01 09:00"},
            "task failed: Once on 2020-01-01 09:00 is in the past (it is now 2026-11-22 12:00)",
        ),
        (
            {"action": "add", "text": "Drink", "schedule": "every 30 minutes 08:00-08:00"},
            "task failed: The time window 08:00-08:00 is empty",
        ),
        (
            {"action": "add", "text": "Drink", "schedule": "daily at 25:00"},
            "task failed: '25:00' is not a time of day",
        ),
        (
            {"action": "add", "text": "Drink", "schedule": "every 0 minutes"},
            "task failed: Every 0 minutes is not a schedule",
        ),
        ({"action": "add", "text": "   "}, "task failed: A task needs some text"),
        ({"action": "complete", "id": 99}, "task failed: There is no task #99."),
        ({"action": "resume", "id": 1}, "task failed: the user has not asked to resume it"),
        ({"action": "update", "id": 1, "text": "x" * 301}, "text: String should have at most 300"),
    ],
)
def test_a_bad_call_gets_a_clear_error_and_changes_nothing(
    toolbox: Toolbox,
    tasks: TaskService,
    context: ToolContext,
    arguments: dict[str, Any],
    error: str,
) -> None:
    existing = tasks.add("Already here", conversation_id=context.conversation_id)
    assert existing.id == 1
    context = replace(context, said="about #1")  # the user's call: the store refuses

    call = toolbox.call(_call(**arguments), context, TASK)

    assert not call.result.ok
    assert error in call.result.content["error"]
    assert _all(tasks) == [existing]


def test_off_the_record_the_task_list_is_not_offered(toolbox: Toolbox) -> None:
    assert toolbox.offered(off_record=False) == TASK
    assert toolbox.offered(off_record=True) == frozenset()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3)
    ),
    max_leaves=8,
)
_ARGUMENTS = st.fixed_dictionaries(
    {},
    optional={
        "action": st.sampled_from(["add", "complete", "update", "pause", "resume", "list", "x"]),
        "id": st.integers(-2, 4) | _JSON,
        "text": st.text(max_size=40) | _JSON,
        "priority": st.integers(-1, 12) | _JSON,
        "schedule": st.sampled_from(["daily at 09:00", "every 5 minutes", "none", "soon"]) | _JSON,
    },
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(arguments=_ARGUMENTS)
def test_no_task_call_a_model_can_write_raises(
    toolbox: Toolbox, tasks: TaskService, context: ToolContext, arguments: dict[str, Any]
) -> None:
    before = _all(tasks)

    call = toolbox.call(_call(**arguments), context, TASK)

    after = _all(tasks)
    if not call.result.ok:  # one error the model can read, and nothing changed
        assert set(call.result.content) == {"error"}
        assert TOOL_ERROR.fullmatch(call.result.content["error"]), call.result.content
        assert after == before
        return
    TaskCall.model_validate(call.arguments, strict=True)  # run only as it was written
    action = call.arguments["action"]
    if action == "list":
        assert set(call.result.content) == {"tasks"}
        assert after == before
        return
    assert call.result.content["result"] == DONE[action]
    [acted_on] = [t for t in after if t.id == call.result.content["task"]["id"]]
    if action == "add":
        assert acted_on not in before and len(after) == len(before) + 1
        assert acted_on.conversation_id == context.conversation_id
    else:
        assert acted_on.id == call.arguments["id"]
        assert [t for t in after if t.id != acted_on.id] == [
            t for t in before if t.id != acted_on.id
        ]


@pytest.mark.model
def test_a_call_the_real_small_model_writes_under_the_schema_is_run_as_the_user_asked(
    smollm2: LlamaChatModel, toolbox: Toolbox, tasks: TaskService, context: ToolContext
) -> None:
    said = "Remind me to water the plants every day at 09:00."
    prompt = [
        ChatMessage("system", f"Tools:\n{toolbox.describe(TASK)}"),
        ChatMessage("user", said),
    ]
    options = GenerationOptions(temperature=0.0, max_tokens=160, json_schema=toolbox.schema(TASK))

    written = "".join(chunk.text for chunk in smollm2.stream(prompt, options))
    call = toolbox.call(written, replace(context, said=said), TASK)

    assert (call.name, call.arguments.get("action")) == ("task", "add")
    if call.arguments.get("routine") not in (None, "none"):
        # SmolLM2 copies the routine of the tool's own description ("suggest
        # one short stretching exercise"): nobody asked for it, so nothing is added.
        assert not call.result.ok and "routine" in call.result.content["error"]
        assert _all(tasks) == []
        return
    assert call.result.ok, (call.arguments, call.result.content)
    [task] = _all(tasks)
    assert task.conversation_id == context.conversation_id
    assert "water the plants" in task.text.casefold()
    assert task.schedule == Daily(time(9))


@pytest.mark.parametrize("action", ["complete", "delete"])
def test_a_task_is_ended_only_when_the_user_spoke_of_it(
    toolbox: Toolbox, tasks: TaskService, context: ToolContext, action: str
) -> None:
    """Round 17: the model ended a task after "hi, what's the weather like?"."""
    task = tasks.add("Pay the rent", conversation_id=context.conversation_id)
    hello = replace(context, said="hi, what's the weather like?")

    refused = toolbox.call(_call(action=action, id=task.id), hello, TASK)

    assert not refused.result.ok
    assert "has not spoken of task" in refused.result.content["error"]
    assert tasks.get(task.id).status == "active"  # type: ignore[union-attr]
    # Round 18: a "yes" answers Reverie's question, and a deletion is asked for.
    words = {
        "complete": [("Did you pay the rent?", "yes"), ("", "done with #{}, thanks")],
        "delete": [("Shall I delete the rent task?", "yes"), ("", "delete #{}, thanks")],
    }
    for asked, answer in words[action]:
        again = tasks.add("Pay the rent", conversation_id=context.conversation_id)
        said = replace(context, asked=asked, said=answer.format(again.id))
        call = toolbox.call(_call(action=action, id=again.id), said, TASK)
        assert call.result.ok, call.result.content


def test_a_repeating_task_is_never_completed_by_the_model(
    toolbox: Toolbox, tasks: TaskService, context: ToolContext
) -> None:
    """Completing a daily task ends every later reminder, not today's."""
    task = tasks.add(
        "Take warfarin",
        conversation_id=context.conversation_id,
        schedule=parse_schedule("daily at 08:00", tasks.now()),
    )
    took = replace(context, said="I took my warfarin, please delete the reminder")

    call = toolbox.call(_call(action="complete", id=task.id), took, TASK)

    assert not call.result.ok and "repeats (daily at 08:00)" in call.result.content["error"]
    assert tasks.get(task.id).status == "active"  # type: ignore[union-attr]
    deleted = toolbox.call(_call(action="delete", id=task.id), took, TASK)
    assert deleted.result.ok  # what the user asks to stop can still go
