"""The ``spawn_sub_session`` tool: hand an objective to a background worker.

The tool returns the new worker's id at once; the worker runs later, in the
background, and its result comes back to the conversation as a system
event.  The chat room only declares the call and what may take it
(``Spawner``); the workers room (``desktop.core.workers``) implements it,
so chat never imports the room above it.  A spawner refuses a call it cannot
take (an unknown profile, a time it cannot read, a cycle) with a
``ReverieError`` whose text the model reads, and nothing is spawned.

The schema the model writes under names what the spawner has: its tools
and profiles as choices (a field with none is left out) and ``not_before``
as an ISO-8601 pattern, so a local model's grammar cannot ask for a tool
there is none of ("list three fruits" once became ``tools: ["list"]``).
Only the schema says so: a call that ignores it (a server's model) is still
read as ``SpawnCall`` and refused in the spawner's words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from desktop.core.chat.tools.toolbox import RowId, Tool, ToolContext, ToolResult

SPAWN_TOOL = "spawn_sub_session"
SPAWNED = "spawned"
"""The ``result`` of a call that spawned a worker (with its ``worker_id``)."""
OBJECTIVE_CHARS = 2_000
PROFILE_CHARS = 40
TOOL_NAME_CHARS = 40
TIME_CHARS = 40
MAX_DEPENDENCIES = 20
MIN_TIMEOUT_S = 10
MAX_TIMEOUT_S = 24 * 3600
WorkerModeName = Literal["minimal", "full", "base_only", "none"]
ISO_TIME_PATTERN = (
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2})?)?(Z|[+-][0-9]{2}:[0-9]{2})?$"
)
"""What the grammar lets a model write as ``not_before``: a date, a time of
it, a zone (``[0-9]``: llama-cpp-python's converter spells ``\\d`` out as text)."""


class SpawnCall(BaseModel):
    """What the model asks of a worker; every field but the objective optional."""

    model_config = ConfigDict(extra="forbid")

    objective: str = Field(min_length=1, max_length=OBJECTIVE_CHARS)
    mode: WorkerModeName | None = None
    profile: str | None = Field(None, min_length=1, max_length=PROFILE_CHARS)
    tools: list[Annotated[str, Field(min_length=1, max_length=TOOL_NAME_CHARS)]] | None = Field(
        None, max_length=32
    )
    depends_on: list[RowId] | None = Field(None, max_length=MAX_DEPENDENCIES)
    depends_on_previous: bool = False
    not_before: str | None = Field(None, min_length=1, max_length=TIME_CHARS)
    timeout_s: int | None = Field(None, ge=MIN_TIMEOUT_S, le=MAX_TIMEOUT_S)


class Spawner(Protocol):
    """What starts a worker for a call made where *context* says; its id.

    Raises a ``ReverieError`` saying why it will not (read by the model)."""

    def spawn(self, call: SpawnCall, context: ToolContext) -> int: ...

    def dependency_ids(self, worker_id: int) -> Sequence[int]:
        """The ids of the workers *worker_id* waits on (those it was given
        that no worker of its conversation has are not among them)."""
        ...

    def offered(self) -> tuple[Sequence[str], Sequence[str]]:
        """The tools and the profiles a call may name."""
        ...


def sub_session_tools(spawner: Spawner) -> list[Tool[Any]]:
    tools, profiles = spawner.offered()

    def narrow(schema: dict[str, Any]) -> None:
        properties = schema["properties"]
        _choose(properties, "tools", tools, _some_of)
        _choose(properties, "profile", profiles, _one_of)
        properties["not_before"]["anyOf"][0]["pattern"] = ISO_TIME_PATTERN

    class OfferedCall(SpawnCall):
        model_config = ConfigDict(extra="forbid", json_schema_extra=narrow)

    def run(arguments: SpawnCall, context: ToolContext) -> ToolResult:
        worker_id = spawner.spawn(arguments, context)
        content: dict[str, Any] = {"result": SPAWNED, "worker_id": worker_id}
        summary = f"Background worker #{worker_id} started: {arguments.objective}"
        # Dropped by the spawner (a guess never leaves a worker waiting for
        # ever), but said: the model meant its worker to wait for them.
        kept = set(spawner.dependency_ids(worker_id))
        if dropped := [i for i in dict.fromkeys(arguments.depends_on or ()) if i not in kept]:
            content["not_waiting_on"] = dropped
            content["note"] = (
                "no worker of this conversation has these ids, so this worker "
                "started without waiting for them"
            )
            summary += f" (not waiting on {', '.join(f'#{i}' for i in dropped)}: no such worker)"
        return ToolResult(True, content, summary)

    return [Tool(SPAWN_TOOL, OfferedCall, run)]


def _choose(
    properties: dict[str, Any],
    name: str,
    choices: Sequence[str],
    kind: Callable[[list[str]], dict[str, Any]],
) -> None:
    """Property *name* as *kind* of *choices* (or null), or gone if there are none."""
    if choices:
        properties[name]["anyOf"][0] = kind(sorted(choices))
    else:
        del properties[name]


def _one_of(names: list[str]) -> dict[str, Any]:
    return {"enum": names}


def _some_of(names: list[str]) -> dict[str, Any]:
    return {"type": "array", "items": {"enum": names}, "maxItems": len(names)}
