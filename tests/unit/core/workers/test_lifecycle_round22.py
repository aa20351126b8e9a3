"""Round 22: a report that could not be made is not lost."""

from __future__ import annotations

import json

import pytest

from tests.unit.core.workers.conftest import MakeWorld, ReportFailed


def spawn_call(objective: str) -> str:
    arguments = {"objective": objective}
    return "<tool_call>" + json.dumps({"name": "spawn_sub_session", "arguments": arguments})


def test_a_report_that_raised_is_made_once_at_the_next_start(make_world: MakeWorld) -> None:
    # Once it was marked made before it was made: a report that raised (or a
    # kill between the two) was never made, not even by recover().
    world = make_world()
    worker = world.spawn("fetch")
    world.reports.failing = 1

    with pytest.raises(ReportFailed):
        world.workers.run_one(worker, lambda: False)
    between = list(world.reports.made)
    world.workers.recover()
    world.workers.recover()

    assert world.states(worker) == ["completed"]
    assert between == []
    assert [ids for _, _, ids in world.reports.made] == [(worker,)]


def test_a_childrens_report_that_raised_is_made_once_at_the_next_start(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    world.model.script("lead", spawn_call("part 1"), spawn_call("part 2"), "Handed off.")
    lead = world.spawn("lead", mode="full")
    world.workers.run_one(lead, lambda: False)
    first, second = (c.id for c in world.store.children(lead))
    world.workers.run_one(first, lambda: False)
    world.reports.failing = 1

    with pytest.raises(ReportFailed):
        world.workers.run_one(second, lambda: False)
    world.workers.recover()
    world.workers.recover()

    assert [ids for _, _, ids in world.reports.made] == [(lead,), (first, second)]
