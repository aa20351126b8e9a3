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
completed task paused, a change the user did not ask for:
``_check_the_users_call``) comes back as the tool's failure.  Either way
nothing is changed.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from desktop.core.base.content_words import DENIED, against, changes, new_words, sentences
from desktop.core.base.text_fold import APOSTROPHES
from desktop.core.chat.tools.toolbox import RowId, Tool, ToolContext, ToolFailed, ToolResult
from desktop.core.db import Message
from desktop.core.db.schedules import Once
from desktop.core.db.tasks import DEFAULT_PRIORITY, KEEP, LOW, URGENT, Task
from desktop.core.tasks.evidence import said_done
from desktop.core.tasks.rewrites import (
    REQUEST,
    only_asks,
    schedule_unsaid,
    speaks_of,
    unfaithful,
)
from desktop.core.tasks.schedules import ScheduleWords, parse_schedule
from desktop.core.tasks.service import MODEL_TEXT_CHARS, TaskService, schedule_words

TaskAction = Literal["add", "complete", "update", "pause", "resume", "delete", "list"]
ROUTINE_CHARS = 500
_NEEDS_ID = frozenset({"complete", "update", "pause", "resume", "delete"})
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
            approve=lambda text: _check_asked_to_add(text, arguments, context),
        )
    assert arguments.id is not None  # checked with the arguments
    found = tasks.get(arguments.id)
    if found is not None:  # else the store says there is no such task
        before = context.tasks_before.setdefault(found.id, found)
        _check_the_users_call(before, arguments, context)
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


def _check_the_users_call(task: Task, arguments: TaskCall, context: ToolContext) -> None:
    """``ToolFailed``, which the model reads, unless changing *task* (as the
    turn found it) as *arguments* say is the user's call, in their own
    message (``context.said``).  A small model, or words planted in a
    memory or a tool's result, must not end, pause or rewrite a task after
    "hi", "take care" or "please don't delete it":

    - every action needs the message to speak of the task (its own words,
      not only its verb, or its #id), or to be a plain "yes" to Reverie's
      question about it, which then asked for that action and named what
      changes (``_unasked``: "Did you take your warfarin?" "yes" pauses
      nothing and moves no time);
    - complete needs the user's words to say it is done (``said_done``, the
      dream's and the agenda's rule), and never a repeating task: that
      would end every later reminder, not today's;
    - delete needs them to ask for it ("delete", "remove", "don't need"),
      not denied;
    - a new text is faithful to the old and to the user's words about it
      (``rewrites.unfaithful``)."""
    said, action = context.said, arguments.action
    by_id = re.search(rf"#{task.id}\b", said) is not None
    answered = _agreed_to(task.text, context) or (
        _agrees(said) and f"#{task.id}" in context.asked and context.asked.rstrip().endswith("?")
    )
    if not (speaks_of(task.text, said) or by_id or answered):
        raise ToolFailed(
            f"the user has not spoken of task #{task.id} in this message: ask them before "
            f"you {action} it"
        )
    if not answered and (why := _not_a_call(task, action, said)):
        raise ToolFailed(f"{why}: ask them before you {action} task #{task.id}")
    if answered and not (speaks_of(task.text, said) or by_id):
        unasked = _unasked(task, arguments, context.asked)
        if unasked:
            raise ToolFailed(
                f"the user's yes answers your question, which did not ask to {action} task "
                f"#{task.id} so ({unasked}): ask them"
            )
    if action == "complete":
        _check_done(task, context, by_id or answered)
    deleting = _asks_to_delete(context.asked, question=True) if answered else _asks_to_delete(said)
    if action == "delete" and not deleting:
        raise ToolFailed(
            f"the user has not asked to delete task #{task.id}: ask them before you delete it"
        )
    words = "\n".join([said, context.asked] if answered else [said])
    schedule = None if action != "update" else arguments.schedule
    if schedule is not None and (why := schedule_unsaid(schedule, words)):
        raise ToolFailed(f"{why} by the user for task #{task.id}: ask them")
    if action == "update" and arguments.text is not None:
        waits = unfaithful(task.text, arguments.text, [words])
        if waits:
            raise ToolFailed(
                f"the new text of task #{task.id} is not what the user said ({waits}): ask them"
            )


def _check_asked_to_add(text: str, arguments: TaskCall, context: ToolContext) -> None:
    """``ToolFailed`` unless the user's message asks for the task *text*:
    it speaks of it (or says yes to Reverie's question that does), not
    only asking about it; its schedule is one they named, and its routine
    (a prompt Reverie runs by itself at each time) speaks of what they
    said.  "hi, what's the weather like?" added a daily routine to take a
    double dose of warfarin."""
    routine = _routine(arguments.routine)
    named = [text] if routine is None else [text, routine]  # a routine's task is its prompt

    def names_it(words: str) -> bool:
        return any(speaks_of(name, words) for name in named)

    answered = (
        _agrees(context.said) and context.asked.rstrip().endswith("?") and names_it(context.asked)
    )
    words = "\n".join([context.said, context.asked] if answered else [context.said])
    about = [s for s in sentences(context.said.translate(APOSTROPHES)) if names_it(s)]
    if not (answered or about):
        raise ToolFailed("the user has not asked for this task in this message: ask them first")
    if not answered and all(only_asks(s) for s in about):
        raise ToolFailed("the user only asked about it: ask them whether to add it")
    if arguments.schedule is not None and (why := schedule_unsaid(arguments.schedule, words)):
        raise ToolFailed(f"{why} by the user: ask them when")
    if routine is not None and not speaks_of(routine, words):
        raise ToolFailed("the routine is not what the user asked for: ask them")


def _check_done(task: Task, context: ToolContext, pointed: bool) -> None:
    """``ToolFailed`` unless the user's message says *task* is done; a
    message that says something done without naming it counts when it
    points at the task (its #id, a "yes" to Reverie's question)."""
    if task.schedule is not None and not isinstance(task.schedule, Once):
        raise ToolFailed(
            f"task #{task.id} repeats ({schedule_words(task)}): completing it would end every "
            "later reminder, not today's. Nothing is needed for today's; to stop it, pause "
            "or delete it when the user asks."
        )
    # The user's message of this turn, newer than the task as the turn found it.
    message = Message(0, context.conversation_id, "user", context.said, math.inf, None, None, None)
    evidence = said_done(task, context.said, [message])
    pointing = evidence.doubt == "unrelated" or evidence.against in ("unquoted", "unsaid")
    if evidence.done or (
        pointed and pointing and not (evidence.against and not _agrees(context.said))
    ):
        return
    raise ToolFailed(
        f"task #{task.id} is not completed: {evidence.reason or 'the user has not said it is done'}"
        "; ask the user"
    )


_YES = re.compile(r"^\W*(?:yes|yeah|yep|yup|sure|ok|okay|right|correct|indeed|please do)\b", re.I)
_DELETE = re.compile(
    r"\b(?:delete|remove|cancel|drop|scrap|get rid of|(?:do not|don't|no longer) need)\b",
    re.IGNORECASE,
)


_ASKS_FOR = {
    "pause": re.compile(r"\b(?:pause|hold|suspend|stop|skip|snooze|mute|break)", re.I),
    "resume": re.compile(r"\b(?:resume|restart|unpause|again|back on)\b", re.I),
}
_PRIORITY = re.compile(r"\b(?:priority|urgent|important|matters? most)\b", re.I)


def _agreed_to(text: str, context: ToolContext) -> bool:
    """Is the user's message a plain "yes" to Reverie's question about *text*?"""
    asked = context.asked.rstrip()
    return _agrees(context.said) and asked.endswith("?") and speaks_of(text, asked)


def _agrees(said: str) -> bool:
    """Is *said* a plain "yes", denying nothing and asking nothing?"""
    return bool(_YES.match(said)) and DENIED not in changes(said) and "?" not in said


def _not_a_call(task: Task, action: str, said: str) -> str | None:
    """Why the user's own words about *task* are no call to *action* it
    (None: they may be): every sentence of them asks ("Should I remove the
    passport task?") or denies ("Please don't pause my warfarin reminder",
    "No way, keep it"); a pause or a resume they do not ask for ("I took my
    warfarin this morning" pauses nothing).  A delete is read by
    ``_asks_to_delete``, which knows "I don't need it" asks for one."""
    plain = said.translate(APOSTROPHES)
    about = [s for s in sentences(plain) if speaks_of(task.text, s) or f"#{task.id}" in s]
    if about and all(only_asks(s) for s in about):
        return "the user only asked about it"
    if action != "delete" and about and all(DENIED in changes(s) for s in about):
        return "the user said not to"
    if action in _ASKS_FOR and not _ASKS_FOR[action].search(plain):
        return f"the user has not asked to {action} it"
    return None


def _unasked(task: Task, arguments: TaskCall, asked: str) -> str | None:
    """What of *arguments* Reverie's question *asked* did not ask for (None:
    a "yes" to it agrees to all of it): its verb for a pause or a resume,
    and each new value of an update (the text faithful to the question,
    every time and word of the schedule, the priority, the routine)."""
    action = arguments.action
    if action in _ASKS_FOR and not _ASKS_FOR[action].search(asked):
        return f"it did not ask to {action} it"
    if action != "update":
        return None
    if arguments.text is not None and (why := unfaithful(task.text, arguments.text, [asked])):
        return f"the new text: {why}"
    if arguments.priority is not None and not _PRIORITY.search(asked):
        return "it did not ask about its priority"
    if arguments.routine is not None and (added := new_words(arguments.routine, [asked])):
        return f"the routine says {', '.join(added)}, which it did not"
    return None


def _asks_to_delete(said: str, *, question: bool = False) -> bool:
    """Does *said* ask for a deletion ("delete", "remove", "don't need"),
    with no denial before it in its sentence ("please don't delete it") nor
    words against it in its clause ("I would hate for you to remove it")?"""
    plain = said.translate(APOSTROPHES)
    for found in _DELETE.finditer(plain):
        # Its sentence up to the verb ("do not, under any circumstances,
        # delete"), and not a question ("Delete? No way", "Should I remove it?").
        start = max(plain.rfind(end, 0, found.start()) for end in ".!?;\n") + 1
        rest = plain[found.end() :]
        asked = re.match(r"[^.!?;\n]*\?", rest) is not None and not REQUEST.match(plain[start:])
        before = plain[start : found.start()]
        clause = before[max(before.rfind(","), before.rfind(":")) + 1 :]
        unwanted = DENIED in changes(before) or against(clause)  # "I would hate for you to"
        if not unwanted and (question or not asked):
            return True
    return False


def _routine(words: str | None) -> str | None:
    """The routine's prompt as written; None for none."""
    return None if words is None or words.strip().lower() == "none" else words
