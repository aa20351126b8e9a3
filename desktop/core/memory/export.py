"""Every memory, with where it came from, exported to JSON Lines or Markdown.

What Reverie knows about the user is theirs to read and take away: the
export holds every memory whatever its status (labelled), with its
provenance (the messages it was learned from, with their conversation, and
outside references).  JSON Lines is for programs (one object per memory,
ISO-8601 times); Markdown is for people (grouped by status, then category).

A file is written whole or not at all: into a temporary file beside it, then
renamed over it, so a full disk never leaves half an export behind.  Like the
database, the file is readable only by the user.
"""

from __future__ import annotations

import errno
import json
import re
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import count, groupby
from pathlib import Path
from typing import Any

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.files import write_atomically
from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, Memory, MemoryQuery, MemoryStatus, MemoryStore
from desktop.core.db.memory_rows import MEMORY_STATUSES
from desktop.core.memory.gate import INSTRUCTION_LIKE, REDACTED
from desktop.core.memory.service import MemoryService

_PAGE = 1000
STATUS_TITLES: dict[MemoryStatus, str] = {
    "active": "Active",
    "archived": "Archived (restorable)",
    "deleted": "Deleted (restorable)",
    "superseded": "Replaced by newer memories",
}
SOURCE_LABELS = {
    "user_explicit": "told by you",
    "harvested": "learned from a conversation",
    "dream_merged": "merged while dreaming",
    "imported": "imported",
    "inferred": "inferred",
}
_ROLE_LABELS = {"user": "your message", "assistant": "Reverie's reply"}
# Markdown that would turn a line of a memory into a heading, list or fence:
# at its start or after up to three spaces (four make code, shown as written).
_BLOCK_MARKUP = re.compile(r"^( {0,3})(?=[#>*+=|-]|\d+[.)]|```|~~~)")
# Where Markdown ends a line (U+2028 and the like are text to it).
_LINE_BREAK = re.compile(r"\r\n?|\n")
# What opens raw HTML (a comment hides everything after it, a tag is rendered).
_HTML_OPENER = re.compile(r"<(?=[A-Za-z/!?])")
# What opens an image: a viewer fetches its address as it shows the file
# (a tracking pixel); "!\[" shows an exclamation mark and a bracket.
_IMAGE_OPENER = re.compile(r"!(?=\[)")
_HINTS = {
    errno.ENOSPC: "Free some disk space and try again.",
    getattr(errno, "EDQUOT", errno.ENOSPC): "Free some disk space and try again.",
    errno.EACCES: "Choose a folder you may write to.",
    errno.EPERM: "Choose a folder you may write to.",
    errno.EROFS: "Choose a folder you may write to.",
}


@dataclass(frozen=True)
class SourceMessage:
    """A message a memory was learned from; all but the id are None once it was purged."""

    message_id: int
    conversation_id: int | None
    conversation_title: str | None
    role: str | None
    created_at: float | None


@dataclass(frozen=True)
class ExportedMemory:
    memory: Memory
    messages: tuple[SourceMessage, ...]
    external_refs: tuple[str, ...]


def collect(
    memories: MemoryService | MemoryStore, conversations: ConversationStore
) -> list[ExportedMemory]:
    """Every memory, of every status, with its provenance, oldest first."""
    store = memories.store if isinstance(memories, MemoryService) else memories
    found: dict[int, Memory] = {}
    for offset in count(0, _PAGE):
        page = store.browse(
            MemoryQuery(statuses=MEMORY_STATUSES, sort="created", limit=_PAGE, offset=offset)
        )
        found.update((m.id, m) for m in page)
        if len(page) < _PAGE:
            break
    sources = {memory_id: store.sources(memory_id) for memory_id in found}
    messages = source_messages(conversations, (i for s in sources.values() for i in s.message_ids))
    return [
        ExportedMemory(
            memory,
            tuple(messages[i] for i in sources[memory.id].message_ids),
            sources[memory.id].external_refs,
        )
        for memory in sorted(found.values(), key=lambda m: m.id)
    ]


def source_messages(
    conversations: ConversationStore, message_ids: Iterable[int]
) -> dict[int, SourceMessage]:
    """The messages behind *message_ids*, with their conversation's title."""
    wanted = set(message_ids)
    titles: dict[int, str] = {}
    described: dict[int, SourceMessage] = {}
    for message in conversations.messages_by_ids(wanted):
        if message.conversation_id not in titles:
            conversation = conversations.get(message.conversation_id)
            titles[message.conversation_id] = conversation.title if conversation else ""
        described[message.id] = SourceMessage(
            message.id,
            message.conversation_id,
            titles[message.conversation_id],
            message.role,
            message.created_at,
        )
    for missing in wanted - described.keys():
        described[missing] = SourceMessage(missing, None, None, None, None)
    return described


def export_jsonl(
    memories: MemoryService | MemoryStore,
    conversations: ConversationStore,
    path: Path,
    own: AppPaths | None = None,
) -> int:
    """Write every memory to *path* as JSON Lines; how many were written.
    ``OwnFileRefused`` if *path* is one of the files of *own*."""
    items = collect(memories, conversations)
    _write(Path(path), "".join(_json_line(jsonl_record(item)) for item in items), own)
    return len(items)


def export_markdown(
    memories: MemoryService | MemoryStore,
    conversations: ConversationStore,
    path: Path,
    own: AppPaths | None = None,
) -> int:
    """Write every memory to *path* as a readable Markdown file; how many
    were written.  ``OwnFileRefused`` if *path* is one of the files of *own*."""
    items = collect(memories, conversations)
    _write(Path(path), markdown_text(items, time.time()), own)
    return len(items)


def iso_time(timestamp: float) -> str:
    """*timestamp* as ISO-8601 local time with its UTC offset."""
    return datetime.fromtimestamp(timestamp, tz=UTC).astimezone().isoformat()


def jsonl_record(item: ExportedMemory) -> dict[str, Any]:
    """One memory as a JSON object."""
    memory = item.memory
    return {
        "id": memory.id,
        "content": memory.content,
        "status": memory.status,
        "category": memory.category,
        "source_kind": memory.source_kind,
        "pinned": memory.pinned,
        "importance": memory.importance,
        "reinforcement_count": memory.reinforcement_count,
        "flags": list(memory.flags),
        "created_at": iso_time(memory.created_at),
        "last_seen_at": iso_time(memory.last_seen_at),
        "updated_at": iso_time(memory.updated_at),
        "valid_from": iso_time(memory.valid_from),
        "valid_to": None if memory.valid_to is None else iso_time(memory.valid_to),
        "superseded_by": memory.superseded_by,
        "sources": {
            "messages": [
                {
                    "message_id": m.message_id,
                    "conversation_id": m.conversation_id,
                    "conversation_title": m.conversation_title,
                    "role": m.role,
                    "created_at": None if m.created_at is None else iso_time(m.created_at),
                }
                for m in item.messages
            ],
            "external_refs": list(item.external_refs),
        },
    }


def _json_line(record: dict[str, Any]) -> str:
    # Unicode line separators are valid in JSON strings, but many line
    # readers (str.splitlines among them) would break the record there.
    text = json.dumps(record, ensure_ascii=False)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n"


def markdown_text(items: list[ExportedMemory], exported_at: float) -> str:
    """The Markdown export of *items*: by status, then category."""
    counts = Counter(item.memory.status for item in items)
    summary = ", ".join(f"{counts[s]} {s}" for s in STATUS_TITLES if counts[s])
    lines = [
        "# Reverie's memories",
        "",
        f"Exported {_readable_time(exported_at)}: {len(items)} memories"
        + (f" ({summary})." if summary else "."),
        "Archived and deleted memories can be restored in Reverie's memory browser.",
    ]
    order = {status: rank for rank, status in enumerate(STATUS_TITLES)}
    ranked = sorted(
        items, key=lambda i: (order[i.memory.status], i.memory.category.casefold(), i.memory.id)
    )
    for status, in_status in groupby(ranked, key=lambda i: i.memory.status):
        group = list(in_status)
        lines += ["", f"## {STATUS_TITLES[status]} ({len(group)})"]
        for category, in_category in groupby(group, key=lambda i: i.memory.category):
            listed = list(in_category)
            lines += ["", f"### {escaped_markdown(category)} ({len(listed)})"]
            for item in listed:
                lines += ["", *_markdown_memory(item)]
    return "\n".join(lines) + "\n"


def _markdown_memory(item: ExportedMemory) -> list[str]:
    memory = item.memory
    heading = f"#### #{memory.id}" + (" · pinned" if memory.pinned else "")
    seen = "once" if memory.reinforcement_count <= 1 else f"{memory.reinforcement_count} times"
    lines = [
        heading,
        *(f"> {escaped_markdown(line)}" if line else ">" for line in lines_of(memory.content)),
        "",
        f"- {SOURCE_LABELS.get(memory.source_kind, memory.source_kind).capitalize()}"
        f" · importance {memory.importance:.2g} · seen {seen}",
        f"- Created {_readable_time(memory.created_at)}"
        f" · last seen {_readable_time(memory.last_seen_at)}",
    ]
    if memory.superseded_by is not None:
        lines.append(f"- Replaced by #{memory.superseded_by}")
    for message in item.messages:
        lines.append(f"- From {_describe_message(message)}")
    lines += [f"- Reference: {escaped_markdown(ref)}" for ref in item.external_refs]
    if INSTRUCTION_LIKE in memory.flags:
        lines.append("- Reads like an instruction: given to the model only as quoted data.")
    if REDACTED in memory.flags:
        lines.append("- A secret was taken out of this memory before it was stored.")
    return lines


def _describe_message(message: SourceMessage) -> str:
    if message.conversation_id is None or message.created_at is None:
        return f"a message no longer stored (#{message.message_id})"
    title = escaped_markdown(message.conversation_title or "Untitled")
    role = _ROLE_LABELS.get(message.role or "", "a message")
    return (
        f"“{title}” (conversation #{message.conversation_id}): {role}"
        f" #{message.message_id} of {_readable_time(message.created_at)}"
    )


def _readable_time(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")


def lines_of(text: str) -> list[str]:
    """*text*'s lines, as a Markdown reader sees them."""
    return _LINE_BREAK.split(text)


def escaped_markdown(text: str) -> str:
    """*text* shown as one line of plain text: never Markdown block syntax
    nor raw HTML, and never more than one line.

    Every text the Markdown files write (titles, memory lines, categories,
    references) goes through here, so none leaves its line or quote: line
    breaks are folded to spaces, an HTML opener is escaped, and so is an
    image's bracket (nothing written makes a viewer load an address).
    """
    line = _HTML_OPENER.sub(r"\\<", _LINE_BREAK.sub(" ", text))
    line = _IMAGE_OPENER.sub(r"!\\", line)
    return _BLOCK_MARKUP.sub(r"\1\\", line, count=1)


def _write(path: Path, text: str, own: AppPaths | None) -> None:
    if own is not None:
        own.refuse_own(path)
    try:
        write_atomically(path, text)
    except OSError as error:
        raise EnvironmentProblem(
            f"The memories could not be exported to {path}: {error.strerror or error}.",
            write_hint(error),
        ) from error


def write_hint(error: OSError) -> str:
    """What the user can do about *error*, met writing an export."""
    return _HINTS.get(error.errno or 0, "Choose another file or folder and try again.")
