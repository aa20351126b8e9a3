"""One worker's tool loop: ask the model, run the tool it calls, store both,
until it answers in words, its time runs out, or it is stopped.

Every step gives way to the user first, exactly as a dream does
(``UserActivity.wait_until_quiet``), and runs at background priority; the
time spent waiting is not counted, only the step itself
(``WorkerStore.add_time``).  Each message is stored as soon as it is
written, so a worker stopped anywhere (a quit, a kill) resumes from them.

Limits: the time-out is checked between steps (a step's model call is not
cut short), and ``max_tool_calls`` counts the calls of one run, so a
worker resumed after a restart, or continued, may call as many again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from desktop.core.base.jobs import JobControl
from desktop.core.base.settings import ModelSettings
from desktop.core.chat.service import SYSTEM_EVENT
from desktop.core.chat.tools.sub_sessions import SPAWN_TOOL, SPAWNED
from desktop.core.chat.tools.toolbox import Toolbox, ToolContext
from desktop.core.db.message_kinds import TOOL_CALL_START
from desktop.core.db.workers import Worker, WorkerMessage, WorkerStore
from desktop.core.dreaming.activity import UserActivity
from desktop.core.privacy.redaction import Redactor
from desktop.core.tasks.routines import awaited
from desktop.core.workers.prompts import WorkerPrompts
from models.broker import InferenceBroker, Priority
from models.errors import GenerationCancelled, ModelError
from models.interfaces import ChatMessage, GenerationOptions

EndingKind = Literal["completed", "failed", "timed_out", "stopped"]


@dataclass(frozen=True)
class Ending:
    """How a run ended: ``stopped`` leaves the worker to resume (a quit) or
    to be left alone (it was cancelled meanwhile)."""

    kind: EndingKind
    text: str = ""


@dataclass(frozen=True)
class StepTools:
    """The tools of one worker: the toolbox, the names it is offered, and
    where its calls are made (the user's message it was asked for in)."""

    toolbox: Toolbox | None
    offered: frozenset[str]
    context: ToolContext


PromptOf = Callable[[Worker, Sequence[ChatMessage], StepTools], list[ChatMessage]]


class WorkerRunner:
    def __init__(
        self,
        store: WorkerStore,
        broker: InferenceBroker,
        prompts: WorkerPrompts,
        model_settings: ModelSettings,
        activity: UserActivity,
        quiet_seconds: float,
        *,
        clock: Callable[[], float],
        redactor: Redactor,
        on_step: Callable[[], None] = lambda: None,
    ) -> None:
        """*on_step*: called after each step a worker stored
        (its transcript and time used grew)."""
        self._store = store
        self._broker = broker
        self._prompts = prompts
        self._settings = model_settings
        self._activity = activity
        self._quiet_seconds = quiet_seconds
        self._clock = clock
        self._redact = redactor
        self._on_step = on_step

    def run(
        self,
        worker: Worker,
        tools: StepTools,
        prompt_of: PromptOf,
        should_stop: Callable[[], bool],
        control: JobControl,
    ) -> Ending:
        transcript = self._store.messages(worker.id)
        if not transcript:
            opening = self._prompts.opening(worker, self._store.dependencies(worker.head))
            self._store.add_message(worker.id, "user", opening)
        elif _unanswered_call(transcript[-1]):
            self._store.add_message(worker.id, "tool", self._lost_result(worker, transcript))
        calls = 0

        def stop() -> bool:
            return should_stop() or control.cancelled

        while True:
            if not self._activity.wait_until_quiet(self._quiet_seconds, stop):
                return Ending("stopped")
            if not self._store.is_running(worker.id):
                return Ending("stopped")  # cancelled meanwhile
            usable = tools.offered if calls < worker.max_tool_calls else frozenset()
            history = self.history(self._store.messages(worker.id))
            started = self._clock()
            try:
                text = self._say(prompt_of(worker, history, tools), tools, usable, control)
            except GenerationCancelled:
                self._store.add_time(worker.id, self._clock() - started)
                return Ending("stopped")
            except ModelError as error:
                self._store.add_time(worker.id, self._clock() - started)
                return Ending("failed", f"the model failed: {error}")
            said, marker, call_json = text.partition(TOOL_CALL_START)
            called = bool(marker) and bool(usable) and tools.toolbox is not None
            self._store.add_message(
                worker.id, "assistant", self._redact.text(text if called else said)
            )
            if called and not self._store.is_running(worker.id):
                return Ending("stopped")  # cancelled while it answered: its call is not made
            if called:
                assert tools.toolbox is not None  # checked with called
                result = tools.toolbox.call(call_json, tools.context, usable).result
                content = json.dumps(self._redact.within(result.content), ensure_ascii=False)
                self._store.add_message(worker.id, "tool", content)
                calls += 1
            used = self._store.add_time(worker.id, self._clock() - started)
            self._on_step()
            if not called:
                answer = self._redact.text(said.strip())
                if not answer:
                    return Ending("failed", "the model's answer was empty")
                return Ending("completed", answer)
            if used >= worker.timeout_s:
                return Ending("timed_out")

    def _lost_result(self, worker: Worker, transcript: Sequence[WorkerMessage]) -> str:
        """The result of the call a stop cut off from it.  A spawn is kept in
        the database, so one made is read back as made: a worker of its
        spawner's that no result in *transcript* names (told "not known",
        the model spawned it again).  Whether another tool ran is unknown,
        so the model is told, rather than asked to call again blind."""
        named = {_spawned_id(m.content) for m in transcript if m.role == "tool"}
        unnamed = [c.id for c in self._store.children(worker.head) if c.id not in named]
        if len(unnamed) == 1 and _called_tool(transcript[-1].content) == SPAWN_TOOL:
            return json.dumps({"result": SPAWNED, "worker_id": unnamed[0]})
        return json.dumps({"error": self._prompts.call_lost()}, ensure_ascii=False)

    def _say(
        self,
        prompt: list[ChatMessage],
        tools: StepTools,
        usable: frozenset[str],
        control: JobControl,
    ) -> str:
        options = GenerationOptions(
            max_tokens=self._settings.max_reply_tokens,
            temperature=self._settings.temperature,
            stop=(SYSTEM_EVENT,),
        )
        if usable and tools.toolbox is not None:
            schema = tools.toolbox.schema(usable)
            options = replace(options, json_schema=schema, json_schema_after=TOOL_CALL_START)
        elif tools.offered:  # used up: the answer ends where a call would begin
            options = replace(options, stop=(*options.stop, TOOL_CALL_START))
        job = control.run(self._broker.chat(prompt, options, Priority.BACKGROUND))
        return str(awaited(job, control))

    def history(self, messages: Sequence[WorkerMessage]) -> list[ChatMessage]:
        """A transcript as the worker reads it: tool results and its own
        words made safe, in the roles a chat template knows."""
        read: list[ChatMessage] = []
        for message in messages:
            if message.role == "tool":
                read.append(ChatMessage("user", self._prompts.tool_response(message.content)))
            elif message.role == "assistant":
                read.append(ChatMessage("assistant", self._prompts.assistant(message.content)))
            else:
                read.append(ChatMessage("user", message.content))
        return read


def _unanswered_call(message: WorkerMessage) -> bool:
    """Whether *message*, a transcript's last, is a tool call with no result after it."""
    return message.role == "assistant" and TOOL_CALL_START in message.content


def _called_tool(message: str) -> str | None:
    """The name of the tool a worker's message calls, if it can be read."""
    try:
        called = json.loads(message.partition(TOOL_CALL_START)[2])
    except ValueError:
        return None
    name = called.get("name") if isinstance(called, dict) else None
    return name if isinstance(name, str) else None


def _spawned_id(result: str) -> int | None:
    """The worker a spawn's stored result names, if *result* is one."""
    try:
        value = json.loads(result)
    except ValueError:
        return None
    if isinstance(value, dict) and value.get("result") == SPAWNED:
        worker_id = value.get("worker_id")
        return worker_id if isinstance(worker_id, int) else None
    return None
