"""The small interfaces every model implements, and their typed options.

A chat model streams text for a list of messages; an embedder embeds a batch.
Capabilities are attributes, options are frozen dataclasses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Role = Literal["system", "user", "assistant"]

ShouldStop = Callable[[], bool]
"""Polled between tokens; returning True ends the generation early."""


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True)
class GenerationOptions:
    max_tokens: int = 512
    temperature: float = 0.7
    top_p: float = 0.95
    top_k: int = 40
    repeat_penalty: float = 1.1
    seed: int | None = None
    stop: tuple[str, ...] = ()
    json_schema: dict[str, Any] | None = field(default=None, hash=False)
    """When set, the output is generated under this JSON schema (a llama.cpp grammar)."""
    json_schema_after: str | None = None
    """With ``json_schema``: the output is free text until it says this (e.g.
    ``<tool_call>``), and only what follows it is held to the schema, as
    llama.cpp's lazy grammars do for tool calls."""


@dataclass(frozen=True)
class Chunk:
    """One piece of streamed output."""

    text: str
    finish_reason: str | None = None
    """``None`` while streaming; ``"stop"``, ``"length"`` or ``"cancelled"`` at the end."""


@runtime_checkable
class ChatModel(Protocol):
    """A model that streams a reply to a conversation."""

    name: str
    context_length: int

    def stream(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        should_stop: ShouldStop | None = None,
    ) -> Iterator[Chunk]: ...

    def count_tokens(self, text: str) -> int: ...


@runtime_checkable
class Embedder(Protocol):
    """A model that embeds a batch of texts into unit-length vectors."""

    name: str
    dimension: int
    query_prefix: str
    """What the model card asks to put before a query ("search_query: "), or ""."""
    document_prefix: str
    """What it asks to put before a text to be found ("search_document: "), or ""."""

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Return an array of shape ``(len(texts), dimension)``, rows L2-normalised."""
        ...
