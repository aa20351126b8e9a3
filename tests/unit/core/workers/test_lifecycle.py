"""A worker's life with a scripted model: time-outs and continuations,
nesting, the report of a worker's children, cancel, retry, and a restart
in the middle of a run."""

from __future__ import annotations

import json
import threading
from typing import Any

from pydantic import BaseModel, ConfigDict

from desktop.core.base.settings import WorkerSettings
from desktop.core.chat.tools.toolbox import Tool, ToolContext, ToolResult
from desktop.core.workers.service import Workers
from tests.fakes import StepGate
from tests.unit.core.workers.conftest import MakeWorld, World


class Note(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str


def note_tool(written: list[str]) -> Tool[Any]:
    def run(arguments: Note, context: ToolContext) -> ToolResult:
        written.append(arguments.text)
        return ToolResult(True, {"result": "noted"}, "noted")

    return Tool("note", Note, run)


def call(name: str, **arguments: object) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments})


def spawn_call(objective: str, **arguments: object) -> str:
    return call("spawn_sub_session", objective=objective, **arguments)


def test_a_worker_that_runs_out_of_time_is_continued_from_its_messages_and_dependents_wait(
    make_world: MakeWorld,
) -> None:
    written: list[str] = []
    world = make_world(tools=[note_tool(written)], cost=6.0)
    world.model.script("survey", call("note", text="part one"), call("note", text="two"), "All.")
    survey = world.spawn("survey", tools=["note"], timeout_s=10)
    summary = world.spawn("summarise", depends_on=[survey])

    first_hop = world.workers.run_one(survey, lambda: False)
    between = world.states(survey, summary)
    world.drain()

    chain = world.store.chain(survey)
    assert first_hop is not None and first_hop.kind == "timed_out"
    assert between == ["continuing", "waiting_deps"]  # not started on the first hop
    assert [w.state for w in chain] == ["completed", "completed"]
    assert [w.continuations for w in chain] == [0, 1]
    continued = chain[1]
    assert (continued.objective, continued.tools, continued.timeout_s) == ("survey", ("note",), 10)
    assert world.get(survey).result == "All."
    assert written == ["part one", "two"]  # nothing done twice
    roles = [m.role for m in world.store.messages(continued.id)]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "user", "assistant"]
    assert world.states(summary) == ["completed"]
    assert "All." in world.model.prompts["summarise"][0][-1].content
    assert [ids for _, _, ids in world.reports.made] == [(survey,), (summary,)]


def test_after_three_continuations_the_whole_chain_fails_and_so_do_its_dependents(
    make_world: MakeWorld,
) -> None:
    world = make_world(tools=[note_tool([])], cost=20.0)
    world.model.script("endless", *[call("note", text=str(i)) for i in range(10)])
    endless = world.spawn("endless", tools=["note"], timeout_s=10)
    after = world.spawn("after", depends_on=[endless])

    world.drain()

    chain = world.store.chain(endless)
    assert len(chain) == 4
    assert {w.state for w in chain} == {"failed"}
    assert "ran out of time (10 s) 4 times" in (world.get(endless).failure or "")
    assert world.states(after) == ["failed"]
    assert "after" not in world.model.asked
    assert [ids for _, _, ids in world.reports.made] == [(endless, after)]


def test_only_a_full_worker_spawns_and_only_one_level_down(make_world: MakeWorld) -> None:
    world = make_world(tools=[note_tool([])])
    world.model.script("lead", spawn_call("child", mode="full", tools=["note"]), "Led.")
    world.model.script("child", spawn_call("grandchild"), "Child done.")
    lead = world.spawn("lead", mode="full")
    plain = world.spawn("plain")

    world.drain()

    objectives = {w.objective: w for w in world.store.list()}
    assert set(objectives) == {"lead", "plain", "child"}
    assert objectives["child"].depth == 2 and objectives["child"].parent_id == lead
    child_tools = [
        m.content for m in world.store.messages(objectives["child"].id) if m.role == "tool"
    ]
    assert "There is no tool 'spawn_sub_session'" in child_tools[0]
    prompts = world.model.prompts
    assert "spawn_sub_session(" in prompts["lead"][0][0].content
    assert "spawn_sub_session(" not in prompts["child"][0][0].content
    assert "spawn_sub_session(" not in prompts["plain"][0][0].content
    assert world.states(plain) == ["completed"]


def test_workers_a_worker_started_are_reported_together_once_when_they_end_at_once(
    make_world: MakeWorld,
) -> None:
    for _ in range(5):
        world = make_world()
        spawns = [spawn_call(f"part {i}") for i in range(3)]
        world.model.script("lead", *spawns, "Parts handed off.")
        lead = world.spawn("lead", mode="full")
        world.workers.run_one(lead, lambda: False)
        children = world.store.children(lead)
        # The model answers one at a time; each child, answered, waits at the
        # barrier for the others, so all three end at the same moment.
        world.running.on_read = _AfterTheAnswer(threading.Barrier(len(children)))
        threads = [
            threading.Thread(target=world.workers.run_one, args=(c.id, lambda: False))
            for c in children
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)

        assert world.states(*(c.id for c in children)) == ["completed"] * 3
        made = [ids for _, _, ids in world.reports.made]
        assert made == [(lead,), tuple(c.id for c in children)]
        assert "started 3 workers, which have all ended:" in world.reports.made[1][1]


class _AfterTheAnswer:
    """Holds each thread at its second reading of the running clock (its
    step answered) until every thread is there."""

    def __init__(self, barrier: threading.Barrier) -> None:
        self._barrier = barrier
        self._reads: dict[int, int] = {}
        self._lock = threading.Lock()

    def __call__(self) -> None:
        with self._lock:
            me = threading.get_ident()
            self._reads[me] = self._reads.get(me, 0) + 1
            second = self._reads[me] == 2
        if second:
            self._barrier.wait(10)


def test_cancelling_a_waiting_worker_fails_its_dependents_with_cancelled(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    first = world.spawn("first", not_before="2030-01-01T00:00")
    second = world.spawn("second", depends_on=[first])

    cancelled = world.workers.cancel(first)
    again = world.workers.cancel(first)

    assert (cancelled, again) == ([first], [])
    assert world.states(first, second) == ["cancelled", "failed"]
    assert "was cancelled" in (world.get(second).failure or "")
    assert world.workers.ready() == [] and world.workers.next_wake() is None
    assert [ids for _, _, ids in world.reports.made] == [(first, second)]


def test_cancelling_a_running_worker_stops_it_and_nothing_overwrites_the_cancel(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    gate = StepGate()
    world.model.gate = gate
    worker = world.spawn("slow")
    ending: list[object] = []
    runner = threading.Thread(
        target=lambda: ending.append(world.workers.run_one(worker, lambda: False))
    )
    runner.start()
    gate.wait_for_arrival(1)

    world.workers.cancel(worker)
    gate.open()
    runner.join(10)

    assert world.states(worker) == ["cancelled"]
    assert ending and getattr(ending[0], "kind", None) == "stopped"
    assert [m.role for m in world.store.messages(worker)] == ["user"]


def test_retrying_a_failed_worker_and_then_its_dependent_completes_both(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    world.model.script("fetch", "")  # fails once
    fetch = world.spawn("fetch")
    use = world.spawn("use", depends_on=[fetch])
    world.drain()

    fetch_again = world.workers.retry(fetch)
    world.drain()
    use_again = world.workers.retry(use)
    world.drain()

    assert world.states(fetch, use, fetch_again, use_again) == [
        "failed",
        "failed",
        "completed",
        "completed",
    ]
    assert [w.id for w in world.store.dependencies(use_again)] == [fetch_again]
    assert "done: fetch" in world.model.prompts["use"][0][-1].content


def test_a_run_stopped_by_quitting_resumes_from_its_messages_in_the_next_process(
    make_world: MakeWorld,
) -> None:
    written: list[str] = []
    world = make_world(tools=[note_tool(written)])
    world.model.script("steps", call("note", text="step one"), "Both steps done.")
    worker = world.spawn("steps", tools=["note"])
    quitting = threading.Event()
    world.model.gate = _QuitAfterFirst(quitting)

    stopped = world.workers.run_one(worker, quitting.is_set)
    same_process = world.workers.ready()
    world.model.gate = None
    next_start = _restarted(world)
    resumed = next_start.ready()
    next_start.run_one(worker, lambda: False)

    assert stopped is not None and stopped.kind == "stopped"
    assert same_process == []  # never run twice by the same process
    assert resumed == [worker]
    assert world.states(worker) == ["completed"]
    assert written == ["step one"]
    assert world.get(worker).result == "Both steps done."


class _QuitAfterFirst:
    """Lets the first answer through, then asks to quit."""

    def __init__(self, quitting: threading.Event) -> None:
        self._quitting = quitting

    def wait(self, timeout: float | None = None) -> bool:
        self._quitting.set()
        return True


def _restarted(world: World) -> Workers:
    """The same database's workers as a new process sees them."""
    old = world.workers
    return Workers(
        world.store,
        old._conversations,
        old._runner._broker,
        old._library,
        world.reports,
        tools=list(old._tools.values()),
        settings=WorkerSettings(quiet_seconds=0),
        zone=old._zone,
        now=world.now,
        clock=world.running,
    )


def test_a_call_cut_off_from_its_result_by_a_kill_is_not_made_again_blind(
    make_world: MakeWorld,
) -> None:
    written: list[str] = []
    world = make_world(tools=[note_tool(written)])
    world.model.script("steps", "Checked; all noted.")
    worker = world.spawn("steps", tools=["note"])
    world.store.claim(worker, "a process that was killed", world.now())
    world.store.add_message(worker, "user", "Objective: steps")
    world.store.add_message(worker, "assistant", call("note", text="one"))

    world.drain()

    [resumed] = world.model.prompts["steps"]
    assert "whether it was done is not known" in resumed[-1].content
    assert written == []
    assert world.states(worker) == ["completed"]
