"""What a worker was given and said follows the user's privacy as every
message does: a value named a secret later goes from its objective, result
and transcript (and the file's WAL); a conversation erased for good takes
its workers with it, from the live file and from the snapshots; a worker
spawned off the record has no tool that writes memories."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.base.paths import AppPaths
from desktop.core.chat.service import ChatService
from desktop.core.chat.tools.memory import memory_tools
from desktop.core.chat.tools.sub_sessions import SpawnCall
from desktop.core.chat.tools.toolbox import ToolContext
from desktop.core.db import Database
from desktop.core.db.workers import WorkerStore
from desktop.core.dreaming.snapshots import take_snapshot
from desktop.core.memory.service import MemoryService
from tests.erasers import eraser_for
from tests.unit.core.workers.conftest import MakeWorld

VALUE = "Kd8Rv31Hm"
MARKER = "Quokka-tea-7731"


def _texts(database: Database) -> str:
    """Every text the workers' tables hold."""
    rows = database.fetch_all(
        "SELECT objective, coalesce(result, ''), coalesce(failure, '') FROM workers"
        " UNION ALL SELECT content, '', '' FROM worker_messages"
    )
    return "\n".join(" ".join(map(str, row)) for row in rows)


def _files(database: Database, *more: Path) -> list[str]:
    paths = [database.path, Path(f"{database.path}-wal"), *more]
    return [str(p) for p in paths if p.exists() and VALUE.encode() in p.read_bytes()]


def test_a_value_named_a_secret_later_goes_from_every_workers_text(
    chat: ChatService, database: Database, make_world: MakeWorld
) -> None:
    world = make_world()
    conversation = chat.new_conversation()
    call = SpawnCall(objective=f"log into the router with {VALUE} and list the devices")
    worker_id = world.workers.spawn(call, ToolContext(conversation.id))
    store = WorkerStore(database)
    assert store.claim(worker_id, world.workers.runner_id, world.now()) is not None
    store.add_message(worker_id, "tool", json.dumps({"typed": f'"{VALUE}"'}))
    with store.transaction() as tx:
        store.finish(worker_id, "completed", f"logged in with {VALUE}; 4 devices", tx)
    assert VALUE in _texts(database)  # nothing named it yet

    chat.send(conversation.id, f"the router password is {VALUE} by the way")

    texts = _texts(database)
    assert VALUE not in texts and "[redacted password]" in texts
    worker = store.get(worker_id)
    assert worker is not None and worker.result == "logged in with [redacted password]; 4 devices"
    [message] = store.messages(worker_id)
    assert json.loads(message.content) == {"typed": '"[redacted password]"'}
    assert _files(database) == []


def test_a_conversation_erased_for_good_takes_its_workers_from_the_file_and_the_copies(
    make_world: MakeWorld, database: Database, user_dirs: AppPaths
) -> None:
    world = make_world()
    first = world.spawn(f"research {MARKER}")
    world.spawn(f"write about {MARKER}", depends_on=[first])
    world.drain()
    store = WorkerStore(database)
    assert MARKER in _texts(database) and store.messages(first)
    copy = take_snapshot(
        database, user_dirs.snapshots_dir, "20261129T010000Z", skills_dir=None, keep=3
    )
    assert MARKER.encode() in copy.read_bytes()

    eraser_for(database, user_dirs).erase_conversations([world.conversation_id])

    assert store.list() == [] and _texts(database) == ""
    assert database.fetch_value("SELECT count(*) FROM worker_dependencies") == 0
    for path in (database.path, Path(f"{database.path}-wal"), copy):
        assert not path.exists() or MARKER.encode() not in path.read_bytes(), path


def test_a_worker_spawned_off_the_record_has_no_tool_that_writes_memories(
    make_world: MakeWorld, memories: MemoryService
) -> None:
    tools = memory_tools(memories)
    writing = sorted(t.name for t in tools if t.changes_memory)
    world = make_world(tools=tools, off_record=True)
    worker_id = world.spawn("remember that the user likes sencha", tools=writing)
    worker = world.get(worker_id)
    assert worker.off_record
    prompt = world.workers.prompt(worker_id)
    offered = "\n".join(m.content for m in prompt)
    assert writing and all(name not in offered for name in writing)
