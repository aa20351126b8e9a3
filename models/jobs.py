"""What the inference broker runs: jobs, their requests and priorities, the
roles a model call is made for, and the backends that serve a role.

A ``Job`` is a handle on one request: user chat jobs stream their chunks,
every job has a final result (or error), and anyone may cancel it.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any

from models.interfaces import ChatMessage, Chunk, GenerationOptions

log = logging.getLogger(__name__)


class Priority(IntEnum):
    USER = 0
    BACKGROUND = 1


class Role(StrEnum):
    """What a model is used for; each role has its own backends."""

    CHAT = "chat"
    """The user's conversation (user-priority generations, token counts)."""
    BACKGROUND = "background"
    """Harvest, dreaming, routines, agenda reviews, summaries (background generations)."""
    EMBEDDINGS = "embeddings"
    """Vectors for memories and searches, at either priority."""


@dataclass(frozen=True)
class Backend:
    """One way to serve a role: how to load its model, and where it runs.

    A local backend's model runs on the broker's one local thread (llama.cpp
    contexts are never shared between threads); a remote one (a server) on a
    lane of its own, so it never waits for local work.  Two backends with the
    same ``key`` are the same model: it is loaded once, and background work on
    a local model the chat also uses runs on a fork of it (its own context on
    the same weights).
    """

    key: str
    """The model's identity, e.g. its file and context length, or its server and name."""
    load: Callable[[], Any] = field(compare=False)
    """Makes the model (a ``ChatModel`` or an ``Embedder``); runs on its lane's thread."""
    label: str = ""
    """How the user knows it: "Qwen2.5 3B Instruct", "llama3.1 at http://box:11434/v1"."""
    remote: bool = False


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[ChatMessage, ...]
    options: GenerationOptions


@dataclass(frozen=True)
class ReadRequest:
    """Read *messages*' prompt into the chat's own prompt cache, as a reply
    to them would begin, answering nothing (``LlamaChatModel.read``)."""

    messages: tuple[ChatMessage, ...]


@dataclass(frozen=True)
class EmbedRequest:
    texts: tuple[str, ...]
    query: bool = False
    """Queries to search with, not texts to be found (some models want each
    kind prefixed: see ``Embedder.query_prefix``)."""


@dataclass(frozen=True)
class CountRequest:
    texts: tuple[str, ...]


@dataclass(frozen=True)
class LoadRequest:
    backend: Backend


@dataclass(frozen=True)
class CollectRequest:
    """Close every model of the lane whose key is not in *keep*, and every
    fork of one whose key is not in *forked*."""

    keep: frozenset[str]
    forked: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ConfigureRequest:
    """Serve *role* with *backends*: done once each one's model loaded on its lane."""

    role: Role
    backends: tuple[Backend, ...]


Request = (
    ChatRequest
    | ReadRequest
    | EmbedRequest
    | CountRequest
    | LoadRequest
    | CollectRequest
    | ConfigureRequest
)
_END = object()


class Job:
    """A handle on one submitted request.

    User chat jobs stream their chunks through ``chunks()``; every job has a
    final ``result()`` (the full text, the embeddings, the token counts or
    the loaded model's name) which re-raises the job's error.
    """

    def __init__(self, request: Request, priority: Priority, role: Role | None = None) -> None:
        self.request = request
        self.priority = priority
        self.role = role
        """The role whose backends serve this job (None: a lane's own work, e.g. a load)."""
        self.attempt = 0
        """Which of the role's backends serves it: past 0, a fallback."""
        self.emitted = False
        """Whether the user has seen output of it (then no fallback may start it over)."""
        self.made_by: str | None = None
        """The name of the model that answered: the one an embedding's vectors
        are of (the role's model may have been switched since)."""
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

    @property
    def error(self) -> BaseException | None:
        """What the finished job failed with (None while running or if it succeeded)."""
        return self._error

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
        otherwise on the thread that finishes it (a Qt receiver gets it as a
        queued signal)."""
        with self._callbacks_lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def emit(self, chunk: Chunk) -> None:
        self.emitted = True
        self._chunks.put(chunk)

    def finish(self, result: Any = None, error: BaseException | None = None) -> None:
        self._result, self._error = result, error
        self._chunks.put(_END)
        with self._callbacks_lock:
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            try:
                callback(self)
            except Exception:  # a listener's bug must not take a broker thread down
                log.exception("job done-callback failed")
