"""Tools the model can call: declared once, offered under a JSON schema,
checked again and run so that no call can crash a turn.

A model calls a tool by writing ``<tool_call>`` and one JSON object
``{"name": ..., "arguments": {...}}`` (the Hermes format many GGUF chat
models are trained on).  Everything after the marker is generated under a
schema admitting only the tools offered and their argument shapes, so even a
small model writes a well-formed call; the call is still validated here, and
an unknown tool, wrong arguments or a tool that fails come back to the model
as an error message it can read, with nothing changed.  What each tool is
for is prompt text, in ``data/TOOLS.txt``.

The call is read as strictly as every structured answer
(``models.structured``): a key named twice is refused, not read as its last
(``"arguments"`` twice would run the second, the one a reader misses), and
so are NaN and Infinity, which no JSON holds (nor the stored call's
metadata).  An id is at most the largest integer SQLite stores (``RowId``).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, TypeVar

from pydantic import BaseModel, Field, ValidationError, WithJsonSchema

from desktop.core.base.errors import ReverieError, said_to_a_model
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.text import cut
from desktop.core.db import ConversationStore, Message
from desktop.core.db.message_kinds import visible_text
from desktop.core.db.tasks import Task
from desktop.core.memory.service import Remembered
from models.errors import StructuredOutputError
from models.structured import parse_structured

log = logging.getLogger(__name__)

TOOLS_TEMPLATE = "TOOLS.txt"
_JSON_TYPES = {
    "string": "text",
    "integer": "whole number",
    "number": "number",
    "boolean": "true/false",
}

_NOT_JSON = "The tool call is not valid JSON."
_NOT_AN_OBJECT = "A tool call is one JSON object."

A = TypeVar("A", bound=BaseModel)

ROW_ID_MAX = 2**63 - 1
"""The largest integer SQLite stores: a larger id names no row, and
asking for one raises ``OverflowError`` instead of finding nothing."""
RowId = Annotated[
    int,
    Field(ge=1, le=ROW_ID_MAX),
    # Checked here, not asked of the grammar: older llama.cpp servers read a
    # maximum as a 32-bit int (this one as -1, which no id satisfies), and
    # llama-cpp-python's converter does not read it at all.
    WithJsonSchema({"type": "integer", "minimum": 1}),
]
"""The id of a stored row, as a tool's arguments take it."""


@dataclass(frozen=True)
class ToolContext:
    """Where a call is made: the conversation and the user's message it answers."""

    conversation_id: int
    message_ids: tuple[int, ...] = ()
    said: str = ""
    """What the user said in that message: the words a fact the model keeps
    about them, or a change to their tasks, must rest on."""
    asked: str = ""
    """What Reverie said just before it: the question a "yes" answers,
    which may say what the user agreed to, never stand for it."""
    tasks_before: dict[int, Task] = field(default_factory=dict, compare=False, hash=False)
    """Each task as the turn's first call to it found it: a later call is
    judged by it, not by what an earlier call of the same turn made of it
    (renamed to the user's words, then ended)."""


def answering(conversations: ConversationStore, message: Message) -> ToolContext:
    """Where calls made in answer to the user's *message* are made: its
    words, and what Reverie said just before it."""
    before = conversations.last_messages(message.conversation_id, before=message.id)
    prompted = [visible_text(m) for m in before if m.role == "assistant"]
    return ToolContext(
        message.conversation_id, (message.id,), visible_text(message), "\n".join(prompted)
    )


@dataclass(frozen=True)
class ToolResult:
    """What a tool did: ``content`` goes back to the model, ``summary`` to the user."""

    ok: bool
    content: dict[str, Any]
    summary: str
    remembered: Remembered | None = None
    """A memory the call stored, for "Memory updated" with Undo."""

    @classmethod
    def error(cls, message: str) -> ToolResult:
        return cls(False, {"error": message}, message)


class ToolFailed(ReverieError):
    """A tool could not do what it was asked; ``str()`` is for the model and the user."""


class WrittenCall(BaseModel):
    """A call as the model wrote it, read for its JSON alone: what its name
    and arguments must be is answered after, in words the model can act on."""

    name: Any = ""
    arguments: Any = Field(default_factory=dict)


@dataclass(frozen=True)
class Tool(Generic[A]):
    name: str
    arguments: type[A]
    """A pydantic model: the call's arguments, checked before ``run``."""
    run: Callable[[A, ToolContext], ToolResult]
    changes_memory: bool = False
    """Writes what Reverie remembers: never offered off the record."""


@dataclass(frozen=True)
class ToolCall:
    """One call as the model wrote it, and what came of it."""

    name: str
    arguments: dict[str, Any] = field(hash=False)
    result: ToolResult = field(hash=False)


class Toolbox:
    """The tools a chat turn may offer, by name."""

    def __init__(self, tools: Iterable[Tool[Any]], prompts: PromptLibrary) -> None:
        self._tools = {tool.name: tool for tool in tools}
        self._prompts = prompts

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self._tools)

    def offered(self, *, off_record: bool) -> frozenset[str]:
        """The tools for a conversation: none that learn, off the record."""
        return frozenset(
            name for name, tool in self._tools.items() if not (off_record and tool.changes_memory)
        )

    def schema(self, names: Iterable[str]) -> dict[str, Any]:
        """The JSON schema of one call to any of *names*."""
        return {"anyOf": [_call_schema(self._tools[name]) for name in sorted(names)]}

    def describe(self, names: Iterable[str]) -> str:
        """The tools as the prompt lists them: signature, then what each is for."""
        lines = []
        for name in sorted(names):
            tool = self._tools[name]
            purpose = self._prompts.section(TOOLS_TEMPLATE, name)
            lines.append(f"- {_signature(tool)}: {purpose}".rstrip(": "))
        return "\n".join(lines)

    def call(self, text: str, context: ToolContext, offered: Iterable[str]) -> ToolCall:
        """Run the call written in *text* (the JSON after ``<tool_call>``).

        Never raises for what the model wrote or what the tool met: the
        result then says what was wrong, for the model to read.
        """
        try:
            written = parse_structured(WrittenCall, text)
        except StructuredOutputError:
            return ToolCall("", {}, ToolResult.error(_unreadable(text)))
        if not _finite(written.name) or not _finite(written.arguments):
            return ToolCall("", {}, ToolResult.error(_NOT_JSON))
        name = str(written.name)
        arguments = written.arguments
        if not isinstance(arguments, dict):
            return ToolCall(name, {}, ToolResult.error("The arguments are one JSON object."))
        tool = self._tools.get(name)
        if tool is None or name not in set(offered):
            # Named as written, cut: a model ignoring the grammar (a server's)
            # may write a megabyte of name, which every later prompt would carry.
            known = ", ".join(sorted(offered)) or "none"
            name = _cut(name)
            return ToolCall(
                name, {}, ToolResult.error(f"There is no tool {name!r}; tools: {known}.")
            )
        try:
            # Strict: true is not the id 1, nor "3" the priority 3; the model hears the mistake.
            checked = tool.arguments.model_validate(arguments, strict=True)
        except ValidationError as error:
            # Not kept: what it wrote may be anything of any size, and is wrong.
            return ToolCall(name, {}, ToolResult.error(_argument_problem(name, error)))
        try:
            result = tool.run(checked, context)
        except ReverieError as error:  # refused, or the storage failed: the model hears why
            # Its kind only: the message may quote the user's words, which the
            # log would keep after they are erased.
            log.info("tool %s failed: %s", name, type(error).__name__)
            # The model hears it without the user's paths, the user with them.
            said = f"{name} failed: {said_to_a_model(error)}"
            result = ToolResult(False, {"error": said}, f"{name} failed: {error}")
        return ToolCall(name, arguments, result)


def _unreadable(text: str) -> str:
    """Why *text* is no ``WrittenCall``: not JSON (a key named twice
    included: which of the two was meant?), or JSON but no object."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested past Python's stack
        return _NOT_JSON
    return _NOT_JSON if isinstance(value, dict) else _NOT_AN_OBJECT


def _finite(value: object) -> bool:
    """Whether every number in *value* (parsed JSON) is one JSON can hold:
    not NaN nor an infinity (``1e999`` reads as one)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(item) for item in value.values())
    if isinstance(value, list):
        return all(_finite(item) for item in value)
    return True


def _call_schema(tool: Tool[Any]) -> dict[str, Any]:
    arguments = tool.arguments.model_json_schema()
    defs = arguments.pop("$defs", None)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"name": {"const": tool.name}, "arguments": arguments},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }
    if defs:
        schema["$defs"] = defs
    return schema


def _signature(tool: Tool[Any]) -> str:
    """``name(argument: kind, optional?: kind)``, read off the arguments' schema."""
    schema = tool.arguments.model_json_schema()
    required = set(schema.get("required", []))
    parts = []
    for argument, spec in schema.get("properties", {}).items():
        mark = "" if argument in required else "?"
        parts.append(f"{argument}{mark}: {_kind(spec)}")
    return f"{tool.name}({', '.join(parts)})"


def _kind(spec: dict[str, Any]) -> str:
    if "enum" in spec:
        return " | ".join(str(value) for value in spec["enum"])
    if "anyOf" in spec:
        kinds = [_kind(option) for option in spec["anyOf"] if option.get("type") != "null"]
        return " | ".join(kinds)
    if spec.get("type") == "array":
        return f"list of {_kind(spec.get('items', {}))}"
    return _JSON_TYPES.get(str(spec.get("type")), str(spec.get("type", "value")))


def _argument_problem(name: str, error: ValidationError) -> str:
    problems: Sequence[str] = [
        f"{_cut('.'.join(str(part) for part in issue['loc'])) or 'arguments'}: {issue['msg']}"
        for issue in error.errors()[:3]
    ]
    return f"Wrong arguments for {name}: {'; '.join(problems)}."


_QUOTED_CHARS = 60
"""The most of a name the model wrote that a refusal quotes back to it."""


def _cut(written: str) -> str:
    """*written* as a refusal quotes it: at most ``_QUOTED_CHARS`` characters."""
    return cut(written, _QUOTED_CHARS)
