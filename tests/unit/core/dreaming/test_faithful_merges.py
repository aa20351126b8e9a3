"""A merged memory replaces its sources only when it is faithful to each of
them (``dedup.unfaithful``): it keeps their news ("divorced", "stopped
taking", "died"), denies nothing they do not deny and adds no fact.  Round
16 found a contradiction's merge checked only for names and numbers: it
replaced the user's news with the model's sentence."""

from __future__ import annotations

import json

import pytest

from desktop.core.base.content_words import changes, new_words
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.dedup import unfaithful
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import DAY, Dreaming

REVERSED_OR_INVENTED = [
    ("User is married to Anna", "User divorced Anna", "User is happily married to Anna"),
    (
        "User's cat Tom is twelve years old and loves tuna",
        "User's cat Tom died",
        "User's cat Tom is twelve years old, loves tuna and is healthy",
    ),
    ("User lives in Berlin", "User no longer lives in Berlin", "User lives in Berlin"),
    (
        "User takes warfarin every day",
        "User stopped taking warfarin every day",
        "User takes warfarin every day",
    ),
    (
        "User likes green tea",
        "User likes green tea less now",
        "User likes green tea and is allergic to penicillin",
    ),
]
FAITHFUL = [
    ("User is married to Anna", "User divorced Anna", "User was married to Anna and divorced her"),
    (
        "User takes warfarin every day",
        "User stopped taking warfarin every day",
        "User used to take warfarin every day",
    ),
    ("User lives in Berlin", "User no longer lives in Berlin", "User no longer lives in Berlin"),
    (
        "The user lives in Rome",
        "The user moved to Oslo in 2024",
        "The user lived in Rome until 2024 and then moved to Oslo.",
    ),
]


def _verdict(merged: str) -> str:
    return json.dumps({"verdict": "merge", "merged": merged})


def _active(dreaming: Dreaming) -> list[str]:
    return sorted(m.content for m in dreaming.memories.store.listed())


def _notes(dreaming: Dreaming, run_id: int, pass_name: str) -> str:
    entries = dreaming.dreamer.dreams.log_entries(run_id)
    return " ".join(e.message for e in entries if e.pass_name == pass_name)


@pytest.mark.parametrize(("older", "newer", "merged"), REVERSED_OR_INVENTED)
def test_a_merge_that_reverses_or_invents_is_unfaithful(
    older: str, newer: str, merged: str
) -> None:
    assert unfaithful([older, newer], merged) is not None


@pytest.mark.parametrize(("older", "newer", "merged"), FAITHFUL)
def test_a_merge_that_keeps_the_news_in_other_words_is_faithful(
    older: str, newer: str, merged: str
) -> None:
    assert unfaithful([older, newer], merged) is None


def test_the_report_says_what_an_unfaithful_merge_did() -> None:
    assert unfaithful(["User likes tea"], "User likes tea and penicillin") == (
        "it added penicillin"
    )
    assert unfaithful(["User takes aspirin", "User stopped aspirin"], "User takes aspirin") == (
        "it dropped that something ended"
    )
    assert unfaithful(["User takes aspirin"], "User does not take aspirin") == (
        "it says something is not so, which none of them says"
    )


def test_words_of_change_are_read_by_what_they_say() -> None:
    assert changes("User stopped taking warfarin") == changes("User no longer takes it")
    assert changes("Anna is the user's ex-wife") == {"ended"}
    assert changes("User's cat Tom passed away") == {"died"}
    assert changes("User doesn't drink coffee") == changes("User never drinks coffee")
    assert changes("User lives in Berlin") == frozenset()
    assert new_words("User used to take warfarin", ["User takes warfarin"]) == []


@pytest.mark.parametrize(("older", "newer", "merged"), REVERSED_OR_INVENTED)
def test_a_contradiction_merge_that_reverses_or_invents_keeps_both_memories(
    dreaming: Dreaming, model: ScriptedChatModel, older: str, newer: str, merged: str
) -> None:
    dreaming.add(older)
    dreaming.clock.advance(60)
    dreaming.add(newer)
    dreaming.clock.advance(3600)
    model.queue(_verdict(merged))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert len(model.requests) == 1  # the pair was asked about
    assert _active(dreaming) == sorted([older, newer])
    assert report.applied == 0
    assert "was refused" in _notes(dreaming, report.run.id, "contradictions")


@pytest.mark.parametrize(("older", "newer", "merged"), FAITHFUL[:3])
def test_a_faithful_contradiction_merge_still_replaces_both(
    dreaming: Dreaming, model: ScriptedChatModel, older: str, newer: str, merged: str
) -> None:
    first = dreaming.add(older)
    dreaming.clock.advance(10 * DAY)
    second = dreaming.add(newer)
    model.queue(_verdict(merged))

    dreaming.dreamer.run("manual", DreamControl())

    merged_id = dreaming.get(first.id).superseded_by
    assert merged_id is not None and dreaming.get(second.id).superseded_by == merged_id
    assert _active(dreaming) == [merged]
