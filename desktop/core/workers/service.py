"""``Workers``: the background workers the host drives, Qt-free.

``spawn`` (the ``spawn_sub_session`` tool's ``Spawner``) stores a worker
and returns its id at once.  The host runs what ``ready()`` lists with
``run_one`` on a background thread, and sets its existing clock to
``next_wake()``, the time the earliest time gate opens: nothing polls.
``on_change`` tells it when either may have changed (a worker spawned, one
ended and let its dependents go), at once, on the thread that changed it.

When a worker ends, the DAG is settled (``WorkerStore.settle``) and the
end is reported into its root conversation as a system event, through the
host's ``Reporter``: a first-level worker alone, the workers a worker
spawned together, once all of them ended.  A report is marked taken in
the transaction that makes it, so it is made once even when workers end at
the same moment on two threads, and a report that raised or a process
killed while making it leaves it untaken: ``recover`` makes it at the next
start.

At start the host calls ``recover()``: workers a killed process left
running are then in ``ready()`` and resume from their saved messages
(``runner_id`` tells this process's runs from a dead one's; the app runs
one process at a time), waiting ones keep waiting, an overdue time gate
opens at once.  A run that raises (a bug, a database gone) leaves its
worker running for the next start; the host's thread catches and says it.
"""

from __future__ import annotations

import builtins
import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, tzinfo
from functools import partial
from typing import Any, Protocol

from desktop.core.base.errors import EnvironmentProblem, ReverieError
from desktop.core.base.jobs import JobControl
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ModelSettings, WorkerSettings
from desktop.core.base.text import readable, scrub, shows_nothing
from desktop.core.chat.tools.sub_sessions import SPAWN_TOOL, SpawnCall, sub_session_tools
from desktop.core.chat.tools.toolbox import Tool, Toolbox, ToolContext, answering
from desktop.core.db import ConversationStore
from desktop.core.db.connection import Transaction
from desktop.core.db.message_kinds import WORKER_REPORT
from desktop.core.db.workers import (
    FINAL,
    NewWorker,
    Worker,
    WorkerMessage,
    WorkerMode,
    WorkerStore,
)
from desktop.core.dreaming.activity import UserActivity
from desktop.core.memory.lines import memory_line
from desktop.core.memory.service import MemoryService
from desktop.core.privacy.redaction import Redactor
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from desktop.core.workers.dag import SpawnRefused, find_cycle, not_before_time, resolve_dependencies
from desktop.core.workers.prompts import WorkerPrompts
from desktop.core.workers.runner import Ending, StepTools, WorkerRunner
from models.broker import InferenceBroker
from models.interfaces import ChatMessage

MAX_DEPTH = 2
"""chat → worker → sub-worker."""
FULL_MEMORIES = 10
"""Memories a ``full`` worker's prompt lists."""
FULL_SKILLS_CHARS = 2_000
"""The longest skills list of a ``full`` worker's prompt."""
CONVERSATION_DELETED = "its conversation was deleted"
RUN_FAILED = "Reverie met an error running it (the log says which)"
"""Why a worker whose run raised failed: left running, it held up every
worker waiting on it until the next start, and the workers after it in line."""

log = logging.getLogger(__name__)


class Reporter(Protocol):
    """The host's side: say *text* into conversation *conversation_id* as a
    system event (about the workers *worker_ids*), in *tx*: the transaction
    that marks the report made, so a report is made exactly when it is
    marked (one that raises, or a kill, leaves it for ``recover``)."""

    def report(
        self, conversation_id: int, text: str, worker_ids: tuple[int, ...], tx: Transaction
    ) -> None: ...


class ConversationReporter:
    """Reports stored as event messages of the conversation, which its model reads."""

    KIND = WORKER_REPORT

    def __init__(self, conversations: ConversationStore) -> None:
        self._conversations = conversations

    def report(
        self, conversation_id: int, text: str, worker_ids: tuple[int, ...], tx: Transaction
    ) -> None:
        metadata = {"kind": self.KIND, "workers": list(worker_ids)}
        self._conversations.add_message(conversation_id, "event", text, metadata=metadata, tx=tx)


class Workers:
    def __init__(
        self,
        store: WorkerStore,
        conversations: ConversationStore,
        broker: InferenceBroker,
        prompts: PromptLibrary,
        reporter: Reporter,
        *,
        tools: Sequence[Tool[Any]] = (),
        settings: WorkerSettings | None = None,
        model_settings: ModelSettings | None = None,
        zone: Callable[[], tzinfo],
        activity: UserActivity | None = None,
        memories: MemoryService | None = None,
        tasks: TaskService | None = None,
        skills: SkillLibrary | None = None,
        redactor: Redactor | None = None,
        now: Callable[[], float] = time.time,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self._store = store
        self._conversations = conversations
        self._library = prompts
        self._prompts = WorkerPrompts(prompts)
        self._reporter = reporter
        self._tools = {tool.name: tool for tool in tools if tool.name != SPAWN_TOOL}
        self._settings = settings or WorkerSettings()
        self._zone = zone
        self._activity = activity or UserActivity()
        self._memories = memories
        self._tasks = tasks
        self._skills = skills
        self._now = now
        self._on_change: tuple[Callable[[], None], ...] = (on_change,) if on_change else ()
        self._on_report: tuple[Callable[[int], None], ...] = ()
        self._on_step: tuple[Callable[[], None], ...] = ()
        self._redact = redactor or Redactor()
        self.runner_id = uuid.uuid4().hex
        """This process's name on the workers it runs: one another process
        left running is resumed by this one."""
        self._runner = WorkerRunner(
            store,
            broker,
            self._prompts,
            model_settings or ModelSettings(),
            self._activity,
            self._settings.quiet_seconds,
            clock=clock,
            redactor=self._redact,
            on_step=lambda: self._tell(self._on_step),
        )
        self._lock = threading.Lock()
        self._running: dict[int, JobControl] = {}

    def when_changed(self, action: Callable[[], None]) -> None:
        """Also call *action* whenever ``on_change`` is (the host's windows,
        built after this service: the composition root builds the core first)."""
        self._on_change = (*self._on_change, action)

    def when_stepped(self, action: Callable[[], None]) -> None:
        """Also call *action* after each step a worker took (its transcript
        and time used grew; its state did not change), on the thread that ran it."""
        self._on_step = (*self._on_step, action)

    def when_reported(self, action: Callable[[int], None]) -> None:
        """Call *action* with the conversation's id after each report made
        into it (a window showing that conversation reads it again)."""
        self._on_report = (*self._on_report, action)

    # -- spawning ------------------------------------------------------------
    def spawn(self, call: SpawnCall, context: ToolContext) -> int:
        """A worker of conversation *context*; its id (``Spawner``).  The
        objective is stored with its secrets taken out, as every message is."""
        asked_in = context.message_ids[0] if context.message_ids else None
        return self._spawn(call, context.conversation_id, None, asked_in)

    def offered(self) -> tuple[builtins.list[str], builtins.list[str]]:
        """The tools a worker may have and the profiles made only of them
        (``Spawner``): what the spawning tool's schema lets a model name."""
        profiles = [
            name
            for name, profile in self._settings.profiles.items()
            if all(tool in self._tools for tool in profile.tools)
        ]
        return sorted(self._tools), sorted(profiles)

    def _spawn(
        self,
        call: SpawnCall,
        conversation_id: int,
        parent: Worker | None,
        asked_in: int | None = None,
    ) -> int:
        depth = 1 if parent is None else parent.depth + 1
        if depth > MAX_DEPTH:
            raise SpawnRefused(f"workers nest {MAX_DEPTH} deep at most; do this work yourself")
        if parent is not None and parent.mode != "full":
            raise SpawnRefused("only a worker in full mode may start workers")
        mode, tools, profile = self._chosen(call)
        not_before = not_before_time(call.not_before, self._zone())
        parent_id = None if parent is None else parent.head
        # As a reader sees it (no bidi override, control or invisible
        # character: a model's text, shown in the Work window and reported);
        # redacting may take a while, so not in the write.
        objective = self._redact.text(readable(scrub(call.objective)).strip())
        if shows_nothing(objective):
            raise SpawnRefused("the objective is blank: say what the worker is to do")
        with self._store.transaction() as tx:
            # Read in the write: a deletion or a cancel just before would
            # leave a worker no one cancels, running for a conversation gone.
            conversation = self._conversations.get(conversation_id)
            if conversation is None or conversation.deleted_at is not None:
                raise SpawnRefused(f"{CONVERSATION_DELETED}; nothing was started")
            if parent is not None and not self._store.is_running(parent.id, tx):
                raise SpawnRefused("this worker was stopped; nothing was started")
            off_record = conversation.off_record or (parent is not None and parent.off_record)
            previous = self._store.spawned_by(conversation_id, parent_id, tx)
            asked = call.depends_on or []
            known = self._store.existing(asked, conversation_id, tx)
            dependencies = resolve_dependencies(
                asked, previous, {*known, *previous}, previous_too=call.depends_on_previous
            )
            _refuse_if_never_starting(self._store.never_completing(dependencies.kept, tx))
            # Only a spawning worker waits on the new one: a conversation's
            # spawn closes no cycle (nothing leads back to it), and reading
            # every edge ever stored at each spawn cost 16 s over 1,000.
            new_edges = [(0, d) for d in dependencies.kept]
            cycle = None
            if parent_id is not None:
                new_edges.append((parent_id, 0))
                cycle = find_cycle([*self._store.edges(tx), *new_edges])
            if cycle is not None:
                shown = " → ".join("this worker" if i == 0 else f"#{i}" for i in cycle)
                raise SpawnRefused(
                    f"these dependencies wait for themselves ({shown}); nothing was started"
                )
            worker_id = self._store.add(
                NewWorker(
                    conversation_id=conversation_id,
                    objective=objective,
                    mode=mode,
                    tools=tools,
                    max_tool_calls=self._settings.max_tool_calls,
                    timeout_s=float(call.timeout_s or self._settings.timeout_seconds),
                    depends_on=dependencies.kept,
                    parent_id=parent_id,
                    depth=depth,
                    profile=profile,
                    not_before=not_before,
                    off_record=off_record,
                    asked_in=parent.asked_in if parent is not None else asked_in,
                ),
                tx,
            )
            self._store.settle(tx)
        self._changed()
        return worker_id

    def _chosen(self, call: SpawnCall) -> tuple[WorkerMode, tuple[str, ...], str | None]:
        """The mode, tools and profile *call* asks for: a profile's, unless
        the call names its own; ``SpawnRefused`` for a profile or a tool
        there is none of."""
        profile = None
        if call.profile is not None:
            profile = self._settings.profiles.get(call.profile)
            if profile is None:
                known = ", ".join(sorted(self._settings.profiles)) or "none"
                raise SpawnRefused(
                    f"there is no worker profile {call.profile!r}; profiles: {known}. "
                    "Nothing was started."
                )
        mode: WorkerMode = call.mode or (profile.mode if profile else "minimal")
        tools = tuple(call.tools) if call.tools is not None else profile.tools if profile else ()
        unknown = [name for name in tools if name not in self._tools]
        if unknown:
            known = ", ".join(sorted(self._tools)) or "none"
            raise SpawnRefused(
                f"a worker has no tool {unknown[0]!r}; tools: {known}. Nothing was started."
            )
        return mode, tuple(dict.fromkeys(tools)), call.profile

    # -- reading (the Work window) -------------------------------------------------
    def get(self, worker_id: int) -> Worker | None:
        return self._store.get(worker_id)

    def list(self, conversation_id: int | None = None) -> builtins.list[Worker]:
        """Every worker (of one conversation), oldest first."""
        return self._store.list(conversation_id)

    def dependencies(self, worker_id: int) -> builtins.list[Worker]:
        """The workers *worker_id* waits (or waited) on."""
        return self._store.dependencies(worker_id)

    def dependency_ids(self, worker_id: int) -> builtins.list[int]:
        """The ids of the workers *worker_id* waits (or waited) on (``Spawner``)."""
        return [worker.id for worker in self._store.dependencies(worker_id)]

    def waits_on(self) -> dict[int, builtins.list[int]]:
        """The ids each worker waits (or waited) on, of every worker at once."""
        return self._store.waits_on()

    def transcript(self, worker_id: int) -> builtins.list[WorkerMessage]:
        return self._store.messages(worker_id)

    def prompt(self, worker_id: int) -> builtins.list[ChatMessage]:
        """The prompt the worker's next step would be sent."""
        worker = self._store.get(worker_id)
        if worker is None:
            return []
        history = self._runner.history(self._store.messages(worker_id))
        return self._prompt_of(worker, history, self._tools_of(worker))

    # -- what to run, and when -------------------------------------------------
    def ready(self) -> builtins.list[int]:
        """Workers to run now (``run_one``), oldest first."""
        return self._store.ready(self._now(), self.runner_id)

    def next_wake(self) -> float | None:
        """When the earliest time gate opens (unix seconds), for the host's clock."""
        return self._store.next_wake(self._now())

    def run_one(self, worker_id: int, should_stop: Callable[[], bool]) -> Ending | None:
        """Run *worker_id* until it ends, times out or *should_stop* (then it
        resumes on the next start); None if it was not to run (taken by
        another call, ended, or still waiting)."""
        worker = self._store.claim(worker_id, self.runner_id, self._now())
        if worker is None:
            return None
        control = JobControl()
        with self._lock:
            self._running[worker_id] = control
        try:
            with control.scope():
                ending = self._runner.run(
                    worker, self._tools_of(worker), self._prompt_of, should_stop, control
                )
        except EnvironmentProblem:  # a full disk, the database gone: it goes on once fixed
            with contextlib.suppress(ReverieError):
                self._store.release(worker_id, self.runner_id)
            raise
        except Exception:  # a tool's or Reverie's own error: the worker ends, saying so
            log.exception("worker #%d failed", worker_id)
            ending = Ending("failed", RUN_FAILED)
        finally:
            with self._lock:
                del self._running[worker_id]
        self._end(worker, ending)
        return ending

    def stop(self) -> None:
        """Stop every run in flight (the host quits); they resume on the next start."""
        with self._lock:
            controls = list(self._running.values())
        for control in controls:
            control.cancel()
        self._activity.wake()

    # -- control -----------------------------------------------------------------
    def cancel(self, worker_id: int) -> builtins.list[int]:
        """Cancel a worker (its whole chain and the workers it spawned); the
        workers waiting on it fail with "cancelled".  The ids cancelled."""
        with self._store.transaction() as tx:
            cancelled = self._store.cancel(worker_id, tx)
            failed, _ = self._store.settle(tx)
        self._stop_running(cancelled)
        self._after_ends([*cancelled, *failed])
        return cancelled

    def _stop_running(self, cancelled: Sequence[int]) -> None:
        """Stop the runs of *cancelled* in flight (one waiting for the user
        to go quiet is woken to see it)."""
        with self._lock:
            controls = [self._running[i] for i in cancelled if i in self._running]
        for control in controls:
            control.cancel()
        self._activity.wake()

    def cancel_conversation(self, conversation_id: int) -> builtins.list[int]:
        """Cancel the workers of a conversation the user deleted: they
        stop, and nothing is reported into it.  The ids cancelled."""
        with self._store.transaction() as tx:
            cancelled = self._store.cancel_conversation(conversation_id, CONVERSATION_DELETED, tx)
        self._stop_running(cancelled)
        if cancelled:
            self._changed()
        return cancelled

    def retry(self, worker_id: int) -> int:
        """A new worker with every parameter of an ended one that did not
        complete, waiting on the newest retry of each worker it waited on."""
        worker = self._store.get(worker_id)
        if worker is None or worker.state not in ("failed", "cancelled"):
            raise SpawnRefused(f"worker #{worker_id} has not failed; there is nothing to retry")
        head = self._store.get(worker.head)
        assert head is not None  # a chain keeps its first hop
        with self._store.transaction() as tx:
            conversation = self._conversations.get(head.conversation_id)
            if conversation is None or conversation.deleted_at is not None:
                raise SpawnRefused(
                    f"worker #{worker_id}'s conversation was deleted: restore it to retry it"
                )
            dependencies = [
                self._store.newest_retry(d.id, tx) for d in self._store.dependencies(head.id, tx)
            ]
            _refuse_if_never_starting(self._store.never_completing(dependencies, tx), retry=True)
            new_id = self._store.retry(head.id, dependencies, tx)
            self._store.settle(tx)
        self._changed()
        return new_id

    def recover(self) -> None:
        """At start: report the ends a process did not live to report, and
        let the host know what is ready (running workers it left resume)."""
        with self._store.transaction() as tx:
            failed, _ = self._store.settle(tx)
        self._after_ends([*(w.id for w in self._store.unreported()), *failed])

    # -- ends ------------------------------------------------------------------
    def _end(self, worker: Worker, ending: Ending) -> None:
        if ending.kind == "stopped":
            return  # quitting (it resumes) or cancelled (already settled)
        with self._store.transaction() as tx:
            if ending.kind == "timed_out":
                if worker.continuations < self._settings.max_continuations:
                    next_hop = self._store.continue_chain(worker.id, tx)
                    if next_hop is not None:
                        note = self._prompts.continuation()
                        self._store.add_message(next_hop, "user", note, tx)
                    ended = False
                else:
                    reason = (
                        f"it ran out of time ({worker.timeout_s:.0f} s) "
                        f"{worker.continuations + 1} times"
                    )
                    ended = self._store.finish(worker.id, "failed", reason, tx)
            elif ending.kind == "completed":
                ended = self._store.finish(worker.id, "completed", ending.text, tx)
            else:
                ended = self._store.finish(worker.id, "failed", ending.text, tx)
            failed, _ = self._store.settle(tx) if ended else ([], [])
        self._after_ends([worker.head, *failed] if ended else [])
        self._changed()

    def _after_ends(self, ended: Sequence[int]) -> None:
        """Report every first hop among *ended* whose report is due: the
        workers a worker started together, once all ended; the others of
        one conversation in one report (a cancel ends a whole chain)."""
        alone: dict[int, builtins.list[int]] = {}
        for worker_id in dict.fromkeys(ended):
            worker = self._store.get(worker_id)
            if worker is None or worker.continuation_of is not None or worker.state not in FINAL:
                continue
            if worker.parent_id is None:
                alone.setdefault(worker.conversation_id, []).append(worker.id)
                continue
            with self._store.transaction() as tx:
                taken = self._store.take_children_report(worker.parent_id, tx)
                if taken:
                    text = self._prompts.children_report(worker.parent_id, taken)
                    self._report(worker.conversation_id, text, taken, tx)
        for conversation_id, ids in alone.items():
            self._report_together(conversation_id, ids)
        if ended:
            self._changed()

    def _report_together(self, conversation_id: int, ids: Sequence[int]) -> None:
        """Report the first hops *ids* of *conversation_id* not reported
        yet: one alone, several in one report (cancelling the first of a
        chain of 300 wrote 300 reports into the chat)."""
        with self._store.transaction() as tx:
            taken = [self._store.get(i, tx) for i in ids if self._store.take_report(i, tx)]
            ended = [worker for worker in taken if worker is not None]
            if not ended:
                return
            if len(ended) == 1:
                text = self._prompts.report(ended[0])
            else:
                text = self._prompts.together_report(ended)
            self._report(conversation_id, text, ended, tx)

    def _report(
        self, conversation_id: int, text: str, workers: Sequence[Worker], tx: Transaction
    ) -> None:
        """Say *text* about *workers* into *conversation_id*, in *tx*; the
        windows are told once it commits (``when_reported``)."""
        self._reporter.report(conversation_id, text, tuple(w.id for w in workers), tx)
        for action in self._on_report:
            tx.after_commit(partial(action, conversation_id))

    def _changed(self) -> None:
        self._tell(self._on_change)

    @staticmethod
    def _tell(actions: Sequence[Callable[[], None]]) -> None:
        for action in actions:
            action()

    # -- what a worker runs with -------------------------------------------------
    def _tools_of(self, worker: Worker) -> StepTools:
        """Its own tools, none that learn off the record, and spawning for a
        ``full`` worker that may nest."""
        tools: builtins.list[Tool[Any]] = [self._tools[n] for n in worker.tools if n in self._tools]
        if worker.off_record:
            tools = [t for t in tools if not t.changes_memory]
        if worker.mode == "full" and worker.depth < MAX_DEPTH:
            tools += sub_session_tools(_ChildSpawner(self, worker))
        if not tools:
            return StepTools(None, frozenset(), ToolContext(worker.conversation_id))
        return StepTools(
            Toolbox(tools, self._library), frozenset(t.name for t in tools), self._context(worker)
        )

    def _context(self, worker: Worker) -> ToolContext:
        """Where its calls are made: in answer to the user's message it was
        asked for in, whose words its writes must rest on, as chat's do."""
        asked = self._conversations.messages_by_ids([worker.asked_in] if worker.asked_in else [])
        if not asked:
            return ToolContext(worker.conversation_id)
        return answering(self._conversations, asked[0])

    def _prompt_of(
        self, worker: Worker, history: Sequence[ChatMessage], tools: StepTools
    ) -> builtins.list[ChatMessage]:
        full = worker.mode == "full"
        memories = (
            self._memories.store.listed(limit=FULL_MEMORIES) if full and self._memories else []
        )
        return self._prompts.messages(
            worker,
            history,
            tools=tools.offered,
            tool_list=tools.toolbox.describe(tools.offered) if tools.toolbox else "",
            now=datetime.fromtimestamp(self._now(), self._zone()),
            memories=[memory_line(m) for m in memories],
            tasks=self._tasks.prompt_lines() if full and self._tasks else (),
            skills=(
                self._skills.table_of_contents(FULL_SKILLS_CHARS) if full and self._skills else ()
            ),
        )


def _refuse_if_never_starting(ended: Sequence[Worker], *, retry: bool = False) -> None:
    """``SpawnRefused`` if a worker would wait on *ended*, workers that
    failed or were cancelled: it would fail at once, before anyone was told."""
    if not ended:
        return
    named = ", ".join(
        f"#{w.id} {'was cancelled' if w.state == 'cancelled' else 'failed'}" for w in ended
    )
    then = "retry it first" if retry else "leave it out of depends_on or do that work yourself"
    raise SpawnRefused(
        f"a worker it would wait on has ended without a result ({named}): {then}. "
        "Nothing was started."
    )


class _ChildSpawner:
    """The ``Spawner`` a ``full`` worker's own spawning tool uses."""

    def __init__(self, workers: Workers, parent: Worker) -> None:
        self._workers = workers
        self._parent = parent

    def spawn(self, call: SpawnCall, context: ToolContext) -> int:
        return self._workers._spawn(call, self._parent.conversation_id, self._parent)

    def dependency_ids(self, worker_id: int) -> builtins.list[int]:
        return self._workers.dependency_ids(worker_id)

    def offered(self) -> tuple[builtins.list[str], builtins.list[str]]:
        return self._workers.offered()
