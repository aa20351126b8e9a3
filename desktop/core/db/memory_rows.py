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

from desktop.core.db.connection import Row

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

MEMORY_COLUMNS = (
    "id",
    "content",
    "category",
    "source_kind",
    "importance",
    "reinforcement_count",
    "created_at",
    "last_seen_at",
    "valid_from",
    "valid_to",
    "pinned",
    "status",
    "superseded_by",
    "content_hash",
    "embedding_model",
    "flags",
    "updated_at",
)


def select_columns(alias: str) -> str:
    """The memory columns for a SELECT, qualified by table *alias*."""
    return ", ".join(f"{alias}.{column}" for column in MEMORY_COLUMNS)


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


def memory_from_row(row: Row) -> Memory:
    return Memory(
        id=row["id"],
        content=row["content"],
        category=row["category"],
        source_kind=row["source_kind"],
        importance=row["importance"],
        reinforcement_count=row["reinforcement_count"],
        created_at=row["created_at"],
        last_seen_at=row["last_seen_at"],
        valid_from=row["valid_from"],
        valid_to=row["valid_to"],
        pinned=bool(row["pinned"]),
        status=row["status"],
        superseded_by=row["superseded_by"],
        content_hash=row["content_hash"],
        embedding_model=row["embedding_model"],
        flags=tuple(json.loads(row["flags"])) if row["flags"] is not None else (),
        updated_at=row["updated_at"],
    )


def history_from_row(row: Row) -> MemoryHistoryEntry:
    return MemoryHistoryEntry(
        id=row["id"],
        memory_id=row["memory_id"],
        operation=row["operation"],
        old_content=row["old_content"],
        new_content=row["new_content"],
        actor=row["actor"],
        dream_run_id=row["dream_run_id"],
        details=json.loads(row["details"]) if row["details"] is not None else None,
        created_at=row["created_at"],
    )
