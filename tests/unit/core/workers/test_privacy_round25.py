"""Round 25: a memory erased for good, quoted by a worker's tool.

``search_memory`` lists the memories it finds whole, and a worker keeps
its tools' results in its transcript as the chat keeps them in the
conversation.  Erasing a memory took its copy out of the chat's tool
results, not out of the workers': "Delete now" left the memory word for
word in the database file, in the Work window's transcript, and in the
prompt of the worker's next step."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.base.paths import AppPaths
from desktop.core.chat.tools.memory import memory_tools
from desktop.core.db import Database
from desktop.core.db.message_kinds import TOOL_CALL_START
from desktop.core.db.purge import ERASED
from desktop.core.memory.service import MemoryService
from tests.erasers import eraser_for
from tests.unit.core.workers.conftest import MakeWorld

MARKER = "velvetroot"


def test_a_memory_erased_for_good_goes_from_a_workers_tool_results(
    make_world: MakeWorld, memories: MemoryService, database: Database, user_dirs: AppPaths
) -> None:
    memory = memories.remember(
        f"The {MARKER} bike lock hangs under the desk lamp",
        source_kind="user_explicit",
        actor="user",
    ).memory
    world = make_world(tools=memory_tools(memories))
    call = {"name": "search_memory", "arguments": {"query": "bike lock"}}
    objective = "find where the bike lock is"
    world.model.script(objective, f"Let me look. {TOOL_CALL_START}{json.dumps(call)}", "Found it.")
    worker_id = world.spawn(objective, tools=["search_memory"])
    world.drain()
    [result] = [m for m in world.store.messages(worker_id) if m.role == "tool"]
    assert MARKER in result.content

    eraser_for(database, user_dirs).erase_memories([memory.id])

    [result] = [m for m in world.store.messages(worker_id) if m.role == "tool"]
    assert json.loads(result.content) == {"memories": [{"id": memory.id, "memory": ERASED}]}
    assert MARKER not in "\n".join(m.content for m in world.workers.prompt(worker_id))
    for path in (database.path, Path(f"{database.path}-wal")):
        assert not path.exists() or MARKER.encode() not in path.read_bytes(), path
