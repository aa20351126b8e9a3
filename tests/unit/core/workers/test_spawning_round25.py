"""Round 25: spawning in a conversation that has had many workers.

Each spawn lists the workers its conversation spawned before (those a
``depends_on_previous`` waits on, a retried one replaced by its retry), in
its write.  That list asked, of each worker, whether any worker in the
database was its retry, with no index to answer from: every spawn read
the conversation's workers once per worker.  With 1,000 a spawn took
150 ms on 2 cores, with 3,000 two seconds, the database's one writer
held all the while; it grew with the square of the count."""

from __future__ import annotations

import time

import pytest

from desktop.core.db.workers import NewWorker
from tests.unit.core.workers.conftest import MakeWorld

EARLIER = 3_000
SPAWN_SECONDS = 0.5
"""A spawn among ``EARLIER`` workers took 1.9 s; one takes some
milliseconds now (a busy machine's margin)."""


@pytest.mark.slow
def test_a_spawn_after_thousands_of_workers_takes_no_longer_for_them(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    first = world.spawn("warm up")  # the redactor's word lists read, as at start
    with world.store.transaction() as tx:
        for index in range(EARLIER):
            world.store.add(
                NewWorker(world.conversation_id, f"earlier {index}", "minimal", (), 3, 60.0), tx
            )
    world.workers.cancel(first)
    retried = world.workers.retry(first)

    started = time.perf_counter()
    last = world.spawn("after them all", depends_on_previous=True)
    took = time.perf_counter() - started

    assert took < SPAWN_SECONDS
    waits_on = {w.id for w in world.workers.dependencies(last)}
    assert len(waits_on) == EARLIER + 1
    assert retried in waits_on and first not in waits_on  # a retry stands for what it retried
