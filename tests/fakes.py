"""Deterministic stand-ins for the models, for tests of the logic around them.

They implement the same interfaces as the real models (``models.interfaces``);
tests of the model layer itself use the real small models instead.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import deque
from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt

from models.interfaces import ChatMessage, Chunk, GenerationOptions, ShouldStop

_WORD = re.compile(r"\w+", re.UNICODE)


class ScriptedChatModel:
    """Replays queued replies word by word, recording every request it got.

    ``gate`` (optional) is waited on before each chunk, so a test can hold a
    generation mid-stream and act while it is in flight.
    """

    name = "scripted"
    context_length = 4096

    def __init__(self, replies: Sequence[str] = (), default: str = "ok") -> None:
        self._replies: deque[str] = deque(replies)
        self.default = default
        self.requests: list[tuple[list[ChatMessage], GenerationOptions]] = []
        self.gate: threading.Event | None = None
        self.chunks_sent = 0

    def queue(self, *replies: str) -> None:
        self._replies.extend(replies)

    def stream(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        should_stop: ShouldStop | None = None,
    ) -> Iterator[Chunk]:
        self.requests.append((list(messages), options))
        reply = self._replies.popleft() if self._replies else self.default
        pieces = re.findall(r"\S+\s*", reply) or [reply]
        for piece in pieces[: options.max_tokens]:
            if self.gate is not None:
                self.gate.wait()
            if should_stop is not None and should_stop():
                yield Chunk("", "cancelled")
                return
            self.chunks_sent += 1
            yield Chunk(piece)
        yield Chunk("", "stop" if len(pieces) <= options.max_tokens else "length")

    def count_tokens(self, text: str) -> int:
        return len(text.split())


class HashingEmbedder:
    """Embeds a text as a normalised bag of hashed lower-case words.

    Texts sharing words get a positive cosine; texts sharing none get ~0.
    """

    name = "hashing"

    def __init__(self, dimension: int = 384) -> None:
        self.dimension = dimension
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
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
