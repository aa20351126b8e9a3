"""Round 22: a report that could not be made is not lost; nothing is
spawned or called for a conversation deleted or a worker cancelled meanwhile."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.privacy.redaction import Redactor
from desktop.core.workers.dag import SpawnRefused
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


def test_a_spawn_arriving_after_its_conversation_was_deleted_is_refused(
    make_world: MakeWorld, database: Database
) -> None:
    # A chat turn goes on when its conversation is deleted: its spawn came
    # after the workers were cancelled, and the new one ran for a
    # conversation no longer there, reporting into it.
    world = make_world()
    ConversationStore(database).delete(world.conversation_id)

    with pytest.raises(SpawnRefused, match="conversation was deleted"):
        world.spawn("research")
    world.drain()

    assert world.workers.list() == []
    assert world.reports.made == []


class CancelsOnRedacting(Redactor):
    """A real redactor that, the first time it redacts a text *trigger*
    says yes to, runs *action* first: the user's Cancel landing between a
    worker's answer and the tool call it asks for, or in the call."""

    def __init__(self, trigger: Callable[[str], bool]) -> None:
        super().__init__()
        self.trigger = trigger
        self.action: Callable[[], object] | None = None

    def text(self, text: str) -> str:
        if self.action is not None and self.trigger(text):
            action, self.action = self.action, None
            action()
        return super().text(text)


def test_a_worker_cancelled_while_it_answers_neither_calls_its_tool_nor_spawns(
    make_world: MakeWorld,
) -> None:
    redactor = CancelsOnRedacting(lambda text: "spawn_sub_session" in text)
    world = make_world(redactor=redactor)
    world.model.script("lead", spawn_call("part"), "Handed off.")
    lead = world.spawn("lead", mode="full")
    redactor.action = lambda: world.workers.cancel(lead)

    ending = world.workers.run_one(lead, lambda: False)
    world.drain()

    assert ending is not None and ending.kind == "stopped"
    assert world.states(lead) == ["cancelled"]
    assert [w.id for w in world.workers.list()] == [lead]  # no child
    assert [m.role for m in world.store.messages(lead)] == ["user", "assistant"]
    assert [ids for _, _, ids in world.reports.made] == [(lead,)]


def test_a_worker_cancelled_while_its_spawn_is_made_spawns_nothing(
    make_world: MakeWorld,
) -> None:
    redactor = CancelsOnRedacting(lambda text: text == "part")  # the child's objective
    world = make_world(redactor=redactor)
    world.model.script("lead", spawn_call("part"), "Handed off.")
    lead = world.spawn("lead", mode="full")
    redactor.action = lambda: world.workers.cancel(lead)

    world.workers.run_one(lead, lambda: False)
    world.drain()

    assert world.states(lead) == ["cancelled"]
    assert [w.id for w in world.workers.list()] == [lead]
    result = world.store.messages(lead)[-1]
    assert result.role == "tool" and "this worker was stopped" in result.content


def test_a_worker_of_a_deleted_conversation_is_retried_only_once_it_is_restored(
    make_world: MakeWorld, database: Database
) -> None:
    # The Work window lists every worker, a deleted conversation's too: its
    # Retry ran the worker for the deleted conversation and reported into it.
    world = make_world()
    conversations = ConversationStore(database)
    research = world.spawn("research")
    conversations.delete(world.conversation_id)
    world.workers.cancel_conversation(world.conversation_id)

    with pytest.raises(SpawnRefused, match="conversation was deleted: restore it"):
        world.workers.retry(research)
    world.drain()
    refused = [w.id for w in world.workers.list()]
    conversations.restore(world.conversation_id)
    again = world.workers.retry(research)
    world.drain()

    assert refused == [research]
    assert world.states(research, again) == ["cancelled", "completed"]
    assert [ids for _, _, ids in world.reports.made] == [(again,)]
