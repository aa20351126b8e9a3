"""Round 27: a long chain of workers failed with reasons nested as deep as it.

Each worker failed because of the one it waited on said so with that
worker's whole reason inside its own ("worker #3 did not finish: worker #2
did not finish: ..."), so a chain's reasons grew with its length, all of
them together with its square: cancelling the first of 1,000 workers
waiting each on the one before wrote 15 MB of reasons and made the
reports of them (each read for secrets and made safe for the prompt) for
four minutes, and each report told the chat the whole chain.  A reason now
names the worker waited on and the first failure behind it: two workers at
most, however long the chain."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.chat.tools.sub_sessions import SpawnCall, sub_session_tools
from desktop.core.chat.tools.toolbox import ToolContext
from tests.unit.core.workers.conftest import MakeWorld

CHAIN = 40


def test_a_failure_down_a_long_chain_names_the_worker_waited_on_and_the_first_failure(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    world.model.script("step 0", "")  # an empty answer: the worker fails
    chain = [world.spawn("step 0")]
    for step in range(1, CHAIN):
        chain.append(world.spawn(f"step {step}", depends_on=[chain[-1]]))

    world.drain()

    assert world.states(*chain) == ["failed"] * CHAIN
    first, *waiting = chain
    reasons = [world.get(w).failure or "" for w in waiting]
    assert reasons[0] == f"worker #{first} did not finish: the model's answer was empty"
    for before, worker, reason in zip(chain[1:-1], waiting[1:], reasons[1:], strict=True):
        assert reason == f"worker #{before} did not finish: {reasons[0]}", worker
    [(_, report, _)] = world.reports.made  # one report of the chain (round 29)
    lines = report.splitlines()[2:]  # a line for each worker that waited
    assert len(lines) == CHAIN - 1
    assert max(len(line) for line in lines) < 2 * min(len(line) for line in lines)


def test_a_cancel_down_a_long_chain_says_which_worker_was_cancelled(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    chain = [world.spawn("step 0", not_before="2099-01-01T00:00")]
    for step in range(1, CHAIN):
        chain.append(world.spawn(f"step {step}", depends_on=[chain[-1]]))

    world.workers.cancel(chain[0])

    root = f"worker #{chain[0]} did not finish: it was cancelled"
    assert world.get(chain[1]).failure == root
    assert world.get(chain[-1]).failure == f"worker #{chain[-2]} did not finish: {root}"
    assert [ids for _, _, ids in world.reports.made] == [tuple(chain)]  # one report (round 29)


# -- a dependency no worker has ---------------------------------------------------
#
# A model that named a worker that does not exist (9999 for 99, or another
# conversation's) heard only "spawned": its worker started at once, without
# the result it was meant to wait for, and nothing said so.  The id is still
# dropped (a guess never leaves a worker waiting for ever), and the model
# now reads which ids its worker does not wait on.


def test_the_model_reads_which_named_workers_its_worker_does_not_wait_on(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    elsewhere = make_world().spawn("another conversation's")
    known = world.spawn("known")
    (spawn,) = sub_session_tools(world.workers)
    call = SpawnCall(objective="after", depends_on=[known, 9999, elsewhere])

    result = spawn.run(call, ToolContext(world.conversation_id))

    after = result.content["worker_id"]
    assert [w.id for w in world.store.dependencies(after)] == [known]
    assert result.content["not_waiting_on"] == [9999, elsewhere]
    assert "no worker of this conversation" in result.content["note"]
    assert "#9999" in result.summary


def test_a_spawn_waiting_on_every_worker_it_named_says_nothing_more(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    known = world.spawn("known")
    (spawn,) = sub_session_tools(world.workers)

    result = spawn.run(
        SpawnCall(objective="after", depends_on=[known]), ToolContext(world.conversation_id)
    )

    assert set(result.content) == {"result", "worker_id"}


# -- the cycle check -------------------------------------------------------------
#
# Each spawn read every dependency edge ever stored to look for a cycle, 16 s
# over 1,000 spawns; a worker spawned by a conversation has no edge leading
# back to it, so it closes none (a worker's own spawn still checks: see
# test_dag_runs' cycle through a spawning worker).


def test_a_conversations_spawn_reads_no_edges(
    make_world: MakeWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = make_world()
    first = world.spawn("first")
    read: list[object] = []
    edges = world.store.edges

    def counted(*args: Any) -> list[tuple[int, int]]:
        read.append(args)
        return edges(*args)

    monkeypatch.setattr(world.store, "edges", counted)

    second = world.spawn("second", depends_on=[first])

    assert read == []
    assert [w.id for w in world.store.dependencies(second)] == [first]
