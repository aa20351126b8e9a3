"""The DAG with a scripted model: fan-out and fan-in, a failure failing the
chain, depends_on_previous, unknown ids, cycles, time gates."""

from __future__ import annotations

import logging
from datetime import datetime

import pytest

from desktop.core.workers.dag import SpawnRefused
from tests.unit.core.workers.conftest import BERLIN, MakeWorld


def test_fan_out_then_fan_in_runs_the_join_last_with_both_results(make_world: MakeWorld) -> None:
    world = make_world()
    world.model.script("find flights", "Flight LH 400, 09:10.")
    world.model.script("find hotels", "Hotel Adler, 120 EUR.")
    flights = world.spawn("find flights")
    hotels = world.spawn("find hotels")
    plan = world.spawn("write the plan", depends_on=[flights, hotels])
    waiting = world.states(plan)

    ran = world.drain()

    assert waiting == ["waiting_deps"]
    assert ran == [flights, hotels, plan]
    assert world.states(flights, hotels, plan) == ["completed"] * 3
    opening = world.model.prompts["write the plan"][0][-1].content
    assert "Flight LH 400, 09:10." in opening and "Hotel Adler, 120 EUR." in opening
    assert [ids for _, _, ids in world.reports.made] == [(flights,), (hotels,), (plan,)]
    assert all(cid == world.conversation_id for cid, _, _ in world.reports.made)


def test_a_failed_dependency_fails_every_transitive_dependent_with_the_reason(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    world.model.script("fetch the data", "")  # an empty answer: the worker fails
    fetch = world.spawn("fetch the data")
    clean = world.spawn("clean the data", depends_on=[fetch])
    chart = world.spawn("chart the data", depends_on=[clean])
    aside = world.spawn("unrelated")

    world.drain()

    assert world.states(fetch, clean, chart, aside) == ["failed", "failed", "failed", "completed"]
    assert f"worker #{fetch} did not finish" in (world.get(clean).failure or "")
    assert f"worker #{clean} did not finish" in (world.get(chart).failure or "")
    assert "empty" in (world.get(chart).failure or "")
    assert "clean the data" not in world.model.asked
    assert "chart the data" not in world.model.asked
    reported = sorted(i for _, _, ids in world.reports.made for i in ids)
    assert reported == [fetch, clean, chart, aside]


def test_depends_on_previous_waits_for_every_worker_the_same_spawner_started(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    first, second = world.spawn("one"), world.spawn("two")
    other = make_world()  # another conversation's worker is not "previous"
    other.spawn("elsewhere")

    join = world.spawn("join", depends_on_previous=True)

    assert [w.id for w in world.store.dependencies(join)] == [first, second]


def test_unknown_ids_are_stripped_with_a_warning_and_never_block(
    make_world: MakeWorld, caplog: pytest.LogCaptureFixture
) -> None:
    world = make_world()
    elsewhere = make_world().spawn("another conversation's")
    known = world.spawn("known")

    with caplog.at_level(logging.WARNING):
        after = world.spawn("after", depends_on=[known, 9999, elsewhere])
    world.drain()

    assert [w.id for w in world.store.dependencies(after)] == [known]
    assert "9999" in caplog.text
    assert world.states(after) == ["completed"]


def test_a_dependency_closing_a_cycle_is_refused_and_the_model_reads_why(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    lead = world.spawn("lead the research", mode="full")
    review = world.spawn("review the research", depends_on=[lead])
    # The lead's own worker would wait for the review, which waits for the lead.
    call = (
        '<tool_call>{"name": "spawn_sub_session", "arguments": '
        f'{{"objective": "detail", "depends_on": [{review}]}}}}'
    )
    world.model.script("lead the research", call, "Led.")

    world.workers.run_one(lead, lambda: False)

    tool_results = [m.content for m in world.store.messages(lead) if m.role == "tool"]
    assert len(tool_results) == 1 and "wait for themselves" in tool_results[0]
    assert f"#{review}" in tool_results[0]
    assert [w.objective for w in world.store.list()] == ["lead the research", "review the research"]
    assert world.states(lead) == ["completed"]


def test_a_time_gate_opens_after_the_dependencies_at_its_local_time(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    first = world.spawn("gather")
    gated = world.spawn("send the digest", depends_on=[first], not_before="2023-11-15T10:00")
    opens = datetime(2023, 11, 15, 10, 0, tzinfo=BERLIN).timestamp()

    world.drain()
    waited = (world.states(gated), world.workers.next_wake())
    world.now.now = opens - 1
    still_closed = world.workers.ready()
    world.now.now = opens
    world.drain()

    assert waited == (["waiting_time"], opens)
    assert still_closed == []
    assert world.states(gated) == ["completed"]
    assert world.workers.next_wake() is None


def test_a_gate_with_a_zone_is_read_in_that_zone_and_an_overdue_one_starts_at_once(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    utc = world.spawn("at ten utc", not_before="2023-11-15T10:00+00:00")
    overdue = world.spawn("long overdue", not_before="2020-01-01T00:00")

    assert world.get(utc).not_before == datetime.fromisoformat("2023-11-15T10:00+00:00").timestamp()
    assert world.workers.ready() == [overdue]


@pytest.mark.parametrize("written", ["tomorrow at eight", "2023-13-45T10:00", "20:00 CET"])
def test_a_time_that_cannot_be_read_is_refused_and_nothing_is_started(
    make_world: MakeWorld, written: str
) -> None:
    world = make_world()

    with pytest.raises(SpawnRefused, match="not a time Reverie can read"):
        world.spawn("later", not_before=written)

    assert world.store.list() == []
