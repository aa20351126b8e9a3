"""A conversation of a ChatGPT data export, as the user saw it last.

ChatGPT keeps a conversation as a tree: ``mapping`` holds every node (id ->
``{id, message, parent, children}``), and an edited message or a
regenerated answer starts a branch beside the old one.  ``current_node`` is
where the user left it: the path from there up to the root is the
conversation they saw; the abandoned branches are left out.  So are the
nodes they never saw as messages: system instructions, hidden context
(``metadata.is_visually_hidden_from_conversation``), tool calls and
results, and empty nodes.  Of a message's ``content.parts`` the text is
kept; images and other attachments are counted as left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
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

_ROLES: dict[str, Literal["user", "assistant"]] = {"user": "user", "assistant": "assistant"}
_TEXT_CONTENT = ("text", "multimodal_text", "code")


def looks_like(item: Mapping[str, object]) -> bool:
    """Whether *item*, an export's first conversation, is ChatGPT's."""
    return isinstance(item.get("mapping"), dict)


def conversation(item: object) -> ForeignConversation | Unusable:
    """*item* of ``conversations.json`` as what is imported of it."""
    if not isinstance(item, dict):
        return Unusable("", None, "it is not a conversation")
    title = text_of(item.get("title")).strip()
    external_id = (
        identifier(item.get("conversation_id")) or identifier(item.get("id")) or fallback_id(item)
    )
    created = timestamp(item.get("create_time"))
    left_out: Counter[str] = Counter()
    messages: list[ForeignMessage] = []
    said_at = created
    for node in _current_path(mapping(item.get("mapping")), item.get("current_node")):
        message = mapping(node.get("message"))
        said_at = timestamp(message.get("create_time")) or said_at
        kept = _message(message, said_at, left_out)
        if kept is not None:
            messages.append(kept)
    updated = timestamp(item.get("update_time"))
    return assembled("chatgpt", external_id, title, (created, updated), messages, left_out)


def _current_path(nodes: Mapping[str, object], current: object) -> list[Mapping[str, object]]:
    """The nodes from the root down to *current* (or, without it, down the
    last child of each node: the newest branch)."""
    key = identifier(current)
    if key is None or key not in nodes:
        key = _newest_leaf(nodes)
    path: list[Mapping[str, object]] = []
    seen: set[str] = set()
    while key is not None and key in nodes and key not in seen:
        seen.add(key)
        node = mapping(nodes[key])
        path.append(node)
        key = identifier(node.get("parent"))
    path.reverse()
    return path


def _newest_leaf(nodes: Mapping[str, object]) -> str | None:
    roots = [k for k, n in nodes.items() if identifier(mapping(n).get("parent")) not in nodes]
    key = roots[0] if roots else None
    seen: set[str] = set()
    while key is not None and key not in seen:
        seen.add(key)
        children = mapping(nodes[key]).get("children")
        known = (
            [c for c in children if identifier(c) in nodes] if isinstance(children, list) else []
        )
        if not known:
            return key
        key = identifier(known[-1])
    return key


def _message(
    message: Mapping[str, object], said_at: float | None, left_out: Counter[str]
) -> ForeignMessage | None:
    """What of one node's message is imported (None: nothing), counting what is not."""
    if not message:
        return None
    role = text_of(mapping(message.get("author")).get("role"))
    metadata = mapping(message.get("metadata"))
    attachments = metadata.get("attachments")
    left_out["attachment"] += len(attachments) if isinstance(attachments, list) else 0
    if role not in _ROLES or metadata.get("is_visually_hidden_from_conversation") is True:
        left_out["tool"] += role == "tool"
        return None
    recipient = message.get("recipient")
    if recipient not in (None, "all"):  # the assistant calling a tool, not answering
        left_out["tool"] += 1
        return None
    text = _text(mapping(message.get("content")), left_out)
    if not text or too_long(text, left_out):
        return None
    return ForeignMessage(_ROLES[role], text, said_at, identifier(message.get("id")))


def _text(content: Mapping[str, object], left_out: Counter[str]) -> str:
    parts = content.get("parts")
    if not isinstance(parts, list):
        text = content.get("text")
        if content.get("content_type") in _TEXT_CONTENT and isinstance(text, str):
            return text_of(text).strip()
        left_out["other"] += bool(content)
        return ""
    texts = []
    for part in parts:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            part = part["text"]  # a transcription of what was said aloud
        if isinstance(part, str):
            if cleaned := text_of(part).strip():
                texts.append(cleaned)
        elif part is not None:
            left_out["attachment"] += 1  # an image or file pointer
    return "\n\n".join(texts)
