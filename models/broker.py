"""The inference broker: the one owner of the loaded models.

A llama.cpp context must never be used by two threads at once, so every
model call (chat turns, embeddings, background jobs) is a ``Job`` submitted
here and run, one at a time, on the broker's own thread.  User requests go
first.  A background generation in flight is cut at its next token when a
user request arrives (or background work is held, e.g. while the user is in
the middle of a chat turn), and goes back in the queue to run again once
background work may go on.

Background generations run on a second context over the same weights (see
``LlamaChatModel.fork``), so the chat's prompt cache survives them and the
next user turn does not re-read the whole conversation.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np
import numpy.typing as npt

from models.errors import GenerationCancelled, ModelUnavailable
from models.interfaces import ChatMessage, ChatModel, Chunk, Embedder, GenerationOptions

log = logging.getLogger(__name__)

_EMBED_SLICE = 64  # background embedding yields to the user between slices
BACKGROUND_RECHECK_S = 0.25
"""How often held background work asks again whether it may run."""


class Priority(IntEnum):
    USER = 0
    BACKGROUND = 1


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[ChatMessage, ...]
    options: GenerationOptions


@dataclass(frozen=True)
class EmbedRequest:
    texts: tuple[str, ...]


@dataclass(frozen=True)
class CountRequest:
    texts: tuple[str, ...]


@dataclass(frozen=True)
class LoadRequest:
    load: Callable[[], Any]
    slot: str  # "chat" or "embedder"


Request = ChatRequest | EmbedRequest | CountRequest | LoadRequest
_END = object()


class Job:
    """A handle on one submitted request.

    User chat jobs stream their chunks through ``chunks()``; every job has a
    final ``result()`` (the full text, the embeddings, or the loaded model's
    name) which re-raises the job's error.
    """

    def __init__(self, request: Request, priority: Priority) -> None:
        self.request = request
        self.priority = priority
        self.preemptions = 0
        self.order: int | None = None
        """Place in the queue, kept when a preempted job goes back in."""
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._chunks: queue.Queue[Chunk | object] = queue.Queue()
        self._result: Any = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[Job], None]] = []
        self._callbacks_lock = threading.Lock()

    def cancel(self) -> None:
        """Ask the broker to stop this job at its next token (or before it starts)."""
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def done(self) -> bool:
        return self._done.is_set()

    def chunks(self, timeout: float | None = None) -> Iterator[Chunk]:
        """Streamed chunks of a user chat job, ending with the one that has a finish reason."""
        while (item := self._chunks.get(timeout=timeout)) is not _END:
            assert isinstance(item, Chunk)
            yield item
        if self._error is not None:
            raise self._error

    def result(self, timeout: float | None = None) -> Any:
        if not self._done.wait(timeout):
            raise TimeoutError("inference job did not finish in time")
        if self._error is not None:
            raise self._error
        return self._result

    def add_done_callback(self, callback: Callable[[Job], None]) -> None:
        """Call *callback(job)* once the job is done: at once if it already is,
        otherwise on the broker thread (a Qt receiver gets it as a queued signal)."""
        with self._callbacks_lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def _emit(self, chunk: Chunk) -> None:
        self._chunks.put(chunk)

    def _finish(self, result: Any = None, error: BaseException | None = None) -> None:
        self._result, self._error = result, error
        self._chunks.put(_END)
        with self._callbacks_lock:
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            try:
                callback(self)
            except Exception:  # a listener's bug must not take the broker thread down
                log.exception("job done-callback failed")


class InferenceBroker:
    """Runs every model call on one thread, user requests first."""

    def __init__(self, background_allowed: Callable[[], bool] | None = None) -> None:
        """*background_allowed* says whether background work may run now
        (e.g. not while the user is in the middle of a chat turn); while it
        says no, background jobs wait in the queue and one in flight is cut."""
        self._background_allowed = background_allowed or (lambda: True)
        self._chat: ChatModel | None = None
        self._background_chat: ChatModel | None = None
        self._embedder: Embedder | None = None
        self._queue: list[tuple[int, int, Job]] = []
        self._order = itertools.count()
        self._lock = threading.Condition()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="reverie-inference", daemon=True)
        self._current: Job | None = None

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Cancel everything queued or running and join the thread."""
        with self._lock:
            self._stopping = True
            pending = [job for _, _, job in self._queue]
            self._queue.clear()
            if self._current is not None:
                self._current.cancel()
            self._lock.notify_all()
        for job in pending:
            job._finish(error=GenerationCancelled("the inference broker stopped"))
        if self._thread.is_alive():
            self._thread.join(timeout)

    @property
    def embedder_name(self) -> str | None:
        """The loaded embedder's name, recorded with the vectors it makes."""
        embedder = self._embedder
        return None if embedder is None else embedder.name

    # -- submitting ----------------------------------------------------------
    def load_chat_model(self, load: Callable[[], ChatModel]) -> Job:
        """Load (or replace) the chat model on the broker thread."""
        return self._submit(LoadRequest(load, "chat"), Priority.USER)

    def load_embedder(self, load: Callable[[], Embedder]) -> Job:
        return self._submit(LoadRequest(load, "embedder"), Priority.USER)

    def chat(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        priority: Priority = Priority.USER,
    ) -> Job:
        return self._submit(ChatRequest(tuple(messages), options), priority)

    def embed(self, texts: Sequence[str], priority: Priority = Priority.USER) -> Job:
        return self._submit(EmbedRequest(tuple(texts)), priority)

    def count_tokens(self, texts: Sequence[str], priority: Priority = Priority.USER) -> Job:
        """Count the chat model's tokens in each text; the result is a list of ints."""
        return self._submit(CountRequest(tuple(texts)), priority)

    def _submit(self, request: Request, priority: Priority) -> Job:
        job = Job(request, priority)
        self._enqueue(job)
        return job

    def _enqueue(self, job: Job) -> None:
        with self._lock:
            stopping = self._stopping
            if not stopping:
                if job.order is None:
                    job.order = next(self._order)
                heapq.heappush(self._queue, (job.priority, job.order, job))
                self._lock.notify_all()
        if stopping:  # finished outside the lock: its callbacks may take a while
            job._finish(error=GenerationCancelled("the inference broker stopped"))

    def _user_waiting(self) -> bool:
        # Reading the heap's head without the lock is safe: a stale answer
        # only delays the preemption by one token.
        head = self._queue[0] if self._queue else None
        return head is not None and head[0] == Priority.USER

    # -- the broker thread ---------------------------------------------------
    def _run(self) -> None:
        while (job := self._next_job()) is not None:
            try:
                self._run_guarded(job)
            finally:
                with self._lock:
                    self._current = None
        self._close_models()

    def _run_guarded(self, job: Job) -> None:
        try:
            self._execute(job)
        except ModelUnavailable as error:  # the user can fix it; the job says how
            log.info("inference job failed: %s", error)
            job._finish(error=error)
        except BaseException as error:  # thread boundary: the error goes to the job
            log.exception("inference job failed")
            job._finish(error=error)

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
                # Held background work is looked at again now and then: the
                # user going quiet is not an event the broker hears.
                self._lock.wait(BACKGROUND_RECHECK_S if self._queue else None)
            return None

    def _execute(self, job: Job) -> None:
        if job.cancel_requested:
            self._finish_cancelled_before_start(job)
            return
        request = job.request
        if isinstance(request, LoadRequest):
            self._load(job, request)
        elif isinstance(request, EmbedRequest):
            self._embed(job, request)
        elif isinstance(request, CountRequest):
            model = self._model_for(Priority.USER)  # a fork shares the vocabulary
            job._finish(result=[model.count_tokens(text) for text in request.texts])
        else:
            self._generate(job, request)

    @staticmethod
    def _finish_cancelled_before_start(job: Job) -> None:
        if isinstance(job.request, ChatRequest) and job.priority == Priority.USER:
            # Stop pressed before the reply began: the same ending as stopping
            # mid-stream, an empty reply, not an error.
            job._emit(Chunk("", "cancelled"))
            job._finish(result="")
        else:
            job._finish(error=GenerationCancelled("cancelled before it started"))

    def _load(self, job: Job, request: LoadRequest) -> None:
        model = request.load()
        if request.slot == "chat":
            self._close_chat_models()
            self._chat = model
        else:
            self._close_embedder()
            self._embedder = model
        job._finish(result=model.name)

    def _embed(self, job: Job, request: EmbedRequest) -> None:
        embedder = self._embedder
        if embedder is None:
            raise ModelUnavailable("No embedding model is loaded.")
        texts = request.texts
        if job.priority == Priority.USER:
            job._finish(result=embedder.embed(texts))
            return
        parts: list[npt.NDArray[np.float32]] = []
        for start in range(0, len(texts), _EMBED_SLICE):
            parts.append(embedder.embed(texts[start : start + _EMBED_SLICE]))
            self._yield_to_user(job)
            if job.cancel_requested or self._stopping:
                job._finish(error=GenerationCancelled("cancelled"))
                return
            if self._embedder is not embedder:
                # A user job replaced the embedder: vectors of two models must
                # not be mixed, so the whole job runs again on the new one.
                job.preemptions += 1
                self._enqueue(job)
                return
        job._finish(result=np.concatenate(parts) if parts else embedder.embed(()))

    def _yield_to_user(self, interrupted: Job) -> None:
        """Run waiting user jobs now (used between background embedding slices)."""
        while self._user_waiting():
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

    def _generate(self, job: Job, request: ChatRequest) -> None:
        model = self._model_for(job.priority)
        background = job.priority == Priority.BACKGROUND

        def should_stop() -> bool:
            return job.cancel_requested or (
                background and (self._user_waiting() or not self._background_allowed())
            )

        parts: list[str] = []
        for chunk in model.stream(request.messages, request.options, should_stop):
            if not background:
                job._emit(chunk)
            parts.append(chunk.text)
            if chunk.finish_reason == "cancelled" and not job.cancel_requested:
                job.preemptions += 1  # cut for a user request: run again later
                self._enqueue(job)
                return
        if job.cancel_requested and background:
            job._finish(error=GenerationCancelled("cancelled"))
            return
        job._finish(result="".join(parts))

    def _model_for(self, priority: Priority) -> ChatModel:
        if self._chat is None:
            raise ModelUnavailable("No chat model is loaded.")
        if priority == Priority.USER:
            return self._chat
        if self._background_chat is None:
            fork = getattr(self._chat, "fork", None)
            self._background_chat = fork() if callable(fork) else self._chat
        return self._background_chat

    def _close_chat_models(self) -> None:
        for model in {id(m): m for m in (self._chat, self._background_chat) if m}.values():
            _close(model)
        self._chat = self._background_chat = None

    def _close_embedder(self) -> None:
        _close(self._embedder)
        self._embedder = None

    def _close_models(self) -> None:
        self._close_chat_models()
        self._close_embedder()


def _close(model: object) -> None:
    """Free a model's native resources, if it holds any (fakes may not)."""
    close = getattr(model, "close", None)
    if callable(close):
        close()
