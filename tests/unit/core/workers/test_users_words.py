"""A worker's writes rest on the user's words, as the chat model's do: those
of the message whose turn spawned it (a sub-worker's parent's), read when it
calls a tool, never copied; and a conversation the user deletes takes its
unfinished workers with it."""

from __future__ import annotations

import json

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.tools.memory import memory_tools
from desktop.core.chat.tools.sub_sessions import SPAWN_TOOL, SpawnCall
from desktop.core.chat.tools.toolbox import ToolContext
from desktop.core.db import ConversationStore, Database
from desktop.core.memory.service import MemoryService
from desktop.core.workers.service import CONVERSATION_DELETED
from tests.unit.core.workers.conftest import MakeWorld, World

SISTER = "The user's sister Ana lives in Porto."
BROTHER = "The user's brother Leo lives in Rome."


def _append(fact: str) -> str:
    return "<tool_call>" + json.dumps({"name": "append_memory", "arguments": {"content": fact}})


def _asked(world: World, database: Database, text: str) -> ToolContext:
    """The context of a chat turn answering the user's *text*."""
    message = ConversationStore(database).add_message(world.conversation_id, "user", text)
    return ToolContext(world.conversation_id, (message.id,), text)


def _kept(memories: MemoryService) -> list[str]:
    return sorted(m.content for m in memories.store.listed(limit=20))


def test_a_worker_keeps_what_the_users_message_said_and_nothing_it_made_up(
    make_world: MakeWorld, database: Database, prompts: PromptLibrary
) -> None:
    memories = MemoryService.over(database, None, prompts)
    world = make_world(tools=memory_tools(memories))
    context = _asked(world, database, "In the background, note that my sister Ana lives in Porto.")
    world.model.script("file it", _append(SISTER), _append(BROTHER), "Filed.")

    worker = world.workers.spawn(SpawnCall(objective="file it", tools=["append_memory"]), context)
    world.drain()

    assert world.get(worker).state == "completed"
    assert _kept(memories) == [SISTER]
    results = [m.content for m in world.store.messages(worker) if m.role == "tool"]
    assert '"result": "added"' in results[0]
    assert "does not say it" in results[1]


def test_a_worker_whose_message_is_gone_writes_nothing(
    make_world: MakeWorld, database: Database, prompts: PromptLibrary
) -> None:
    memories = MemoryService.over(database, None, prompts)
    world = make_world(tools=memory_tools(memories))
    context = _asked(world, database, "Later, note that my sister Ana lives in Porto.")
    world.model.script("file it", _append(SISTER), "Could not.")
    worker = world.workers.spawn(SpawnCall(objective="file it", tools=["append_memory"]), context)

    # The user edits the message away before the worker runs: its words go with it.
    ConversationStore(database).delete_messages_from(world.conversation_id, context.message_ids[0])
    world.drain()

    assert world.get(worker).asked_in is None
    assert _kept(memories) == []
    [result] = [m.content for m in world.store.messages(worker) if m.role == "tool"]
    assert "does not say it" in result


def test_a_sub_worker_rests_on_the_message_its_parent_was_asked_in(
    make_world: MakeWorld, database: Database
) -> None:
    world = make_world()
    context = _asked(world, database, "Plan my week in the background.")
    spawn = json.dumps({"name": SPAWN_TOOL, "arguments": {"objective": "look up the weather"}})
    world.model.script("plan", f"<tool_call>{spawn}", "Planned.")

    parent = world.workers.spawn(SpawnCall(objective="plan", mode="full"), context)
    world.drain()

    [child] = [w for w in world.store.list() if w.parent_id == parent]
    assert world.get(parent).asked_in == context.message_ids[0]
    assert child.asked_in == context.message_ids[0]
    [(_, report, _)] = [r for r in world.reports.made if r[2] == (child.id,)]
    assert report.startswith(f"[SYSTEM EVENT] Background worker #{parent} started a worker, which")


def test_deleting_a_conversation_cancels_its_unfinished_workers_and_reports_nothing(
    make_world: MakeWorld, database: Database
) -> None:
    world = make_world()
    done = world.spawn("done before")
    world.drain()
    waiting = world.spawn("later", not_before="2099-01-01T09:00")
    dependent = world.spawn("after it", depends_on=[waiting])
    reports_before = len(world.reports.made)

    cancelled = world.workers.cancel_conversation(world.conversation_id)

    assert cancelled == [waiting, dependent]
    assert world.states(done, waiting, dependent) == ["completed", "cancelled", "cancelled"]
    assert world.get(waiting).failure == CONVERSATION_DELETED
    assert world.workers.ready() == [] and world.workers.next_wake() is None
    assert len(world.reports.made) == reports_before
