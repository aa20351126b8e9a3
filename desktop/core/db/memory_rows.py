"""The plain values ``MemoryStore`` hands out, and how rows become them.

Frozen dataclasses, so callers (engines, windows, worker signals) can pass
them around freely; nothing here touches the database.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
import numpy.typing as npt

from desktop.core.db.connection import Row
from desktop.core.db.rows import columns, from_row, json_or_none, select_list

MemoryStatus = Literal["active", "superseded", "archived", "deleted"]
SourceKind = Literal["user_explicit", "harvested", "dream_merged", "imported", "inferred"]
HistoryOperation = Literal[
    "add",
    "update",
    "reinforce",
    "merge",
    "supersede",
    "archive",
    "restore",
    "delete",
    "pin",
    "unpin",
    "decay",
    "recategorize",
]

MEMORY_STATUSES: tuple[MemoryStatus, ...] = get_args(MemoryStatus)
SOURCE_KINDS: tuple[SourceKind, ...] = get_args(SourceKind)

# Who changed a memory; "dream:<pass>" names the dreaming pass.
_ACTOR = re.compile(r"user|harvest|system|tool|dream:.+", re.DOTALL)
_WHITESPACE = re.compile(r"\s+")


def content_hash(text: str) -> str:
    """sha256 hex of *text* with whitespace collapsed and case folded.

    Two memories differing only in spacing or case get the same hash, so a
    repeated fact is reinforced instead of stored (and embedded) twice.
    """
    normalised = _WHITESPACE.sub(" ", text).strip().casefold()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


def check_actor(actor: str) -> str:
    if not _ACTOR.fullmatch(actor):
        raise ValueError(
            f"unknown actor {actor!r}: use user, harvest, system, tool or dream:<pass>"
        )
    return actor


@dataclass(frozen=True)
class Memory:
    id: int
    content: str
    category: str
    source_kind: SourceKind
    importance: float
    reinforcement_count: int
    created_at: float
    last_seen_at: float
    valid_from: float
    valid_to: float | None
    pinned: bool
    status: MemoryStatus
    superseded_by: int | None
    content_hash: str
    embedding_model: str | None
    flags: tuple[str, ...]
    updated_at: float
    faded_importance: float | None
    """Importance as decay left it (None: not faded); ``importance`` is as given."""
    decayed_through: float | None
    """Decay is applied up to this time (None: not yet)."""

    @property
    def current_importance(self) -> float:
        """How much the memory matters now: its importance, faded if unused."""
        return self.importance if self.faded_importance is None else self.faded_importance


# eq=False: an embedding array has no single truth value, so field-wise
# equality would raise; a NewMemory is handed over, never compared.
@dataclass(frozen=True, eq=False)
class NewMemory:
    """A memory to store (see ``MemoryStore.add_many``): what ``add`` takes, as a value."""

    content: str
    embedding: npt.NDArray[np.floating[Any]] | None
    source_kind: SourceKind
    category: str = "general"
    importance: float = 0.5
    source_message_ids: tuple[int, ...] = ()
    external_refs: tuple[str, ...] = ()
    embedding_model: str | None = None
    """Recorded only with an embedding."""
    flags: tuple[str, ...] = ()
    first_seen_at: float | None = None
    """When it was first seen (None: now); a merge keeps its sources' earliest."""
    last_seen_at: float | None = None
    reinforcement_count: int = 1
    pinned: bool = False


@dataclass(frozen=True)
class MemoryHit:
    """A search result; ``score`` is lower-is-better (bm25 rank or cosine distance)."""

    memory: Memory
    score: float


@dataclass(frozen=True)
class MemorySources:
    """Where a memory came from: conversation messages and/or outside references."""

    message_ids: tuple[int, ...]
    external_refs: tuple[str, ...]


@dataclass(frozen=True)
class MemoryHistoryEntry:
    id: int
    memory_id: int
    operation: HistoryOperation
    old_content: str | None
    new_content: str | None
    actor: str
    dream_run_id: int | None
    details: dict[str, Any] | None = field(hash=False)
    created_at: float


MemorySort = Literal["relevance", "recent", "created", "importance", "reinforced", "alphabetical"]


@dataclass(frozen=True)
class MemoryQuery:
    """What the memory browser lists: filters (empty means any), words, order."""

    text: str = ""
    """Words to match (full text); with ``sort="relevance"`` the best match first."""
    statuses: tuple[MemoryStatus, ...] = ("active",)
    categories: tuple[str, ...] = ()
    source_kinds: tuple[SourceKind, ...] = ()
    pinned: bool | None = None
    ids: tuple[int, ...] | None = None
    sort: MemorySort = "recent"
    limit: int = 500
    offset: int = 0


MEMORY_COLUMNS = columns(Memory)


def select_columns(alias: str) -> str:
    """The memory columns for a SELECT, qualified by table *alias*."""
    return select_list(Memory, alias)


def memory_from_row(row: Row) -> Memory:
    return from_row(Memory, row, pinned=bool, flags=lambda text: tuple(json.loads(text or "[]")))


def history_from_row(row: Row) -> MemoryHistoryEntry:
    return from_row(MemoryHistoryEntry, row, details=json_or_none)
