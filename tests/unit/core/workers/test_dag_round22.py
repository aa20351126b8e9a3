"""Round 22: spawning on workers that already ended without a result."""

from __future__ import annotations

from datetime import datetime

import pytest

from desktop.core.workers.dag import SpawnRefused
from tests.unit.core.workers.conftest import MakeWorld


def test_a_spawn_waiting_on_a_worker_that_already_failed_is_refused_saying_so(
    make_world: MakeWorld,
) -> None:
    # Once it was accepted ("spawned") and failed at once, its report held
    # back until the next start: the chat told the user it had started.
    world = make_world()
    world.model.script("fetch", "")  # an empty answer: it fails
    fetch = world.spawn("fetch")
    aside = world.spawn("aside")
    world.workers.cancel(aside)
    world.drain()
    before = len(world.workers.list())

    with pytest.raises(SpawnRefused, match=f"#{fetch} failed") as refused:
        world.spawn("use", depends_on=[fetch])
    with pytest.raises(SpawnRefused, match=f"#{aside} was cancelled"):
        world.spawn("use", depends_on=[aside])

    assert "Nothing was started" in str(refused.value)
    assert len(world.workers.list()) == before


def test_depends_on_previous_waits_on_a_retry_not_on_the_worker_it_replaced(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    world.model.script("fetch", "")
    fetch = world.spawn("fetch")
    world.drain()
    fetch_again = world.workers.retry(fetch)
    world.drain()

    join = world.spawn("join", depends_on_previous=True)
    world.drain()

    assert [w.id for w in world.store.dependencies(join)] == [fetch_again]
    assert world.states(join) == ["completed"]


def test_retrying_a_worker_whose_dependency_failed_and_was_not_retried_is_refused(
    make_world: MakeWorld,
) -> None:
    # Once the retry failed at once and was reported only at the next start.
    world = make_world()
    world.model.script("fetch", "")
    fetch = world.spawn("fetch")
    use = world.spawn("use", depends_on=[fetch])
    world.drain()
    before = len(world.workers.list())

    with pytest.raises(SpawnRefused, match=f"#{fetch} failed.*retry it first"):
        world.workers.retry(use)

    assert len(world.workers.list()) == before
    assert world.workers.retry(fetch) and world.workers.retry(use)
    world.drain()
    assert [w.state for w in world.workers.list()][-2:] == ["completed", "completed"]


@pytest.mark.parametrize(
    "written", ["9999-12-31T23:59-14:00", "0001-01-01T00:00+14:00", "0001-01-01", "9999-12-31"]
)
def test_a_time_gate_no_clock_can_show_is_refused(make_world: MakeWorld, written: str) -> None:
    # Once stored: every listing of the Work window (its state tooltip
    # reads the gate in local time) and the host's clock raised ValueError.
    world = make_world()

    with pytest.raises(SpawnRefused, match="is not between 1970 and 9000"):
        world.spawn("later", not_before=written)

    assert world.workers.list() == []
    assert world.workers.next_wake() is None


def test_a_far_but_showable_time_gate_is_kept_and_shown(make_world: MakeWorld) -> None:
    world = make_world()
    later = world.spawn("later", not_before="8999-12-31T23:00+14:00")

    gate = world.get(later).not_before
    assert gate is not None and datetime.fromtimestamp(gate).year == 8999
