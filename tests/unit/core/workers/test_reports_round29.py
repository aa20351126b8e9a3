"""Round 29: cancelling the first of a chain of workers (each waiting on
the one before) wrote a report into the chat for every worker of the
chain: the cancelled one, then each worker behind it that failed because
of it, 300 reports for a chain of 300, and as many messages the model
reads on its next turn.  Workers of a conversation that end at once (a
cancel, or a failure, and every worker waiting on it) are now told in one
report, a line each."""

from __future__ import annotations

import pytest

from tests.unit.core.workers.conftest import MakeWorld, ReportFailed

CHAIN = 30


def test_cancelling_the_first_of_a_chain_makes_one_report_of_every_worker(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    chain = [world.spawn("step 0", not_before="2099-01-01T00:00")]
    for step in range(1, CHAIN):
        chain.append(world.spawn(f"step {step}", depends_on=[chain[-1]]))

    world.workers.cancel(chain[0])

    [(conversation_id, text, ids)] = world.reports.made
    assert conversation_id == world.conversation_id and ids == tuple(chain)
    lines = text.splitlines()
    assert lines[0] == f"[SYSTEM EVENT] {CHAIN} background workers ended together:"
    assert lines[1] == f'- #{chain[0]} "step 0" did not finish: it was cancelled'
    assert len(lines) == 1 + CHAIN
    assert lines[-1].startswith(f'- #{chain[-1]} "step {CHAIN - 1}" did not finish: worker #')


def test_a_failure_and_the_workers_waiting_on_it_make_one_report_and_others_their_own(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    world.model.script("fetch the data", "")  # an empty answer: the worker fails
    fetch = world.spawn("fetch the data")
    clean = world.spawn("clean the data", depends_on=[fetch])
    chart = world.spawn("chart the data", depends_on=[clean])
    aside = world.spawn("unrelated")

    world.drain()

    assert [ids for _, _, ids in world.reports.made] == [(fetch, clean, chart), (aside,)]
    assert world.reports.made[1][1].startswith(
        f"[SYSTEM EVENT] Background worker #{aside} finished"
    )


def test_a_chains_report_a_kill_kept_from_being_made_is_made_once_whole_at_the_next_start(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    chain = [world.spawn("step 0", not_before="2099-01-01T00:00")]
    for step in range(1, 5):
        chain.append(world.spawn(f"step {step}", depends_on=[chain[-1]]))
    world.reports.failing = 1  # the report raises: as a kill, nothing is marked reported

    with pytest.raises(ReportFailed):
        world.workers.cancel(chain[0])
    assert world.reports.made == []
    world.workers.recover()
    world.workers.recover()

    assert [ids for _, _, ids in world.reports.made] == [tuple(chain)]
