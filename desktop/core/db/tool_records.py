"""What the stored records of the chat's tools say of an erased task, memory or skill.

A tool call stays in its conversation as the record of what was done
("Task #4 added"), but the words of what it acted on go with an erasure.
The texts are found by what each record names, not by searching for the
item's text as it reads now: a task reworded since was added under its
old text, a memory is quoted made safe for the prompt, a skill's text is
in its file alone.  Each record is read by its shape:

- ``task``: the task's number in its arguments (``id``) or in its result
  (``task``, or an entry of ``tasks``, a listing); its text and routine;
- ``append_memory``, ``search_memory``: the memory's number in the result
  (``id``, or an entry of ``memories``); its text, and the text the call
  asked to remember;
- ``add_skill``, ``read_skill``, ``list_skills``: the skill's name; its
  name, summary and text.

A background worker's results are stored without their call: they are read
by the same shapes.  The texts found are then taken out where they are
quoted (``PurgeStore``): the results, the calls the replies made
(``call_unsaid``), the dream tables and the conversations' summaries.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from desktop.core.db.connection import Transaction
from desktop.core.db.message_kinds import TOOL_CALL_START

ARGUMENTS = "arguments"
"""A tool result's metadata key holding the call's arguments."""
_SKILL_KEYS = ("name", "text", "summary")
_PAGE = 1_000
"""Tool results read at a time: a long history holds tens of thousands."""


@dataclass(frozen=True)
class Named:
    """The erased items a record may name: tasks and memories by number, skills by name."""

    task_ids: frozenset[int]
    memory_ids: frozenset[int]
    skill_names: frozenset[str]


def texts_recorded(tx: Transaction, named: Named, tables: set[str]) -> set[str]:
    """Every text the tools' stored results and calls give the *named*
    items: in a conversation (with the call's arguments) and in a
    background worker's transcript."""
    if not (named.task_ids or named.memory_ids or named.skill_names):
        return set()
    found: set[str] = set()
    for row in _tool_results(tx, "messages", "metadata"):
        metadata = _decoded(row["metadata"])
        arguments = metadata.get(ARGUMENTS) if isinstance(metadata, dict) else None
        found |= _texts_of_record(_decoded(row["content"]), arguments, named)
    if "worker_messages" in tables:
        for row in _tool_results(tx, "worker_messages", "NULL"):
            found |= _texts_of_record(_decoded(row["content"]), None, named)
    return {text for text in found if text.strip()}


def _tool_results(tx: Transaction, table: str, metadata: str) -> Iterator[Any]:
    """The tools' results stored in *table*, ``_PAGE`` at a time, with *metadata*."""
    after = 0
    while rows := tx.fetch_all(
        f"SELECT id, content, {metadata} AS metadata FROM {table}"
        " WHERE role = 'tool' AND id > ? ORDER BY id LIMIT ?",
        (after, _PAGE),
    ):
        yield from rows
        after = rows[-1]["id"]


def call_unsaid(reply: str, unsay: Callable[[str], str]) -> str:
    """*reply* with what *unsay* makes of the call it ended with (what
    follows ``TOOL_CALL_START``); its words before the call are the
    conversation's and stay."""
    said, marker, call = reply.partition(TOOL_CALL_START)
    return said + marker + unsay(call)


def _texts_of_record(result: Any, arguments: Any, named: Named) -> set[str]:
    """The texts a tool's *result* (and its call's *arguments*) give *named* items."""
    result = result if isinstance(result, dict) else {}
    arguments = arguments if isinstance(arguments, dict) else {}
    texts: set[str] = set()
    task = result.get("task")
    if _number(arguments.get("id")) in named.task_ids or _numbered(task, named.task_ids):
        texts |= _strings(arguments, ("text", "routine")) | _strings(task, ("text", "routine"))
    texts |= _listed(
        result.get("tasks"), partial(_numbered, ids=named.task_ids), ("text", "routine")
    )
    if _numbered(result, named.memory_ids) and "memory" in result:
        texts |= _strings(result, ("memory",)) | _strings(arguments, ("content",))
    texts |= _listed(result.get("memories"), partial(_numbered, ids=named.memory_ids), ("memory",))
    if _named(result, named.skill_names) or _named(arguments, named.skill_names):
        texts |= _strings(result, _SKILL_KEYS) | _strings(arguments, _SKILL_KEYS)
    texts |= _listed(result.get("skills"), partial(_named, names=named.skill_names), _SKILL_KEYS)
    return texts


def _listed(entries: Any, picks: Callable[[Any], bool], keys: Sequence[str]) -> set[str]:
    """The *keys*' texts of the *entries* (a listing's) that *picks*."""
    listed: Iterable[Any] = entries if isinstance(entries, list) else ()
    return {text for entry in listed if picks(entry) for text in _strings(entry, keys)}


def _numbered(entry: Any, ids: frozenset[int]) -> bool:
    return isinstance(entry, dict) and _number(entry.get("id")) in ids


def _named(entry: Any, names: frozenset[str]) -> bool:
    return isinstance(entry, dict) and entry.get("name") in names


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _strings(data: Any, keys: Sequence[str]) -> set[str]:
    if not isinstance(data, dict):
        return set()
    return {value for key in keys if isinstance(value := data.get(key), str)}


def _decoded(value: str | None) -> Any:
    """A stored result or metadata as data; None for plain text."""
    if value is None:
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None
