"""Scheduled tasks speaking up: reminders and routines, run when they are due.

Qt-free work for the task runner's thread.  ``RoutineRunner.run_due`` takes
the tasks whose time has come (``TaskService.due``) one at a time, reminders
before routines, and looks again after each, so a slow routine never keeps
a reminder waiting behind it:

- a plain scheduled task is a *reminder*: ``ROUTINE_PROMPT.txt``'s
  ``reminder`` line is said in its conversation (no model call);
- a task with an ``ai_prompt`` is a *routine*: an isolated model call (no
  conversation history; background priority through the broker, so it waits
  while the user chats) answers the prompt, given the time and the memories
  retrieved for it, and the answer is said in the task's conversation.

"Said in its conversation" is an assistant message whose metadata names the
kind (``reminder`` or ``routine``) and the task.  A task without a
conversation, or whose conversation was deleted, speaks as a system event
instead: an ``event`` message in the most recent conversation (the model
reads it with the next message there); the UI notifies either way.

A reminder is said and its run recorded in one transaction: both or
neither, so a kill or a power cut never says it twice nor loses it.  A
routine's model call cannot wait inside a transaction, so its run is
recorded before the call: a kill while the model answers (or before its
answer is stored) never asks, nor says, that run twice; the user sees
nothing for that one run, and the routine speaks again at its next time.
A run belongs to the task as it is when the run is recorded: one the user
paused, completed, deleted or rescheduled after the due list was read is
not made (the record checks it), and a routine paused, completed or deleted
while the model answered says nothing (checked in the transaction that
stores the answer).  A failing run is likewise not tried again before its
next time, never in a loop.  A ``once`` routine that ran is completed (it
did what it was for); a ``once`` reminder stays active with no next run
(the to-do is still to do).  A run stopped because the app quits is taken
back: it runs once at the next start, like a run missed while the computer
slept (unless the task was changed meanwhile).  A task still running is
never started again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from desktop.core.base.errors import EnvironmentProblem, ReverieError
from desktop.core.base.jobs import JobControl
from desktop.core.base.prompts import PromptLibrary, fill
from desktop.core.base.settings import ModelSettings
from desktop.core.db import ConversationStore, Message, RowNotFound, Transaction
from desktop.core.db.message_kinds import SAID_FOR_TASK
from desktop.core.db.schedules import Once
from desktop.core.db.tasks import RunOvertaken, Task
from desktop.core.memory.lines import memory_line
from desktop.core.memory.service import MemoryService
from desktop.core.privacy.prompt_safety import safe_for_prompt
from desktop.core.privacy.redaction import Redactor
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker, Job, Priority
from models.errors import GenerationCancelled, ModelError
from models.interfaces import ChatMessage, GenerationOptions

log = logging.getLogger(__name__)

TEMPLATE = "ROUTINE_PROMPT.txt"
KIND = "kind"
"""Message metadata key (as for the seed): ``reminder`` or ``routine``."""
TASK = SAID_FOR_TASK
"""Message metadata key: the task that spoke (an erasure finds what it said by it)."""
LATE = timedelta(minutes=5)
"""A reminder said later than this after its time says when it was due."""
CANCEL_CHECK_S = 0.25
"""How often work waiting on a held model job looks whether it was stopped."""
_FOR_THE_MODEL = frozenset({"input", "event_reminder", "event_routine"})
"""Sections a model reads (the others the user does): the task's text made safe there."""

RunKind = Literal["reminder", "routine"]


class RoutineFailed(ReverieError):
    """A routine ran but had nothing to say (an empty answer)."""


@dataclass(frozen=True)
class TaskRun:
    """What one due task did when it ran."""

    task: Task
    kind: RunKind
    due_at: datetime
    said: str
    """The reminder or the routine's answer; empty when it failed."""
    conversation_id: int | None
    """Where it was said; None when there was no conversation at all."""
    as_event: bool = False
    """Said as a system event (the task has no conversation of its own)."""
    message: Message | None = None
    problem: str | None = None
    """Why the run failed, for the user."""

    @property
    def ok(self) -> bool:
        return self.problem is None


class RoutineRunner:
    """Runs due tasks: reminders said, routines answered by the model."""

    def __init__(
        self,
        tasks: TaskService,
        conversations: ConversationStore,
        broker: InferenceBroker,
        prompts: PromptLibrary,
        model_settings: ModelSettings,
        *,
        memories: MemoryService | None = None,
        memories_k: int = 5,
        redactor: Redactor | None = None,
    ) -> None:
        self._tasks = tasks
        self._redact = redactor or Redactor()
        """Takes secrets out of an answer before it is said, as out of a chat reply."""
        self._conversations = conversations
        self._broker = broker
        self._prompts = prompts
        self._model_settings = model_settings
        self._memories = memories
        self._memories_k = memories_k
        self._lock = threading.Lock()
        self._running: set[int] = set()
        self._unrecorded: dict[int, float | None] = {}
        """Tasks whose run could not be recorded, with the run time they had:
        that run is not repeated (the database failed; it would fail again)."""

    @property
    def running(self) -> frozenset[int]:
        """The ids of the tasks running now."""
        with self._lock:
            return frozenset(self._running)

    def run_due(
        self,
        control: JobControl | None = None,
        report: Callable[[TaskRun], None] | None = None,
    ) -> list[TaskRun]:
        """Run every task that is due (one that comes due meanwhile too), each
        once; *report* hears each run as it ends.  Stops early when *control*
        is cancelled."""
        control = control or JobControl()
        runs: list[TaskRun] = []
        tried: set[int] = set()
        while not control.cancelled and (task := self._next_due(tried)) is not None:
            tried.add(task.id)
            run = self.run(task, control)
            if run is not None:
                runs.append(run)
                if report is not None:
                    report(run)
        return runs

    def run(self, task: Task, control: JobControl | None = None) -> TaskRun | None:
        """Run *task* now and record that it ran; None if it is already
        running, its run could not be recorded, or it was stopped (then it
        stays due)."""
        control = control or JobControl()
        with self._claimed(task.id) as claimed:
            if not claimed:
                return None
            started = self._tasks.now()
            due_at = started if task.next_run_at is None else self._local(task.next_run_at)
            if not task.is_routine:
                return self._remind(task, started, due_at)
            return self._routine(task, started, due_at, control)

    # -- running -------------------------------------------------------------
    def _next_due(self, tried: set[int]) -> Task | None:
        with self._lock:
            running, unrecorded = set(self._running), dict(self._unrecorded)
        due = [
            task
            for task in self._tasks.due()
            if task.id not in tried
            and task.id not in running
            and (task.id not in unrecorded or unrecorded[task.id] != task.next_run_at)
        ]
        reminders = [task for task in due if not task.is_routine]
        return next(iter(reminders or due), None)

    def _remind(self, task: Task, started: datetime, due_at: datetime) -> TaskRun | None:
        """Say a reminder and record its run in one transaction: both or
        neither, so a kill never says it twice nor loses it."""
        try:
            with self._tasks.running(task.id, started, due_at=task.next_run_at) as (current, tx):
                # Worded from the task as recorded: an edit made since the
                # due list was read is what is said.
                line = self._reminder(current, due_at)
                run = self._say(current, "reminder", line, due_at, tx)
        except RunOvertaken as error:  # the user paused, completed, deleted or moved it
            log.info("task #%d was not run: %s", task.id, error)
            self._recorded(task)
            return None
        except EnvironmentProblem as error:  # the database failed: said nowhere
            log.warning("task #%d could not run: %s", task.id, error)
            if self._record(task, started) is None:
                return None
            return TaskRun(task, "reminder", due_at, "", task.conversation_id, problem=str(error))
        except ReverieError as error:  # its schedule went meanwhile
            self._unrecordable(task, error)
            return None
        except Exception:  # a bug: never said again and again at the same time
            self._record(task, started)
            raise
        self._recorded(task)
        return run

    def _reminder(self, task: Task, due_at: datetime) -> str:
        """The line a reminder says; with when it was due if it is said late
        (in real time: across a change of the clocks wall clocks differ)."""
        if self._tasks.now().timestamp() - due_at.timestamp() > LATE.total_seconds():
            return self._words("reminder_late", task, due_at, "task", "due")
        return self._words("reminder", task, due_at, "task")

    def _routine(
        self, task: Task, started: datetime, due_at: datetime, control: JobControl
    ) -> TaskRun | None:
        """Ask the model and say its answer.  The run is recorded before the
        model call (no transaction may wait on a model): a kill while the
        model answers never asks it, nor says its answer, twice.  A routine
        the user paused, completed or deleted while the model answered says
        nothing (checked in the transaction that stores the answer)."""
        recorded = self._record(task, started)
        if recorded is None:
            return None
        try:
            with control.scope():  # its memory search stops with it too
                answer = self._run(task, due_at, control)
                with self._tasks.still_running(task.id) as (current, tx):
                    run = self._say(current, "routine", answer, due_at, tx)
        except GenerationCancelled:
            self._take_back(task, recorded)
            return None
        except RunOvertaken as error:
            log.info("task #%d's answer was not said: %s", task.id, error)
            return None
        except (ModelError, EnvironmentProblem, RoutineFailed) as error:
            log.warning("task #%d could not run: %s", task.id, error)
            return TaskRun(task, "routine", due_at, "", task.conversation_id, problem=str(error))
        if isinstance(recorded.schedule, Once) and recorded.next_run_at is None:
            self._complete(task)
        return run

    def _run(self, task: Task, due_at: datetime, control: JobControl) -> str:
        """The routine's run: the model's answer to its prompt."""
        prompt = [
            ChatMessage("system", self._section("instructions")),
            ChatMessage(
                "user",
                self._words(
                    "input",
                    task,
                    due_at,
                    "time",
                    "due",
                    "id",
                    "task",
                    prompt=safe_for_prompt(task.ai_prompt or "", "paragraphs"),
                    memories=self._recalled(task),
                ),
            ),
        ]
        settings = self._model_settings
        options = GenerationOptions(
            max_tokens=settings.max_reply_tokens, temperature=settings.temperature
        )
        job = control.run(self._broker.chat(prompt, options, Priority.BACKGROUND))
        answer = str(awaited(job, control)).strip()
        if not answer:
            raise RoutineFailed("the model's answer was empty")
        return self._redact.text(answer)

    def _say(
        self,
        task: Task,
        kind: RunKind,
        text: str,
        due_at: datetime,
        tx: Transaction | None = None,
    ) -> TaskRun:
        """*text* in the task's conversation, or as a system event in the
        most recent one when the task has none (any more); in *tx* if given."""
        metadata = {KIND: kind, TASK: task.id}
        own = task.conversation_id
        if own is not None:
            try:
                message = self._conversations.add_message(
                    own, "assistant", text, metadata=metadata, tx=tx
                )
            except RowNotFound:  # the user deleted the conversation
                log.info("task #%d's conversation is gone; it speaks as an event", task.id)
            else:
                return TaskRun(task, kind, due_at, text, own, message=message)
        latest = self._conversations.list()
        if not latest:
            return TaskRun(task, kind, due_at, text, None, as_event=True)
        if kind == "reminder":
            event = self._words("event_reminder", task, due_at, "id", "task", "due")
        else:
            reply = safe_for_prompt(text, "paragraphs")  # read by the model with the next message
            event = self._words("event_routine", task, due_at, "id", "task", "time", reply=reply)
        message = self._conversations.add_message(
            latest[0].id, "event", event, metadata=metadata, tx=tx
        )
        return TaskRun(task, kind, due_at, text, latest[0].id, as_event=True, message=message)

    def _recalled(self, task: Task) -> str:
        """The memories related to the routine, one per line, as the chat shows them."""
        if self._memories is None or self._memories_k < 1:
            return "- (nothing yet)"
        query = f"{task.text}\n{task.ai_prompt or ''}"
        found = self._memories.background_retriever.retrieve(query, k=self._memories_k)
        quoted = self._prompts.section("PROMPT_COMPONENTS.txt", "memory_quoted") or '"{text}"'
        lines = [memory_line(r.memory).render(quoted) for r in found]
        return "\n".join(lines) or "- (nothing yet)"

    def _record(self, task: Task, started: datetime) -> Task | None:
        """The task runs now: its next run moves on (the task as recorded),
        or None when that cannot be recorded, and then it does not run."""
        try:
            recorded = self._tasks.mark_run(task.id, started, due_at=task.next_run_at)
        except RunOvertaken as error:  # the user paused, completed, deleted or moved it
            log.info("task #%d was not run: %s", task.id, error)
            self._recorded(task)
            return None
        except ReverieError as error:  # its schedule went meanwhile, or the database failed
            self._unrecordable(task, error)
            return None
        self._recorded(task)
        return recorded

    def _unrecordable(self, task: Task, error: ReverieError) -> None:
        """Its run cannot be recorded: it is not run, nor tried again at the
        same time (the database failed; it would fail again)."""
        log.warning("task #%d was not run: its run could not be recorded: %s", task.id, error)
        with self._lock:
            self._unrecorded[task.id] = task.next_run_at

    def _recorded(self, task: Task) -> None:
        with self._lock:
            self._unrecorded.pop(task.id, None)

    def _take_back(self, task: Task, recorded: Task) -> None:
        """A run stopped before it spoke (the app quits) is not a run: the
        task is due again, and runs once at the next start."""
        try:
            taken = self._tasks.take_back_run(recorded, task)
        except ReverieError as error:  # the database failed: the run is lost, not repeated
            log.warning("task #%d was stopped and stays marked run: %s", task.id, error)
            return
        if taken:
            log.info("task #%d was stopped before it finished; it stays due", task.id)
        else:
            log.info(
                "task #%d was stopped and changed meanwhile; it runs at its next time", task.id
            )

    def _complete(self, task: Task) -> None:
        """A ``once`` routine that did its work is completed."""
        try:
            self._tasks.complete(task.id)
        except ReverieError as error:  # completed or deleted meanwhile
            log.info("task #%d ran once and was not completed: %s", task.id, error)

    @contextmanager
    def _claimed(self, task_id: int) -> Iterator[bool]:
        with self._lock:
            claimed = task_id not in self._running
            self._running.add(task_id)
        try:
            yield claimed
        finally:
            if claimed:
                with self._lock:
                    self._running.discard(task_id)

    # -- words -----------------------------------------------------------------
    def _section(self, name: str) -> str:
        return self._prompts.section(TEMPLATE, name)

    def _words(self, section: str, task: Task, due_at: datetime, *names: str, **more: str) -> str:
        """*section* of the template filled with the *names* it is meant to
        show (of the task and its times) and *more*."""
        now = self._tasks.now()
        known = {
            "id": str(task.id),
            "task": safe_for_prompt(task.text) if section in _FOR_THE_MODEL else task.text,
            "time": spoken_time(now),
            "due": spoken_time(due_at, now),
        }
        return fill(self._section(section), **{n: known[n] for n in names}, **more).strip()

    def _local(self, timestamp: float) -> datetime:
        return datetime.fromtimestamp(timestamp, self._tasks.zone)


def awaited(job: Job, control: JobControl) -> Any:
    """*job*'s result, or ``GenerationCancelled`` soon after *control* is
    cancelled, even while the broker still holds the job back (the user is
    chatting), so quitting never waits for the user to go quiet."""
    while True:
        try:
            return job.result(timeout=CANCEL_CHECK_S)
        except TimeoutError:
            if control.cancelled:
                raise GenerationCancelled("stopped while waiting for the model") from None


def spoken_time(when: datetime, today: datetime | None = None) -> str:
    """``Sunday 2026-11-22 09:00 (CET)``, or only ``09:00`` on *today*'s date."""
    if today is not None and when.date() == today.date():
        return f"{when:%H:%M}"
    return when.strftime("%A %Y-%m-%d %H:%M") + f" ({when.tzname() or 'local time'})"
