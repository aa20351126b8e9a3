"""The ``task`` tool: one tool with an ``action`` for the whole to-do list.

One tool rather than seven keeps the schema a small model must fill small
and flat: an action from an enum and five optional fields.  A schedule is
written in the words the prompt shows (``daily at 09:00``), held to them by
a pattern in the grammar and read by ``parse_schedule``.  A task with a
``routine`` (what Reverie itself should do each time it runs, e.g. "Suggest
a short stretching exercise") runs that prompt when due instead of only
reminding (see ``desktop.core.tasks.routines``); ``none`` makes it a plain task
again.  What an action
needs (an id, a text) is checked with the arguments, so a call missing it
comes back as wrong arguments; a refusal (a schedule in the past, a
completed task paused) comes back as the tool's failure.  Either way
nothing is changed.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from desktop.core.base.content_words import related
from desktop.core.chat.tools.toolbox import RowId, Tool, ToolContext, ToolFailed, ToolResult
from desktop.core.db.schedules import Once
from desktop.core.db.tasks import DEFAULT_PRIORITY, KEEP, LOW, URGENT, Task
from desktop.core.tasks.schedules import ScheduleWords, parse_schedule
from desktop.core.tasks.service import MODEL_TEXT_CHARS, TaskService, schedule_words

TaskAction = Literal["add", "complete", "update", "pause", "resume", "delete", "list"]
ROUTINE_CHARS = 500
_NEEDS_ID = frozenset({"complete", "update", "pause", "resume", "delete"})
_ENDS = frozenset({"complete", "delete"})
"""Actions that end a task: only on the user's own words (``_check_the_users_call``)."""
_DONE = {
    "add": "added",
    "complete": "completed",
    "update": "updated",
    "pause": "paused",
    "resume": "resumed",
    "delete": "deleted",
}


class TaskCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: TaskAction
    id: RowId | None = None
    text: str | None = Field(None, min_length=1, max_length=MODEL_TEXT_CHARS)
    priority: int | None = Field(None, ge=URGENT, le=LOW)
    schedule: ScheduleWords | None = None
    routine: str | None = Field(None, min_length=1, max_length=ROUTINE_CHARS)

    @model_validator(mode="after")
    def _what_the_action_needs(self) -> TaskCall:
        if self.action in _NEEDS_ID and self.id is None:
            raise ValueError(f"{self.action} needs the id of the task (its #number)")
        if self.action == "add" and self.text is None:
            raise ValueError("add needs the text of the task")
        if self.routine is not None and self.action not in ("add", "update"):
            raise ValueError("a routine is given with add or update")
        if self.action == "add" and self.routine is not None and self.schedule in (None, "none"):
            raise ValueError("a routine needs a schedule saying when it runs")
        changes = (self.text, self.priority, self.schedule, self.routine)
        if self.action == "update" and all(change is None for change in changes):
            raise ValueError("update needs a new text, priority, schedule or routine")
        return self


def task_tools(tasks: TaskService) -> list[Tool[Any]]:
    def described(task: Task) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "id": task.id,
            "text": task.text,
            "priority": task.priority,
            "status": task.status,
        }
        if (words := schedule_words(task)) is not None:
            shown["schedule"] = words
        if task.ai_prompt is not None:
            shown["routine"] = task.ai_prompt
        if task.status == "active" and (upcoming := tasks.next_run(task)) is not None:
            shown["next_run"] = f"{upcoming:%Y-%m-%d %H:%M}"
        return shown

    def run(arguments: TaskCall, context: ToolContext) -> ToolResult:
        if arguments.action == "list":
            listed = [described(task) for task in tasks.list()]
            return ToolResult(True, {"tasks": listed}, f"Listed {len(listed)} open tasks.")
        task = _act(tasks, arguments, context)
        shown = described(task)
        done = _DONE[arguments.action]
        when = f" [{shown['schedule']}]" if "schedule" in shown else ""
        summary = f"Task #{task.id} {done}: {task.text}{when}"
        return ToolResult(True, {"result": done, "task": shown}, summary)

    return [Tool("task", TaskCall, run, changes_memory=True)]


def _act(tasks: TaskService, arguments: TaskCall, context: ToolContext) -> Task:
    schedule = (
        None if arguments.schedule is None else parse_schedule(arguments.schedule, tasks.now())
    )
    if arguments.action == "add":
        assert arguments.text is not None  # checked with the arguments
        return tasks.add(
            arguments.text,
            conversation_id=context.conversation_id,
            priority=arguments.priority or DEFAULT_PRIORITY,
            schedule=schedule,
            ai_prompt=_routine(arguments.routine),
        )
    assert arguments.id is not None  # checked with the arguments
    if arguments.action in _ENDS:
        _check_the_users_call(tasks.get(arguments.id), arguments.action, context.said)
    if arguments.action == "update":
        return tasks.update(
            arguments.id,
            text=arguments.text,
            priority=arguments.priority,
            schedule=KEEP if arguments.schedule is None else schedule,
            ai_prompt=KEEP if arguments.routine is None else _routine(arguments.routine),
        )
    steps = {
        "complete": tasks.complete,
        "pause": tasks.pause,
        "resume": tasks.resume,
        "delete": tasks.delete,
    }
    return steps[arguments.action](arguments.id)


def _check_the_users_call(task: Task | None, action: str, said: str) -> None:
    """``ToolFailed``, which the model reads, unless completing or deleting
    *task* is the user's call: what they just said (*said*, with Reverie's
    question before it) speaks of the task, by its words or its #id.  A
    small model, or words planted in a memory or a tool's result, must not
    end a task after "hi".  A repeating task is never completed here:
    that would end every later reminder, not today's one."""
    if task is None:
        return  # the store says there is no such task
    if action == "complete" and task.schedule is not None and not isinstance(task.schedule, Once):
        raise ToolFailed(
            f"task #{task.id} repeats ({schedule_words(task)}): completing it would end every "
            "later reminder, not today's. Nothing is needed for today's; to stop it, pause "
            "or delete it when the user asks."
        )
    if not related(task.text, said) and not re.search(rf"#{task.id}\b", said):
        raise ToolFailed(
            f"the user has not spoken of task #{task.id} in this message: ask them before "
            f"you {action} it"
        )


def _routine(words: str | None) -> str | None:
    """The routine's prompt as written; None for none."""
    return None if words is None or words.strip().lower() == "none" else words
