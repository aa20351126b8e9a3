"""Round 23: a run that raised left its worker running.

A tool with a bug (or anything else raising in a run) ended the runner's
loop with the worker still marked running under this process: the Work
window showed it running until the next start, and every worker waiting
on it waited that long.  A full disk did the same to a worker that could
simply go on once there is room."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from desktop.core.chat.tools.toolbox import Tool, ToolContext, ToolResult
from desktop.core.db import Database
from desktop.core.db.errors import DiskFull
from desktop.core.workers.service import RUN_FAILED
from tests.unit.core.workers.conftest import MakeWorld
from tests.unit.core.workers.test_lifecycle import call


class Nothing(BaseModel):
    model_config = ConfigDict(extra="forbid")


def broken_tool() -> Tool[Any]:
    def run(arguments: Nothing, context: ToolContext) -> ToolResult:
        raise KeyError("a bug in the tool")

    return Tool("look", Nothing, run)


def test_a_worker_whose_tool_raises_fails_saying_so_and_its_dependents_move_on(
    make_world: MakeWorld,
) -> None:
    world = make_world(tools=[broken_tool()])
    world.model.script("fetch", call("look"), "never reached")
    world.model.script("aside", "Done aside.")
    fetch = world.spawn("fetch", tools=["look"])
    summary = world.spawn("summarise", depends_on=[fetch])
    aside = world.spawn("aside")

    ending = world.workers.run_one(fetch, lambda: False)
    world.drain()

    assert ending is not None and (ending.kind, ending.text) == ("failed", RUN_FAILED)
    assert world.get(fetch).failure == RUN_FAILED
    assert world.states(fetch, summary, aside) == ["failed", "failed", "completed"]
    assert [ids for _, _, ids in world.reports.made] == [(fetch, summary), (aside,)]


def fill_the_disk(database: Database) -> None:
    """No room left for one more row (until ``max_page_count`` is raised)."""
    database.set_pragma("max_page_count", int(database.pragma("page_count")))
    with database.transaction() as tx:
        tx.execute("CREATE TABLE filler (data BLOB)")
    for size in (4_000, 400, 40, 1):  # smaller and smaller, into every gap
        with pytest.raises(DiskFull):
            for _ in range(10_000):
                with database.transaction() as tx:
                    tx.execute("INSERT INTO filler VALUES (zeroblob(?))", (size,))
    # A free page no row fits in (the filler's next row needs two: a leaf
    # split) still holds a small index write: a new table's root takes it.
    with pytest.raises(DiskFull):
        for n in range(100):
            with database.transaction() as tx:
                tx.execute(f"CREATE TABLE filler_{n} (data BLOB)")


def test_a_worker_stopped_by_a_full_disk_goes_on_once_there_is_room(
    make_world: MakeWorld, database: Database
) -> None:
    world = make_world()
    answer = " ".join(f"Finding {n} is worth keeping." for n in range(100))  # a page or so
    world.model.script("survey", answer, answer)
    survey = world.spawn("survey")
    for _ in range(3):  # the transcripts' pages full too, not only the free ones
        world.store.add_message(world.spawn("padding"), "user", "padding " * 500)
    fill_the_disk(database)

    with pytest.raises(DiskFull):
        world.workers.run_one(survey, lambda: False)
    assert world.states(survey) == ["running"]
    assert survey in world.workers.ready()  # not held by this process until it restarts

    database.set_pragma("max_page_count", 2**30)
    world.model.script("padding", *["Padded."] * 3)
    world.drain()
    assert world.states(survey) == ["completed"]
    assert world.get(survey).result == answer
