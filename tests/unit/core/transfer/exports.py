"""ChatGPT and Claude exports built in code, in the shapes their exports
document (no user's data): a conversation at a time, and the files and
archives they come in."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

START = 1_700_000_000.0
"""When the first conversation of a test began (unix seconds)."""


def node(
    node_id: str,
    role: str | None,
    parts: Sequence[object] = (),
    *,
    parent: str | None,
    children: Sequence[str] = (),
    create_time: float | None = None,
    **message: Any,
) -> dict[str, Any]:
    """A node of a ChatGPT conversation's ``mapping``; *role* None: no message."""
    content = message.pop("content", {"content_type": "text", "parts": list(parts)})
    metadata = message.pop("metadata", {})
    return {
        "id": node_id,
        "message": None
        if role is None
        else {
            "id": node_id,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": create_time,
            "update_time": None,
            "content": content,
            "status": "finished_successfully",
            "end_turn": True,
            "weight": 1.0,
            "metadata": metadata,
            "recipient": message.pop("recipient", "all"),
            **message,
        },
        "parent": parent,
        "children": list(children),
    }


def chatgpt(
    conversation_id: str,
    title: str | None,
    nodes: Sequence[dict[str, Any]],
    current_node: str | None,
    *,
    create_time: float | None = START,
    update_time: float | None = START + 600,
) -> dict[str, Any]:
    return {
        "title": title,
        "create_time": create_time,
        "update_time": update_time,
        "mapping": {n["id"]: n for n in nodes},
        "moderation_results": [],
        "current_node": current_node,
        "plugin_ids": None,
        "conversation_id": conversation_id,
        "conversation_template_id": None,
        "gizmo_id": None,
        "is_archived": False,
        "safe_urls": [],
        "default_model_slug": "gpt-4o",
        "id": conversation_id,
    }


def chatgpt_line(
    conversation_id: str, title: str | None, *said: str, start: float = START
) -> dict[str, Any]:
    """A ChatGPT conversation of *said*, the user's and the assistant's in
    turn, after the root and the hidden system message every export has."""
    nodes = [
        node("root", None, parent=None, children=["system"]),
        node(
            "system",
            "system",
            [""],
            parent="root",
            children=[f"{conversation_id}-0"],
            metadata={"is_visually_hidden_from_conversation": True},
        ),
    ]
    previous = "system"
    for index, text in enumerate(said):
        this = f"{conversation_id}-{index}"
        following = [f"{conversation_id}-{index + 1}"] if index + 1 < len(said) else []
        role = "user" if index % 2 == 0 else "assistant"
        nodes.append(
            node(
                this,
                role,
                [text],
                parent=previous,
                children=following,
                create_time=start + 10 * index,
            )
        )
        previous = this
    return chatgpt(
        conversation_id,
        title,
        nodes,
        previous,
        create_time=start,
        update_time=start + 10 * len(said),
    )


def claude(
    uuid: str | None, name: str | None, *said: str, start: str = "2024-05-01T12:00:00"
) -> dict[str, Any]:
    """A Claude conversation of *said*, the human's and the assistant's in turn."""
    minute = int(start[14:16])
    messages = [
        {
            "uuid": f"{uuid}-{index}",
            "text": text,
            "content": [{"type": "text", "text": text}],
            "sender": "human" if index % 2 == 0 else "assistant",
            "created_at": f"{start[:14]}{minute + index:02d}{start[16:]}.000000Z",
            "updated_at": f"{start[:14]}{minute + index:02d}{start[16:]}.000000Z",
            "attachments": [],
            "files": [],
        }
        for index, text in enumerate(said)
    ]
    return {
        "uuid": uuid,
        "name": name,
        "created_at": f"{start}.000000Z",
        "updated_at": messages[-1]["updated_at"] if messages else f"{start}.000000Z",
        "account": {"uuid": "account"},
        "chat_messages": messages,
    }


def write_json(path: Path, conversations: Sequence[object]) -> Path:
    path.write_text(json.dumps(conversations), encoding="utf-8")
    return path


def write_zip(path: Path, files: dict[str, object]) -> Path:
    """A .zip holding *files* (name -> JSON value, or text as it is)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, value in files.items():
            archive.writestr(name, value if isinstance(value, str) else json.dumps(value))
    return path
