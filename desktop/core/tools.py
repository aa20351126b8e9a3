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
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from desktop.core.errors import ReverieError
from desktop.core.memory_service import Remembered
from desktop.core.prompts import PromptLibrary

log = logging.getLogger(__name__)

TOOL_CALL_START = "<tool_call>"
TOOLS_TEMPLATE = "TOOLS.txt"
_JSON_TYPES = {
    "string": "text",
    "integer": "whole number",
    "number": "number",
    "boolean": "true/false",
}

A = TypeVar("A", bound=BaseModel)


@dataclass(frozen=True)
class ToolContext:
    """Where a call is made: the conversation and the user's message it answers."""

    conversation_id: int
    message_ids: tuple[int, ...] = ()


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
            raw = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: nested past Python's stack
            return ToolCall("", {}, ToolResult.error("The tool call is not valid JSON."))
        if not isinstance(raw, dict):
            return ToolCall("", {}, ToolResult.error("A tool call is one JSON object."))
        name = str(raw.get("name", ""))
        arguments = raw.get("arguments", {})
        if not isinstance(arguments, dict):
            return ToolCall(name, {}, ToolResult.error("The arguments are one JSON object."))
        tool = self._tools.get(name)
        if tool is None or name not in set(offered):
            known = ", ".join(sorted(offered)) or "none"
            return ToolCall(
                name, arguments, ToolResult.error(f"There is no tool {name!r}; tools: {known}.")
            )
        try:
            # Strict: true is not the id 1, nor "3" the priority 3; the model hears the mistake.
            checked = tool.arguments.model_validate(arguments, strict=True)
        except ValidationError as error:
            return ToolCall(name, arguments, ToolResult.error(_argument_problem(name, error)))
        try:
            result = tool.run(checked, context)
        except ReverieError as error:  # refused, or the storage failed: the model hears why
            # Its kind only: the message may quote the user's words, which the
            # log would keep after they are erased.
            log.info("tool %s failed: %s", name, type(error).__name__)
            result = ToolResult.error(f"{name} failed: {error}")
        return ToolCall(name, arguments, result)


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
        f"{'.'.join(str(part) for part in issue['loc']) or 'arguments'}: {issue['msg']}"
        for issue in error.errors()[:3]
    ]
    return f"Wrong arguments for {name}: {'; '.join(problems)}."
