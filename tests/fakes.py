"""Deterministic stand-ins for the models, for tests of the logic around them,
and a turn listener that writes down what it hears.

They implement the same interfaces as the real models (``models.interfaces``);
tests of the model layer itself use the real small models instead.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import keyring.backend
import keyring.errors
import numpy as np
import numpy.typing as npt
from keyring.compat import properties

from desktop.core.chat.service import Reply, ReplyKind, Stage
from desktop.core.chat.tools.toolbox import ToolCall
from models.interfaces import ChatMessage, Chunk, GenerationOptions, ShouldStop

_WORD = re.compile(r"\w+", re.UNICODE)


class Gate(Protocol):
    """Anything a fake waits on before each step: a ``threading.Event`` or a ``StepGate``."""

    def wait(self, timeout: float | None = None) -> object: ...


_STOP_LOOK_S = 0.05
"""How often a held fake generation looks whether it was stopped."""


class StepGate:
    """Lets a fake model take a set number of steps, then holds it until told.

    The model calls ``wait()`` before each step (a chunk, an embedding call).
    ``wait_for_arrival(n)`` returns once the model has reached step *n*, so a
    test knows exactly where a generation is held; ``allow()`` and ``open()``
    let it go on.  No sleeping; a held step looks every ``_STOP_LOOK_S``
    whether its generation was stopped, as a real model would between tokens.
    """

    def __init__(self, allowed: int = 0) -> None:
        self._condition = threading.Condition()
        self._allowed = allowed
        self._arrived = 0
        self._open = False

    @property
    def arrived(self) -> int:
        with self._condition:
            return self._arrived

    def wait(self, timeout: float | None = None, should_stop: ShouldStop | None = None) -> bool:
        """Arrive at the next step and wait until it is allowed; with
        *should_stop*, a step stopped meanwhile (its turn cancelled) is let
        go, as a real model stops between tokens: else a test that fails
        while a generation is held would hang at the window's shutdown."""
        with self._condition:
            self._arrived += 1
            step = self._arrived
            self._condition.notify_all()
            allowed = lambda: self._open or step <= self._allowed  # noqa: E731
            if should_stop is None:
                return self._condition.wait_for(allowed, timeout)
            while not self._condition.wait_for(allowed, _STOP_LOOK_S):
                if should_stop():
                    return False
            return True

    def allow(self, steps: int = 1) -> None:
        with self._condition:
            self._allowed += steps
            self._condition.notify_all()

    def open(self) -> None:
        with self._condition:
            self._open = True
            self._condition.notify_all()

    def wait_for_arrival(self, step: int, timeout: float = 10.0) -> None:
        """Block until the model has reached step *step* (1-based); fail after *timeout*."""
        with self._condition:
            if not self._condition.wait_for(lambda: self._arrived >= step, timeout):
                raise TimeoutError(f"the model reached step {self._arrived}, not {step}")


def eventually(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Whether *condition* came true within *timeout* (looked at every few ms,
    like qtbot.waitUntil, for a thread that gives no signal for it)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        threading.Event().wait(0.005)
    return True


class CallProbe:
    """Records which threads call the fakes and notices two calls running at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.active = 0
        self.max_active = 0
        self.calls = 0
        self.thread_ids: set[int] = set()

    @contextmanager
    def call(self) -> Iterator[None]:
        with self._lock:
            self.active += 1
            self.calls += 1
            self.max_active = max(self.max_active, self.active)
            self.thread_ids.add(threading.get_ident())
        try:
            yield
        finally:
            with self._lock:
                self.active -= 1


class ScriptedChatModel:
    """Replays queued replies word by word, recording every request it got.

    A queued exception is raised instead of a reply.  ``answers`` (optional)
    picks the reply by the last message's content before the queue is used,
    for jobs that may run more than once (a preempted background job).
    ``gate`` (optional) is waited on before each chunk, so a test can hold a
    generation mid-stream and act while it is in flight.  ``probe`` (optional)
    sees every call, to catch two running at once.
    """

    name = "scripted"
    context_length = 4096

    def __init__(
        self,
        replies: Sequence[str | BaseException] = (),
        default: str = "ok",
        *,
        answers: Mapping[str, str] | None = None,
        probe: CallProbe | None = None,
    ) -> None:
        self._replies: deque[str | BaseException] = deque(replies)
        self.default = default
        self.answers: dict[str, str] = dict(answers or {})
        self.probe = probe
        self.requests: list[tuple[list[ChatMessage], GenerationOptions]] = []
        self.gate: Gate | None = None
        self.chunks_sent = 0
        self.closed = False
        self.reads: list[list[ChatMessage]] = []
        """The prompts read ahead (``read``)."""

    def queue(self, *replies: str | BaseException) -> None:
        self._replies.extend(replies)

    def read(self, messages: Sequence[ChatMessage], should_stop: ShouldStop) -> bool:
        """Note the prompt read ahead, as ``LlamaChatModel.read`` reads it."""
        self.reads.append(list(messages))
        return True

    def stream(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        should_stop: ShouldStop | None = None,
    ) -> Iterator[Chunk]:
        with self.probe.call() if self.probe else _nothing():
            self.requests.append((list(messages), options))
            reply = self._next_reply(messages)
            pieces = re.findall(r"\S+\s*", reply) or [reply]
            for piece in pieces[: options.max_tokens]:
                if isinstance(self.gate, StepGate):
                    self.gate.wait(should_stop=should_stop)
                elif self.gate is not None:
                    self.gate.wait()
                if should_stop is not None and should_stop():
                    yield Chunk("", "cancelled")
                    return
                self.chunks_sent += 1
                yield Chunk(piece)
            yield Chunk("", "stop" if len(pieces) <= options.max_tokens else "length")

    def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
        if messages and messages[-1].content in self.answers:
            return self.answers[messages[-1].content]
        reply = self._replies.popleft() if self._replies else self.default
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def close(self) -> None:
        self.closed = True


class ForkableChatModel(ScriptedChatModel):
    """A scripted model with ``fork()``, like ``LlamaChatModel``: each fork is a
    separate scripted model with the same answers, probe and gate."""

    name = "forkable"

    def __init__(
        self,
        replies: Sequence[str | BaseException] = (),
        default: str = "ok",
        *,
        answers: Mapping[str, str] | None = None,
        probe: CallProbe | None = None,
    ) -> None:
        super().__init__(replies, default, answers=answers, probe=probe)
        self.forks: list[ScriptedChatModel] = []

    def fork(self) -> ScriptedChatModel:
        child = ScriptedChatModel(default=self.default, answers=self.answers, probe=self.probe)
        child.gate = self.gate
        self.forks.append(child)
        return child


@dataclass
class Recorder:
    """A turn listener that writes down everything it is told."""

    events: list[tuple[str, Any]] = field(default_factory=list)

    def stage(self, stage: Stage) -> None:
        self.events.append(("stage", stage))

    def reply_started(self, kind: ReplyKind) -> None:
        self.events.append(("started", kind))

    def text(self, piece: str) -> None:
        self.events.append(("text", piece))

    def reply_finished(self, reply: Reply) -> None:
        self.events.append(("finished", reply))

    def notice(self, text: str) -> None:
        self.events.append(("notice", text))

    def tool_called(self, call: ToolCall) -> None:
        self.events.append(("tool", call))

    def replies(self) -> list[Reply]:
        return [value for kind, value in self.events if kind == "finished"]

    def notices(self) -> list[str]:
        return [value for kind, value in self.events if kind == "notice"]


class HashingEmbedder:
    """Embeds a text as a normalised bag of hashed lower-case words.

    Texts sharing words get a positive cosine; texts sharing none get ~0.
    ``gate`` and ``probe`` work as in ``ScriptedChatModel`` (one step per call).
    """

    name = "hashing"
    query_prefix = ""
    document_prefix = ""

    def __init__(self, dimension: int = 384, *, probe: CallProbe | None = None) -> None:
        self.dimension = dimension
        self.calls: list[list[str]] = []
        self.probe = probe
        self.gate: Gate | None = None
        self.closed = False

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        with self.probe.call() if self.probe else _nothing():
            if self.gate is not None:
                self.gate.wait()
            self.calls.append(list(texts))
            out = np.zeros((len(texts), self.dimension), dtype=np.float32)
            for row, text in enumerate(texts):
                for word in _WORD.findall(text.lower()):
                    digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                    out[row, int.from_bytes(digest, "little") % self.dimension] += 1.0
                norm = float(np.linalg.norm(out[row]))
                if norm > 0:
                    out[row] /= norm
            return out

    def close(self) -> None:
        self.closed = True


@contextmanager
def _nothing() -> Iterator[None]:
    yield


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring that keeps passwords in a dict."""

    @properties.classproperty
    def priority(cls) -> float:
        # Every subclass is registered with keyring; raising makes this one
        # "not viable", so keyring never picks it for the rest of the session.
        raise RuntimeError("a test backend, only used when passed explicitly")

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.passwords.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")


class RecordedSleep:
    """Stands in for the back-off sleep: remembers each delay and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
