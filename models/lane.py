"""A lane: one thread that owns some loaded models and runs their jobs one at a time.

User jobs go first.  A background generation in flight is cut at its next
token when a user job arrives on the same lane (or, on a lane that holds
background work, while the user is in the middle of a chat turn), and goes
back in the queue to run again once background work may go on.  Background
embeddings run in slices and let waiting user jobs through between them.

Which model serves a job is the broker's call (``Router``): asked when the
job starts, so a job queued before the user switched models runs on the new
one, or moves to the lane that now serves its role.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from models.errors import GenerationCancelled, ModelError, ModelUnavailable
from models.interfaces import Chunk
from models.jobs import (
    ChatRequest,
    CollectRequest,
    CountRequest,
    EmbedRequest,
    Job,
    LoadRequest,
    Priority,
    ReadRequest,
)
from models.server_http import Watchdog

log = logging.getLogger(__name__)

EMBED_SLICE = 64  # background embedding yields to the user between slices
BACKGROUND_RECHECK_S = 0.25
"""How often held background work asks again whether it may run."""
STOP_POLL_S = 0.05
"""How often a call a model can interrupt (a server's) looks whether its job was stopped."""

T = TypeVar("T")


class Router(Protocol):
    """The broker, as a lane sees it."""

    def model_key(self, lane: Lane, job: Job) -> str | None:
        """The key of the model on *lane* that serves *job*; None when the
        job was sent elsewhere (its role moved to another lane, or waits
        for one)."""
        ...

    def shares_with_chat(self, lane: Lane, key: str) -> bool:
        """Whether the chat role uses the model *key* of *lane* too."""
        ...

    def failed(self, job: Job, error: ModelUnavailable) -> bool:
        """*job*'s backend could not serve it: True if the broker sent it on
        to a fallback, False if it fails with *error*."""
        ...

    def served(self, job: Job) -> None:
        """*job* was served by the backend it was routed to."""
        ...


class Lane:
    """A thread with its own queue and models.  ``hold`` says whether
    background work may run now (only the local lane, whose models share the
    user's CPU, holds it)."""

    def __init__(self, name: str, router: Router, hold: Callable[[], bool] | None = None) -> None:
        self.name = name
        self.models: dict[str, Any] = {}
        self._forks: dict[str, Any] = {}
        self._router = router
        self._background_allowed = hold or (lambda: True)
        self._queue: list[tuple[int, int, Job]] = []
        self._order = itertools.count()
        self._lock = threading.Condition()
        self._stopping = False
        self._retiring = False
        self._current: Job | None = None
        self._thread = threading.Thread(target=self._run, name=f"reverie-{name}", daemon=True)

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    @property
    def started(self) -> bool:
        return self._thread.ident is not None

    def retire(self) -> None:
        """End the thread once the jobs queued here have moved on or run."""
        with self._lock:
            self._retiring = True
            self._lock.notify_all()

    def stop(self) -> None:
        """Cancel everything queued or running (without waiting for it)."""
        with self._lock:
            self._stopping = True
            pending = [job for _, _, job in self._queue]
            self._queue.clear()
            if self._current is not None:
                self._current.cancel()
            self._lock.notify_all()
        for job in pending:
            job.finish(error=GenerationCancelled("the inference broker stopped"))

    def join(self, timeout: float) -> None:
        if self._thread.is_alive():
            self._thread.join(timeout)

    # -- queueing ------------------------------------------------------------
    def enqueue(self, job: Job) -> None:
        with self._lock:
            stopping = self._stopping
            if not stopping:
                if job.order is None:
                    job.order = next(self._order)
                heapq.heappush(self._queue, (job.priority, job.order, job))
                self._lock.notify_all()
        if stopping:  # finished outside the lock: its callbacks may take a while
            job.finish(error=GenerationCancelled("the inference broker stopped"))

    def user_waiting(self) -> bool:
        # Reading the heap's head without the lock is safe: a stale answer
        # only delays the preemption by one token.
        head = self._queue[0] if self._queue else None
        return head is not None and head[0] == Priority.USER

    # -- the thread ----------------------------------------------------------
    def _run(self) -> None:
        while (job := self._next_job()) is not None:
            try:
                self._run_guarded(job)
            finally:
                with self._lock:
                    self._current = None
        self._close_models(frozenset(), frozenset())

    def _run_guarded(self, job: Job) -> None:
        try:
            self._execute(job)
        except GenerationCancelled as error:  # stopped by its caller: no failure
            job.finish(error=error)
        except ModelUnavailable as error:  # the user can fix it; the job says how
            log.info("inference job failed on %s: %s", self.name, error)
            if job.role is None or not self._router.failed(job, error):
                job.finish(error=error)
        except ModelError as error:  # typed: a server's refusal, a prompt too long; no bug
            log.warning("inference job failed on %s: %s", self.name, error)
            job.finish(error=error)
        except BaseException as error:  # thread boundary: the error goes to the job
            log.exception("inference job failed on %s", self.name)
            job.finish(error=error)

    def _next_job(self) -> Job | None:
        with self._lock:
            while not self._stopping:
                if self._queue and (
                    self._queue[0][0] == Priority.USER or self._background_allowed()
                ):
                    _, _, job = heapq.heappop(self._queue)
                    self._current = job
                    return job
                if cancelled := next((e for e in self._queue if e[2].cancel_requested), None):
                    # Held or not, a cancelled job ends now: its caller is waiting.
                    self._queue.remove(cancelled)
                    heapq.heapify(self._queue)
                    self._current = cancelled[2]
                    return cancelled[2]
                if self._retiring and not self._queue:
                    return None
                # Held background work is looked at again now and then: the
                # user going quiet is not an event the lane hears.
                self._lock.wait(BACKGROUND_RECHECK_S if self._queue else None)
            return None

    def _execute(self, job: Job) -> None:
        if job.cancel_requested:
            _finish_cancelled_before_start(job)
            return
        request = job.request
        if isinstance(request, LoadRequest):
            self._load(job, request)
            return
        if isinstance(request, CollectRequest):
            self._close_models(request.keep, request.forked)
            job.finish(result=None)
            return
        key = self._router.model_key(self, job)
        if key is None:  # sent on elsewhere
            return
        if isinstance(request, EmbedRequest):
            self._embed(job, request, key)
        elif isinstance(request, CountRequest):
            model = self.models[key]  # a fork shares the vocabulary
            counts = self._stoppable(
                job, model, lambda: [model.count_tokens(text) for text in request.texts]
            )
            job.finish(result=counts)
        elif isinstance(request, ChatRequest):
            self._generate(job, request, key)
        elif isinstance(request, ReadRequest):
            self._read(job, request, key)
        else:
            raise TypeError(f"a lane cannot run {type(request).__name__}")
        if job.done():
            self._router.served(job)

    def _load(self, job: Job, request: LoadRequest) -> None:
        backend = request.backend
        model = self.models.get(backend.key)
        if model is None:
            model = backend.load()
            self.models[backend.key] = model
        job.finish(result=model.name)

    def _model(self, job: Job, key: str) -> Any:
        """The model that runs *job*: background work on a model the chat
        also uses runs on a fork of it, so the chat's prompt cache survives."""
        model = self.models[key]
        if job.priority == Priority.USER or not self._router.shares_with_chat(self, key):
            return model
        if key not in self._forks:
            fork = getattr(model, "fork", None)
            self._forks[key] = fork() if callable(fork) else model
        return self._forks[key]

    def _embed(self, job: Job, request: EmbedRequest, key: str) -> None:
        embedder = self.models[key]
        prefix = getattr(embedder, "query_prefix" if request.query else "document_prefix", "")
        texts = tuple(prefix + text for text in request.texts) if prefix else request.texts
        job.made_by = str(embedder.name)  # a job run again on a new embedder says so
        if job.priority == Priority.USER:
            job.finish(result=self._stoppable(job, embedder, partial(embedder.embed, texts)))
            return
        parts: list[npt.NDArray[np.float32]] = []
        for start in range(0, len(texts), EMBED_SLICE):
            part = texts[start : start + EMBED_SLICE]
            parts.append(self._stoppable(job, embedder, partial(embedder.embed, part)))
            self._yield_to_user(job)
            if job.cancel_requested or self._stopping:
                job.finish(error=GenerationCancelled("cancelled"))
                return
            if self._embedder_replaced(job, key, embedder):
                # Vectors of two models must not be mixed: the whole job
                # runs again on the new one.
                job.preemptions += 1
                return
        job.finish(result=np.concatenate(parts) if parts else embedder.embed(()))

    def _stoppable(self, job: Job, model: Any, call: Callable[[], T]) -> T:
        """*call*'s answer; if *model* can be interrupted (a server's
        ``interrupt``, which cuts its connection), it is when *job* is
        cancelled or the lane stops, and ``GenerationCancelled`` raised.
        A server that took the request and says nothing would otherwise
        hold Stop, and quitting, for its whole time limit."""
        interrupt = getattr(model, "interrupt", None)
        if not callable(interrupt):
            return call()  # a local model's call ends on its own, soon
        stopped = lambda: job.cancel_requested or self._stopping  # noqa: E731
        with Watchdog(
            stopped, interrupt, poll=STOP_POLL_S, name=f"reverie-{self.name}-stop"
        ) as dog:
            try:
                return call()
            except ModelUnavailable as error:
                if dog.fired:  # cut on purpose: a stop, not the server failing
                    raise GenerationCancelled("cancelled") from error
                raise

    def _embedder_replaced(self, job: Job, key: str, embedder: Any) -> bool:
        """Whether *job*'s role is no longer served by *embedder*; if so, the
        job is queued again where it now runs (the router's question itself
        sends it on to another lane: it is queued here only for one of this
        lane's models)."""
        if self.models.get(key) is not embedder:
            self.enqueue(job)
            return True
        now = self._router.model_key(self, job)
        if now == key:
            return False
        if now is not None:
            self.enqueue(job)
        return True

    def _yield_to_user(self, interrupted: Job) -> None:
        """Run waiting user jobs now (used between background embedding slices)."""
        while self.user_waiting():
            with self._lock:
                if self._stopping or not self._queue:
                    return
                _, _, user_job = heapq.heappop(self._queue)
                self._current = user_job  # so that stop() cancels it
            try:
                self._run_guarded(user_job)
            finally:
                with self._lock:
                    self._current = interrupted

    def _generate(self, job: Job, request: ChatRequest, key: str) -> None:
        model = self._model(job, key)
        background = job.priority == Priority.BACKGROUND
        parts: list[str] = []
        for chunk in model.stream(request.messages, request.options, self._stopper(job)):
            if not background:
                job.emit(chunk)
            parts.append(chunk.text)
            if chunk.finish_reason == "cancelled" and not job.cancel_requested:
                job.preemptions += 1  # cut for a user request: run again later
                self.enqueue(job)
                return
        if job.cancel_requested and background:
            job.finish(error=GenerationCancelled("cancelled"))
            return
        job.finish(result="".join(parts))

    def _read(self, job: Job, request: ReadRequest, key: str) -> None:
        """Read a prompt into the chat's own context (never a fork: it is
        the chat's cache that is filled), as background work; its result
        is whether it was read whole.  Cut by a user job, it is not run
        again: that job reads what it needs itself.  A model that keeps no
        cache of ours (a server's) reads nothing."""
        read = getattr(self.models[key], "read", None)
        if not callable(read):
            job.finish(result=False)
            return
        job.finish(result=bool(read(request.messages, self._stopper(job))))

    def _stopper(self, job: Job) -> Callable[[], bool]:
        """Whether *job* must stop now: cancelled, or background work a
        waiting user job or a user mid-turn cuts."""
        background = job.priority == Priority.BACKGROUND
        return lambda: (
            job.cancel_requested
            or (background and (self.user_waiting() or not self._background_allowed()))
        )

    def _close_models(self, keep: frozenset[str], forked: frozenset[str]) -> None:
        """Free the models whose keys are not in *keep*, and the forks of
        those not in *forked*."""
        for key in [k for k in self._forks if k not in forked or k not in keep]:
            fork = self._forks.pop(key)
            if fork is not self.models.get(key):
                _close(fork)
        for key in [k for k in self.models if k not in keep]:
            _close(self.models.pop(key))


def _finish_cancelled_before_start(job: Job) -> None:
    if isinstance(job.request, ChatRequest) and job.priority == Priority.USER:
        # Stop pressed before the reply began: the same ending as stopping
        # mid-stream, an empty reply, not an error.
        job.emit(Chunk("", "cancelled"))
        job.finish(result="")
    else:
        job.finish(error=GenerationCancelled("cancelled before it started"))


def _close(model: object) -> None:
    """Free a model's native resources, if it holds any (fakes may not)."""
    close = getattr(model, "close", None)
    if callable(close):
        close()
