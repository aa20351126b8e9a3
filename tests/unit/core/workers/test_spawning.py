"""What a worker is made of: profiles, tools, modes and their system
prompts, off the record; the tool the chat model calls to spawn one; and
how soon a dependent is ready once its last dependency completed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import WorkerProfile, WorkerSettings
from desktop.core.chat.tools.sub_sessions import SPAWN_TOOL, sub_session_tools
from desktop.core.chat.tools.toolbox import Tool, Toolbox, ToolContext, ToolResult
from desktop.core.workers.dag import SpawnRefused
from models.gguf_file import open_llama
from models.sampling import grammar_for_schema
from tests.grammar import grammar_accepts
from tests.unit.core.workers.conftest import MakeWorld


class Query(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str


def _tool(name: str, *, changes_memory: bool = False) -> Tool[Any]:
    def run(arguments: Query, context: ToolContext) -> ToolResult:
        return ToolResult(True, {"result": name}, name)

    return Tool(name, Query, run, changes_memory=changes_memory)


TOOLS = [
    _tool("search_memory"),
    _tool("read_skill"),
    _tool("append_memory", changes_memory=True),
    _tool("task", changes_memory=True),
]


def test_a_profile_gives_its_mode_and_tools_and_a_call_may_name_its_own(
    make_world: MakeWorld,
) -> None:
    world = make_world(tools=TOOLS)
    researcher = world.spawn("look up", profile="researcher")
    own = world.spawn("look up", profile="researcher", tools=["task"], mode="base_only")

    assert (world.get(researcher).mode, world.get(researcher).tools) == (
        "minimal",
        ("search_memory", "read_skill"),
    )
    assert (world.get(own).mode, world.get(own).tools) == ("base_only", ("task",))


def test_an_unknown_profile_or_tool_is_refused_naming_the_known_ones(
    make_world: MakeWorld,
) -> None:
    world = make_world(
        tools=TOOLS,
        settings=WorkerSettings(
            quiet_seconds=0, profiles={"reader": WorkerProfile(tools=("read_skill",))}
        ),
    )

    with pytest.raises(SpawnRefused, match="no worker profile 'researcher'; profiles: reader"):
        world.spawn("x", profile="researcher")
    with pytest.raises(SpawnRefused, match="no tool 'browse'; tools: append_memory, read_skill"):
        world.spawn("x", tools=["browse"])

    assert world.store.list() == []


def test_the_schema_a_model_spawns_under_names_only_the_tools_and_profiles_there_are(
    make_world: MakeWorld, prompts: PromptLibrary, smollm2_path: Path
) -> None:
    profiles = {
        "reader": WorkerProfile(tools=("read_skill",)),
        "browser": WorkerProfile(tools=("browse",)),  # a tool there is none of: never offered
    }
    settings = WorkerSettings(quiet_seconds=0, profiles=profiles)
    offering = Toolbox(
        sub_session_tools(make_world(tools=TOOLS[:2], settings=settings).workers), prompts
    )
    bare = Toolbox(sub_session_tools(make_world(settings=settings).workers), prompts)
    spawn = frozenset({SPAWN_TOOL})
    grammar = grammar_for_schema(offering.schema(spawn))
    start = '{"name": "spawn_sub_session", "arguments": {"objective": "x", '
    llm = open_llama(smollm2_path, n_ctx=256)
    try:
        allowed = {
            written: grammar_accepts(llm, grammar, start + written)
            for written in (
                '"tools": ["read_skill", "search_memory"]}}',
                '"tools": ["list',
                '"profile": "reader"}}',
                '"profile": "browser',
                '"not_before": "2026-12-01T20:00"}}',
                '"not_before": "2026-12-01 20:00:30+01:00"}}',
                '"not_before": "2026-12-01"}}',
                '"not_before": "soon',
                '"not_before": "20:00',
            )
        }
        bare_grammar = grammar_for_schema(bare.schema(spawn))
        bare_allows = [grammar_accepts(llm, bare_grammar, start + key) for key in ('"to', '"p')]
    finally:
        llm.close()

    assert allowed == {
        '"tools": ["read_skill", "search_memory"]}}': True,
        '"tools": ["list': False,
        '"profile": "reader"}}': True,
        '"profile": "browser': False,
        '"not_before": "2026-12-01T20:00"}}': True,
        '"not_before": "2026-12-01 20:00:30+01:00"}}': True,
        '"not_before": "2026-12-01"}}': True,
        '"not_before": "soon': False,
        '"not_before": "20:00': False,
    }
    assert bare_allows == [
        False,
        False,
    ]  # no tools, no profile made of them: neither field is offered
    assert "tools?: list of read_skill | search_memory" in offering.describe(spawn)
    assert "profile?: reader," in offering.describe(spawn)
    assert "tools?" not in bare.describe(spawn) and "profile?" not in bare.describe(spawn)


def test_each_mode_has_its_system_prompt_with_the_sections_its_tools_allow(
    make_world: MakeWorld, prompts: PromptLibrary
) -> None:
    world = make_world(tools=TOOLS)
    ids = {
        "minimal": world.spawn("minimal", tools=["search_memory"]),
        "none": world.spawn("none", mode="none"),
        "base_bare": world.spawn("base_bare", mode="base_only"),
        "base_task": world.spawn("base_task", mode="base_only", tools=["task"]),
        "full": world.spawn("full", mode="full"),
    }

    world.drain()

    first = {name: world.model.prompts[name][0] for name in ids}
    systems = {name: p[0].content for name, p in first.items() if p[0].role == "system"}
    assert set(systems) == {"minimal", "base_bare", "base_task", "full"}
    assert systems["minimal"].startswith("You are a background worker of Reverie")
    assert "search_memory(query: text)" in systems["minimal"]
    routing = "Keep what you learn in the right place"
    assert routing in systems["base_task"] and routing not in systems["base_bare"]
    assert systems["base_bare"] == prompts.base_prompt(frozenset())
    assert f"worker #{ids['full']}" in systems["full"]
    assert "Skills: none yet" in systems["full"] and "spawn_sub_session(" in systems["full"]
    assert first["none"][0].role == "user"


def test_off_the_record_a_worker_is_offered_no_tool_that_learns(make_world: MakeWorld) -> None:
    world = make_world(tools=TOOLS, off_record=True)
    worker = world.spawn("file it", tools=["search_memory", "append_memory", "task"])

    world.drain()

    system = world.model.prompts["file it"][0][0].content
    assert world.get(worker).off_record
    assert "search_memory(" in system
    assert "append_memory(" not in system and "task(" not in system


def test_the_chat_model_spawns_through_the_tool_and_reads_the_id_or_the_refusal(
    make_world: MakeWorld, prompts: PromptLibrary
) -> None:
    world = make_world()
    toolbox = Toolbox(sub_session_tools(world.workers), prompts)
    context = ToolContext(world.conversation_id)

    spawned = toolbox.call(
        '{"name": "spawn_sub_session", "arguments": {"objective": "find a dentist"}}',
        context,
        {SPAWN_TOOL},
    )
    refused = toolbox.call(
        '{"name": "spawn_sub_session", "arguments": {"objective": "x", "not_before": "soon"}}',
        context,
        {SPAWN_TOOL},
    )
    too_short = toolbox.call(
        '{"name": "spawn_sub_session", "arguments": {"objective": "x", "timeout_s": 1}}',
        context,
        {SPAWN_TOOL},
    )

    [worker] = world.store.list()
    assert spawned.result.ok and spawned.result.content["worker_id"] == worker.id
    assert worker.objective == "find a dentist"
    assert not refused.result.ok and "not a time Reverie can read" in refused.result.summary
    assert not too_short.result.ok and "timeout_s" in too_short.result.summary


def test_a_dependent_is_ready_when_the_host_is_told_its_dependency_ended(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    first = world.spawn("first")
    second = world.spawn("second", depends_on=[first])
    world.changes.clear()

    world.workers.run_one(first, lambda: False)

    assert world.changes and world.changes[0] == [second]


def test_a_secret_in_an_objective_is_taken_out_before_it_is_stored(
    make_world: MakeWorld,
) -> None:
    world = make_world()

    worker = world.spawn("Log in to the router, the router password is Zq8!said1")
    world.drain()

    stored = world.get(worker).objective
    assert "Zq8!said1" not in stored and stored.startswith("Log in to the router")
    assert "Zq8!said1" not in world.model.prompts[stored][0][-1].content


def test_each_step_is_told_while_the_worker_runs(make_world: MakeWorld) -> None:
    world = make_world(tools=TOOLS)
    call = '<tool_call>{"name": "search_memory", "arguments": {"query": "tea"}}'
    world.model.script("look up", call, "Found it.")
    seen: list[tuple[str, int]] = []
    worker = world.spawn("look up", tools=["search_memory"])

    def stepped() -> None:
        seen.append((world.get(worker).state, len(world.store.messages(worker))))

    world.workers.when_stepped(stepped)
    world.drain()

    # opening, call, its result; then the answer: each told while it still runs
    assert seen == [("running", 3), ("running", 4)]
    assert world.get(worker).state == "completed"
