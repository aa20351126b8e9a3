"""A contradiction's loser is retired for the memory that wins: if the user
deletes, erases or rewrites the winner while the model judges the pair (or
before approving the change), the loser is not retired for what no longer
says it: the change is left for the next dream, or refused."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.proposals import ChangeRefused
from tests.unit.core.dreaming.conftest import DAY, Dreaming
from tests.unit.core.dreaming.test_changed_meanwhile import Meanwhile

ROME = "The user lives in Rome"
OSLO = "The user lives in Oslo"
KEEP_SECOND = json.dumps({"verdict": "keep_second", "merged": None})


@pytest.fixture
def model() -> Meanwhile:
    return Meanwhile()


def _what_the_user_does(dreaming: Dreaming, winner: int) -> dict[str, Callable[[], object]]:
    memories = dreaming.memories
    return {
        "deletes": lambda: memories.set_status([winner], "deleted"),
        "erases": lambda: dreaming.dreamer.eraser.erase_memories([winner]),
        # (the store's own edit: the service's would wait for the model, which is answering)
        "rewrites": lambda: memories.store.update_content(
            winner, "The user lives in Bergen", None, "user", expected_content=OSLO
        ),
    }


@pytest.mark.parametrize("act", ["deletes", "erases", "rewrites"])
def test_the_loser_stays_when_the_winner_goes_while_the_model_judges(
    dreaming: Dreaming, model: Meanwhile, act: str
) -> None:
    rome = dreaming.add(ROME)
    dreaming.clock.advance(10 * DAY)
    oslo = dreaming.add(OSLO)
    model.queue(KEEP_SECOND)

    def user_acts() -> None:
        dreaming.clock.advance(1)
        _what_the_user_does(dreaming, oslo.id)[act]()

    model.meanwhile["Oslo"] = user_acts

    report = dreaming.dreamer.run("manual", DreamControl())

    assert not model.meanwhile, "the verdict was asked for"
    kept = dreaming.get(rome.id)
    assert (kept.status, kept.superseded_by, kept.valid_to) == ("active", None, None)
    assert f"left for the next dream: memory #{oslo.id}" in report.outcomes["contradictions"]


@pytest.mark.parametrize("act", ["deletes", "rewrites"])  # "Delete now" sets it aside itself
def test_a_pending_supersede_is_refused_once_its_winner_went(
    dreaming: Dreaming, model: Meanwhile, act: str
) -> None:
    rome = dreaming.memories.remember(ROME, source_kind="user_explicit", actor="user").memory
    dreaming.clock.advance(10 * DAY)
    oslo = dreaming.memories.remember(OSLO, source_kind="user_explicit", actor="user").memory
    model.queue(KEEP_SECOND)
    report = dreaming.dreamer.run("manual", DreamControl())
    [pending] = [c for c in dreaming.dreamer.dreams.changes(report.run.id) if c.status == "pending"]
    dreaming.clock.advance(DAY)
    _what_the_user_does(dreaming, oslo.id)[act]()

    with pytest.raises(ChangeRefused, match=f"memory #{oslo.id}"):
        dreaming.dreamer.book.approve(pending.id)

    assert dreaming.get(rome.id).status == "active"
    assert dreaming.dreamer.dreams.change(pending.id).status == "rejected"
