"""Tests of resolving contradictions: the model says whether two memories
conflict, the host decides which wins; the loser is superseded, not erased."""

from __future__ import annotations

import json

from desktop.core.dreaming.control import DreamControl
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import DAY, Dreaming

ROME = "The user lives in Rome"
OSLO = "The user lives in Oslo"


def _verdict(verdict: str, merged: str | None = None) -> str:
    return json.dumps({"verdict": verdict, "merged": merged})


def _told(dreaming: Dreaming, text: str) -> int:
    return dreaming.memories.remember(text, source_kind="user_explicit", actor="user").memory.id


def _log(dreaming: Dreaming, run_id: int) -> str:
    [entry] = [
        e for e in dreaming.dreamer.dreams.log_entries(run_id) if e.pass_name == "contradictions"
    ]
    return entry.message


def test_the_newer_memory_wins_and_the_older_ends_when_it_was_learned(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    rome = dreaming.add(ROME)
    dreaming.clock.advance(10 * DAY)
    oslo = dreaming.add(OSLO)
    model.queue(_verdict("keep_second"))

    dreaming.dreamer.run("manual", DreamControl())

    [(prompt, options)] = model.requests
    assert "[1] The user lives in Rome (learned from a conversation" in prompt[-1].content
    assert options.json_schema is not None
    loser = dreaming.get(rome.id)
    assert (loser.status, loser.superseded_by, loser.valid_to) == (
        "superseded",
        oslo.id,
        oslo.created_at,
    )
    assert dreaming.get(oslo.id).status == "active"


def test_what_the_user_said_wins_over_what_was_inferred_whatever_the_model_says(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    told = _told(dreaming, ROME + ".")
    dreaming.clock.advance(10 * DAY)
    inferred = dreaming.add(OSLO)
    model.queue(_verdict("keep_second"))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert dreaming.get(told).status == "active"
    assert dreaming.get(inferred.id).superseded_by == told
    assert f"the model preferred #{inferred.id}; #{told} wins (you said it yourself)" in _log(
        dreaming, report.run.id
    )


def test_when_both_were_told_by_the_user_the_change_waits_for_approval(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    rome = _told(dreaming, ROME + ".")
    dreaming.clock.advance(10 * DAY)
    _told(dreaming, OSLO + ".")
    model.queue(_verdict("keep_second"))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert report.pending == 1
    assert dreaming.get(rome).status == "active"


def test_memories_that_can_both_be_true_are_left_alone(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    rome = dreaming.add(ROME)
    oslo = dreaming.add(OSLO)
    model.queue(_verdict("keep_both"))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert {dreaming.get(rome.id).status, dreaming.get(oslo.id).status} == {"active"}
    assert report.applied == 0


def test_a_merge_keeps_both_and_supersedes_them(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    rome = dreaming.add(ROME)
    dreaming.clock.advance(10 * DAY)
    oslo = dreaming.add(OSLO)
    model.queue(_verdict("merge", "The user lived in Rome and now lives in Oslo."))

    dreaming.dreamer.run("manual", DreamControl())

    merged_id = dreaming.get(rome.id).superseded_by
    assert merged_id is not None and dreaming.get(oslo.id).superseded_by == merged_id
    assert dreaming.get(merged_id).content == "The user lived in Rome and now lives in Oslo."


def test_an_answer_outside_the_contract_changes_nothing(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    rome = dreaming.add(ROME)
    dreaming.add(OSLO)
    model.queue('{"verdict": "delete_both"}')

    report = dreaming.dreamer.run("manual", DreamControl())

    assert dreaming.get(rome.id).status == "active"
    assert "Nothing changed: the model's answer was not usable" in _log(dreaming, report.run.id)
