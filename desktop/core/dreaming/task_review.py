"""Tidying tasks: what is done is completed, what changed is updated, old
completed tasks are purged.

When tasks changed or the user said something since the last dream, the
open tasks (as numbers) and the user's recent messages go to the model,
which answers with one action per task it acts on: ``complete``,
``update`` (new text or priority) or ``keep``.  An update that changes
nothing (the same words, the same priority) is no change.  The numbers are
mapped back to tasks; an action on a number it was not shown, two actions
on one task or an empty text refuse the whole pass.  A new text is kept as
every task text is (``TaskService.checked_text``: one line, as a reader
sees it, secrets taken out); one that cannot be a task's is refused, with
its reason in the report, and that task is left as it is.  A new text
replaces what the user had only if it is faithful to it (``rewrites.unfaithful``:
the old text's numbers, names, words and denials, each on its side of a
"not", save what the user's sentences since that speak of the task say);
any other waits for the user's approval in the dream report, with before
and after.  A task is completed
only on the user's own word: the answer quotes it (``evidence``), and the
host reads it in the message the user typed after the task was made or
reopened (``task_evidence.said_done``, the rule the agenda review shares):
only a sentence positively saying it is done, with no later word taking it
back, completes it; anything else (no quote found, a denial, a question, a
plan, a task merely named, a repeating task) leaves it open, said in the
report.  Even then a dream does not complete it: the completion waits for
the user's approval in the dream report, with the words it was read from
(a model reading the user wrong would end a task for good).  A new text records
the messages (and their conversations) it was written from, so erasing
them retracts the change.  Completed tasks older than ``task_purge_days``
are purged: deleted, restorable, like every change here; planned on the
host, whatever the model's context holds.

The prompt fits the model's context (``PassContext.fit``): the messages
take up to half of it, the oldest first (those left out keep the pass's
mark before them, for the next dream); the tasks are then shown in as many
parts as it takes, one model call each.  A context too small for even one
task leaves the tasks as they are, said in the report.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from desktop.core.base.text import cut
from desktop.core.base.tokens import cut_middle
from desktop.core.db import ConversationStore, Message
from desktop.core.db.tasks import OPEN, Task
from desktop.core.dreaming.passes import PassContext, PassRejected, numbered
from desktop.core.dreaming.proposals import Proposal
from desktop.core.tasks.evidence import QUOTE_CHARS, said_done
from desktop.core.tasks.rewrites import unfaithful
from desktop.core.tasks.service import TaskRefused, TaskService, schedule_words
from models.interfaces import ChatMessage

TEMPLATE = "DREAM_TASK_PROMPT.txt"
DAY = 86_400.0
MAX_MESSAGES = 40
MESSAGES_SHARE = 0.5
"""Of the prompt's room, what the messages may take: the rest is for the tasks."""
MESSAGE_CHARS = 300
ANSWER_TOKENS = 1024
"""Room for the answer about one part of the tasks."""
ACTION_TOKENS = 32
"""What an action takes beside the task's text (its number, its kind, a
priority, the JSON around them).  A part holds no more tasks than an
answer naming each with its text fits in ``ANSWER_TOKENS``: SmolLM2 names
every task shown, rewritten or not, and an answer cut at its last token is
no answer (120 tasks in parts of 60: each part's answer cut, the pass
rolled back at every dream, the old completed tasks never purged)."""
_WORD = re.compile(r"\w+", re.UNICODE)


class TaskAction(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    task: int
    action: Literal["complete", "update", "keep"]
    text: str | None = Field(None, max_length=300)
    priority: int | None = Field(None, ge=1, le=10)
    evidence: str | None = Field(None, max_length=QUOTE_CHARS)
    """With ``complete``: the user's own words saying the task is done."""


class TaskAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    actions: list[TaskAction]


class TaskPass:
    name = "tasks"
    title = "Tidying tasks"

    def __init__(self, tasks: TaskService, conversations: ConversationStore) -> None:
        self._tasks = tasks
        self._conversations = conversations

    def plan(self, context: PassContext) -> list[Proposal]:
        return self._purges(context) + self._reviewed(context)

    def _purges(self, context: PassContext) -> list[Proposal]:
        before = context.now - context.settings.task_purge_days * DAY
        return [
            Proposal(
                "task_purge",
                f"Purged task #{task.id}, completed over {context.settings.task_purge_days} "
                f"days ago: {task.text}",
                {"task": task.id},
            )
            for task in self._tasks.list(("completed",))
            if task.completed_at is not None and task.completed_at < before
        ]

    def _reviewed(self, context: PassContext) -> list[Proposal]:
        since = context.judged_through or 0.0
        tasks = self._tasks.list(OPEN)
        said = self._conversations.user_messages_since(since, MAX_MESSAGES)
        if not tasks or (not said and all(t.updated_at <= since for t in tasks)):
            return []
        _, said = context.fit_messages(
            TEMPLATE, "messages", said, MESSAGE_CHARS, ANSWER_TOKENS, MESSAGES_SHARE, tasks="[1]"
        )
        listed = numbered([cut_middle(m.content, len(m.content), MESSAGE_CHARS) for m in said])
        proposals: list[Proposal] = []
        rest = tasks
        shown_messages = listed or "(none)"
        while rest:
            lines = [_line(t) for t in rest]
            fitted = context.fit(TEMPLATE, "tasks", lines, ANSWER_TOKENS, messages=shown_messages)
            answerable = _answerable(context.tokens(lines[: fitted.shown]))
            if answerable < fitted.shown:
                lines = lines[:answerable]
                fitted = context.fit(
                    TEMPLATE, "tasks", lines, ANSWER_TOKENS, messages=shown_messages
                )
            if not fitted.shown:
                context.notes.append(
                    f"{len(rest)} of the {len(tasks)} open tasks were left as they are: the "
                    "model's context is too small to show them with your messages."
                )
                context.leave_for_next(since)
                break
            part, rest = rest[: fitted.shown], rest[fitted.shown :]
            proposals += self._part(context, part, fitted.messages, said)
        return proposals

    def _part(
        self,
        context: PassContext,
        tasks: list[Task],
        messages: list[ChatMessage],
        said: list[Message],
    ) -> list[Proposal]:
        """The changes the model makes to *tasks*, shown by *messages*."""
        step = "tasks:" + ",".join(f"{t.id}@{t.updated_at}" for t in tasks)
        answer = context.ask(step, messages, TaskAnswer, schema(len(tasks)), ANSWER_TOKENS)
        named = [action.task for action in answer.actions]
        raw = answer.model_dump_json()
        if any(not 1 <= n <= len(tasks) for n in named):
            raise PassRejected("the model named tasks it was not shown", raw)
        if len(set(named)) < len(named):
            raise PassRejected("the model gave one task two actions", raw)
        proposals = []
        for action in answer.actions:
            task = tasks[action.task - 1]
            if action.action == "complete":
                proposal = _completion(context, task, action.evidence, said)
            else:
                proposal = _update(self._tasks, context, task, action, raw, said)
            if proposal is not None:
                proposals.append(proposal)
        return proposals


_SHOWN_QUOTE = 120
"""How much of the user's words the report says a completion was read from."""


def _completion(
    context: PassContext, task: Task, quote: str | None, said: list[Message]
) -> Proposal | None:
    """Completing *task*, waiting for the user's approval, if their own
    words (*quote*) say so (``said_done``), or might (a doubt); None
    otherwise, said in the report."""
    evidence = said_done(task, quote, said)
    if evidence.message is None or evidence.against or quote is None:
        context.notes.append(f"Task #{task.id} was left open: {evidence.reason}.")
        return None
    payload: dict[str, Any] = {
        "task": task.id,
        "evidence": quote.strip(),
        "message": evidence.message.id,
    }
    # A model read the words, and words read wrong end a task for good
    # ("I'm so done with these plants", "Correction: I haven't"): a dream
    # never completes one on its own, the user approves what it read.
    said_it = f"you said “{cut(quote.strip(), _SHOWN_QUOTE)}”"
    payload["waits"] = evidence.reason if evidence.doubt else said_it
    return Proposal(
        "task_complete", f"Completed task #{task.id}: {task.text}", payload, needs_approval=True
    )


def _update(
    tasks: TaskService,
    context: PassContext,
    task: Task,
    action: TaskAction,
    raw: str,
    said: list[Message],
) -> Proposal | None:
    """Updating *task* as *action* says, None if that changes nothing; a
    new text as every task text is kept (``TaskService.checked_text``), or
    refused with its reason in the report, and then nothing is changed."""
    if action.action == "keep":
        return None
    text = action.text.strip() if action.text is not None else None
    if text == "":
        raise PassRejected("the model would empty a task's text", raw)
    if text is not None:
        try:
            text = tasks.checked_text(text)
        except TaskRefused as refused:
            context.notes.append(f"Task #{task.id} was not updated: {refused}")
            return None
    updated: dict[str, Any] = {}
    if text is not None and _words(text) != _words(task.text):
        updated["text"] = text  # a new full stop or capital is no new text
    if action.priority is not None and action.priority != task.priority:
        updated["priority"] = action.priority
    if not updated:
        return None
    if "text" in updated:
        # Made from what the user said: erasing that retracts the change.
        updated["message_ids"] = [m.id for m in said]
        updated["conversations"] = sorted({m.conversation_id for m in said})
    summary = f"“{task.text}” → “{text}”" if "text" in updated else f"priority {action.priority}"
    payload: dict[str, Any] = {"task": task.id, **updated}
    if (
        text is not None
        and "text" in updated
        and (waits := unfaithful(task.text, text, [m.content for m in said]))
    ):
        payload["waits"] = waits
    return Proposal(
        "task_update",
        f"Updated task #{task.id}: {summary}",
        payload,
        needs_approval="waits" in payload,
    )


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _answerable(line_tokens: Sequence[int]) -> int:
    """How many of the tasks of *line_tokens* (their lines' lengths) one
    answer can name, each with its text rewritten (``ACTION_TOKENS``)."""
    used = 0
    for shown, tokens in enumerate(line_tokens):
        used += tokens + ACTION_TOKENS
        if used > ANSWER_TOKENS:
            return shown
    return len(line_tokens)


def _line(task: Task) -> str:
    when = schedule_words(task)
    paused = " (paused)" if task.status == "paused" else ""
    return f"(P{task.priority}) {task.text}{f' [{when}]' if when else ''}{paused}"


def schema(shown: int) -> dict[str, Any]:
    """The answer's schema, task numbers limited to the *shown* ones."""
    result = TaskAnswer.model_json_schema()
    result["$defs"]["TaskAction"]["properties"]["task"] = {
        "type": "integer",
        "enum": list(range(1, shown + 1)),
    }
    result["properties"]["actions"]["maxItems"] = shown
    return result
