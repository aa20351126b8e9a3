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
    longest = max(len(text) for _, text, _ in world.reports.made)
    assert longest < 2 * min(len(text) for _, text, _ in world.reports.made)


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
    assert len(world.reports.made) == CHAIN
