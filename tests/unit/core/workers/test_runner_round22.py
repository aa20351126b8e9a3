"""Round 22: a spawn cut off from its result by a stop (a kill, a crash).

The call's result was lost, so on resuming the worker read "whether it was
done is not known" and, having no way to look, spawned the same worker
again: two children did the same work and both were reported."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop.core.privacy.redaction import Redactor
from tests.unit.core.workers.conftest import MakeWorld


class Killed(BaseException):
    """The process dying at this point."""


class DiesStoringASpawnsResult(Redactor):
    """A real redactor, but the process dies while it redacts the result of
    a spawn (after the spawn was made, before its result was stored)."""

    dying = True

    def within(self, value: Any) -> Any:
        if self.dying and isinstance(value, dict) and value.get("result") == "spawned":
            raise Killed
        return super().within(value)


def spawn_call(objective: str) -> str:
    arguments = {"objective": objective}
    return "<tool_call>" + json.dumps({"name": "spawn_sub_session", "arguments": arguments})


def test_a_spawn_made_before_a_stop_is_read_back_as_made_on_resuming(
    make_world: MakeWorld,
) -> None:
    redactor = DiesStoringASpawnsResult()
    world = make_world(redactor=redactor)
    world.model.script("lead", spawn_call("part"), "Handed off.")
    lead = world.spawn("lead", mode="full")
    with pytest.raises(Killed):
        world.workers.run_one(lead, lambda: False)
    [part] = world.store.children(lead)

    redactor.dying = False
    world.workers.runner_id = "the next process"  # it resumes what the last one left
    world.drain()

    results = [json.loads(m.content) for m in world.store.messages(lead) if m.role == "tool"]
    assert results == [{"result": "spawned", "worker_id": part.id}]
    assert world.states(lead, part.id) == ["completed", "completed"]
    assert [w.id for w in world.store.children(lead)] == [part.id]
