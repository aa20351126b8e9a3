"""A merged memory replaces its sources only when it is faithful to each of
them (``dedup.unfaithful``): it keeps their news ("divorced", "stopped
taking", "died"), denies nothing they do not deny and adds no fact.  Round
16 found a contradiction's merge checked only for names and numbers, and a
dedup merge that needed to cover only the fullest source: both replaced the
user's news with the model's sentence."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.base.content_words import changes, new_words
from desktop.core.base.settings import DreamSettings
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
NEWS_DROPPED = [
    ("User takes 5 mg of warfarin every day with dinner", "User stopped taking warfarin"),
    ("User's cat Tom is twelve years old and loves tuna", "User's cat Tom died"),
    ("User is married to Anna and they live in Lyon", "User divorced Anna"),
    ("User likes strong black coffee in the morning", "User hates coffee now"),
    ("User works as a nurse at St Mary's hospital in Leeds", "User quit the job at St Mary's"),
]


def _verdict(merged: str) -> str:
    return json.dumps({"verdict": "merge", "merged": merged})


def _merge_both(content: str) -> str:
    saved = {"content": content, "category": "personal", "sourceIds": [1, 2]}
    return json.dumps({"toSave": [saved], "toDelete": [1, 2]})


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


@pytest.mark.parametrize(("fuller", "news"), NEWS_DROPPED)
def test_the_fuller_memory_alone_does_not_stand_for_the_news(fuller: str, news: str) -> None:
    assert unfaithful([fuller, news], fuller) is not None


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


@pytest.fixture
def loose(make_dreaming: Callable[..., Dreaming]) -> Dreaming:
    """Duplicates found however far apart (the hashing embedder puts these
    pairs at 0.3 to 0.6), and no contradictions asked about."""
    settings = DreamSettings(
        quiet_seconds=0,
        max_retired_floor=10,
        duplicate_similarity=0.25,
        contradiction_band=(0.99, 1.0),
    )
    return make_dreaming(settings)


@pytest.mark.parametrize(("fuller", "news"), NEWS_DROPPED)
def test_a_dedup_merge_that_drops_the_shorter_memorys_news_keeps_both(
    loose: Dreaming, model: ScriptedChatModel, fuller: str, news: str
) -> None:
    loose.add(fuller)
    loose.clock.advance(10)
    loose.add(news)
    model.queue(_merge_both(fuller))

    report = loose.dreamer.run("manual", DreamControl())

    assert len(model.requests) == 1  # the two were shown as duplicates
    assert _active(loose) == sorted([fuller, news])
    assert report.applied == 0
    assert "was refused" in _notes(loose, report.run.id, "dedup")


def test_a_dedup_merge_keeping_both_memories_news_still_applies(
    loose: Dreaming, model: ScriptedChatModel
) -> None:
    loose.add("User lives in Paris")
    loose.clock.advance(10)
    loose.add("User lives in Paris now")
    model.queue(_merge_both("User lives in Paris"))  # drops "now": the fuller one stands

    loose.dreamer.run("manual", DreamControl())

    assert _active(loose) == ["User lives in Paris now"]
