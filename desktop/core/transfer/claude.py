"""A conversation of a Claude data export.

Each item of ``conversations.json`` has ``uuid``, ``name``, ``created_at``
and ``updated_at`` (ISO-8601) and ``chat_messages``, each with ``sender``
("human" or "assistant"), ``created_at``, ``uuid``, and its words in
``text`` or in ``content`` blocks.  Text blocks are kept; tool uses and
results, thinking, and attachments and files are counted as left out.
Where messages name their ``parent_message_uuid``, a conversation whose
messages were edited or retried holds its branches side by side: the
branch ending with the newest message is the one kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

from desktop.core.transfer.foreign import (
    ForeignConversation,
    ForeignMessage,
    Unusable,
    assembled,
    fallback_id,
    identifier,
    mapping,
    text_of,
    timestamp,
    too_long,
)

_ROLES: dict[str, Literal["user", "assistant"]] = {"human": "user", "assistant": "assistant"}
_ATTACHED = ("attachments", "files", "files_v2")


def looks_like(item: Mapping[str, object]) -> bool:
    """Whether *item*, an export's first conversation, is Claude's."""
    return isinstance(item.get("chat_messages"), list)


def conversation(item: object) -> ForeignConversation | Unusable:
    """*item* of ``conversations.json`` as what is imported of it."""
    if not isinstance(item, dict):
        return Unusable("", None, "it is not a conversation")
    title = text_of(item.get("name")).strip()
    external_id = identifier(item.get("uuid")) or fallback_id(item)
    created = timestamp(item.get("created_at"))
    listed = item.get("chat_messages")
    left_out: Counter[str] = Counter()
    messages: list[ForeignMessage] = []
    said_at = created
    for message in _current_branch(listed if isinstance(listed, list) else []):
        said_at = timestamp(message.get("created_at")) or said_at
        kept = _message(message, said_at, left_out)
        if kept is not None:
            messages.append(kept)
    updated = timestamp(item.get("updated_at"))
    return assembled("claude", external_id, title, (created, updated), messages, left_out)


def _current_branch(listed: Sequence[object]) -> list[Mapping[str, object]]:
    """The messages in order; of branches, those leading to the newest message."""
    messages: list[Mapping[str, object]] = [m for m in listed if isinstance(m, dict)]
    by_id = {key: m for m in messages if (key := identifier(m.get("uuid"))) is not None}
    parents = [identifier(m.get("parent_message_uuid")) for m in messages]
    if not any(p in by_id for p in parents):
        return messages  # one line of messages, as listed
    named = set(parents)
    leaves = [m for m in messages if identifier(m.get("uuid")) not in named]
    newest = max(
        reversed(leaves or messages),
        key=lambda m: timestamp(m.get("created_at")) or 0.0,
    )
    branch: list[Mapping[str, object]] = []
    seen: set[int] = set()
    node: Mapping[str, object] | None = newest
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        branch.append(node)
        parent = identifier(node.get("parent_message_uuid"))
        node = by_id.get(parent) if parent is not None else None
    branch.reverse()
    return branch


def _message(
    message: Mapping[str, object], said_at: float | None, left_out: Counter[str]
) -> ForeignMessage | None:
    for key in _ATTACHED:
        attached = message.get(key)
        left_out["attachment"] += len(attached) if isinstance(attached, list) else 0
    role = _ROLES.get(text_of(message.get("sender")))
    if role is None:
        return None
    text = _text(message.get("content"), left_out) or text_of(message.get("text")).strip()
    if not text or too_long(text, left_out):
        return None
    return ForeignMessage(role, text, said_at, identifier(message.get("uuid")))


def _text(content: object, left_out: Counter[str]) -> str:
    if not isinstance(content, list):
        return ""
    texts = []
    for block in content:
        kind = mapping(block).get("type")
        words = mapping(block).get("text")
        if kind == "text" and isinstance(words, str):
            if cleaned := text_of(words).strip():
                texts.append(cleaned)
        elif kind in ("tool_use", "tool_result"):
            left_out["tool"] += 1
        elif kind in ("image", "document", "file"):
            left_out["attachment"] += 1
        elif block is not None:
            left_out["other"] += 1
    return "\n\n".join(texts)
