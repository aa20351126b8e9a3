"""Tests of inferring preferences from what the user said, past thresholds."""

from __future__ import annotations

import json

import pytest

from desktop.core.db import ConversationStore, Database, MemoryQuery
from desktop.core.dreaming.control import DreamControl
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

SHORT = "The user prefers short answers, not long essays."


def _answer(preference: str, strength: str, messages: list[int], sensitive: bool = False) -> str:
    found = {
        "preference": preference,
        "strength": strength,
        "sensitive": sensitive,
        "messages": messages,
    }
    return json.dumps({"preferences": [found]})


@pytest.fixture
def said(database: Database, dreaming: Dreaming) -> list[int]:
    """Three messages from the user in a kept conversation, one off the record."""
    store = ConversationStore(database, clock=dreaming.clock)
    kept = store.create("kept")
    hidden = store.create("private", off_record=True)
    store.add_message(hidden.id, "user", "Never tell anyone about my diary.")
    return [
        store.add_message(kept.id, "user", text).id
        for text in (
            "No, stop writing long essays!",
            "Shorter answers please.",
            "Keep answers short, thanks.",
        )
    ]


def _inferred(dreaming: Dreaming) -> list[str]:
    found = dreaming.memories.browse(MemoryQuery(source_kinds=("inferred",)))
    return [m.content for m in found]


@pytest.mark.parametrize(
    ("strength", "messages", "kept"),
    [
        ("strong_correction", [1], True),
        ("mild_pushback", [2], False),
        ("mild_pushback", [2, 3], True),
        ("casual_remark", [1, 2], False),
        ("casual_remark", [1, 2, 3], True),
        ("casual_remark", [2, 2, 2], False),  # the same message thrice is once
    ],
)
def test_a_preference_is_kept_past_its_threshold_of_distinct_messages(
    dreaming: Dreaming,
    model: ScriptedChatModel,
    said: list[int],
    strength: str,
    messages: list[int],
    kept: bool,
) -> None:
    model.queue(_answer(SHORT, strength, messages))

    dreaming.dreamer.run("manual", DreamControl())

    assert _inferred(dreaming) == ([SHORT] if kept else [])


def test_a_kept_preference_is_marked_inferred_with_its_messages(
    dreaming: Dreaming, model: ScriptedChatModel, said: list[int]
) -> None:
    model.queue(_answer(SHORT, "mild_pushback", [2, 3]))

    dreaming.dreamer.run("manual", DreamControl())

    [memory] = dreaming.memories.browse(MemoryQuery(source_kinds=("inferred",)))
    assert memory.category == "preferences"
    assert dreaming.memories.store.sources(memory.id).message_ids == tuple(said[1:])
    [(prompt, _)] = [r for r in model.requests if "messages" in r[0][-1].content]
    assert "[1] No, stop writing long essays!" in prompt[-1].content
    assert "diary" not in prompt[-1].content  # off the record: never read


def test_a_preference_about_money_waits_for_approval(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database, said: list[int]
) -> None:
    store = ConversationStore(database, clock=dreaming.clock)
    store.add_message(store.create("prices").id, "user", "No, give me prices in euros!")
    model.queue(_answer("The user wants prices in euros.", "strong_correction", [4]))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert report.pending == 1 and _inferred(dreaming) == []


def test_a_known_preference_is_not_added_again(
    dreaming: Dreaming, model: ScriptedChatModel, said: list[int]
) -> None:
    dreaming.add(SHORT)
    model.queue(_answer(SHORT, "strong_correction", [1]))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert report.applied == 0


def test_without_new_messages_the_model_is_not_asked_again(
    dreaming: Dreaming, model: ScriptedChatModel, said: list[int]
) -> None:
    model.queue('{"preferences": []}')
    dreaming.dreamer.run("manual", DreamControl())
    asked = len(model.requests)
    dreaming.clock.advance(60)

    dreaming.dreamer.run("manual", DreamControl())

    assert len(model.requests) == asked


def test_a_pass_rolled_back_reads_the_same_messages_next_time(
    dreaming: Dreaming, model: ScriptedChatModel, said: list[int]
) -> None:
    model.queue("not json", _answer(SHORT, "strong_correction", [1]))

    dreaming.dreamer.run("manual", DreamControl())
    dreaming.clock.advance(60)
    dreaming.dreamer.run("manual", DreamControl())

    assert _inferred(dreaming) == [SHORT]


def test_naming_a_message_not_shown_rolls_the_pass_back(
    dreaming: Dreaming, model: ScriptedChatModel, said: list[int]
) -> None:
    model.queue(_answer(SHORT, "strong_correction", [9]))

    report = dreaming.dreamer.run("manual", DreamControl())

    [entry] = [
        e
        for e in dreaming.dreamer.dreams.log_entries(report.run.id)
        if e.pass_name == "preferences"
    ]
    assert entry.outcome == "rolled_back" and _inferred(dreaming) == []


def _preferences_log(dreaming: Dreaming, run_id: int) -> str:
    [entry] = [
        e for e in dreaming.dreamer.dreams.log_entries(run_id) if e.pass_name == "preferences"
    ]
    return entry.message


@pytest.mark.parametrize(
    "debris",
    [
        "1",  # a message's number
        "German",  # a word
        "no lists",  # a fragment under three words
        "1. no writing essays",  # the prompt's numbering echoed
        "[2] Shorter please and thanks",
        "- The user prefers short answers.",
        "No, stop writing long essays!",  # a message quoted, not what it shows
        "{ {user_name} has two beehives on his roof.",  # a template made up
    ],
)
def test_model_debris_is_no_preference_and_no_word_in_the_report(
    dreaming: Dreaming, model: ScriptedChatModel, said: list[int], debris: str
) -> None:
    model.queue(_answer(debris, "strong_correction", [1]))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert dreaming.dreamer.dreams.changes(report.run.id) == []
    assert _preferences_log(dreaming, report.run.id) == "Nothing to change."


def test_a_preference_beside_debris_is_kept_and_the_debris_goes_unsaid(
    dreaming: Dreaming, model: ScriptedChatModel, said: list[int]
) -> None:
    found = [
        {"preference": "1", "strength": "strong_correction", "sensitive": False, "messages": [1]},
        {"preference": SHORT, "strength": "strong_correction", "sensitive": False, "messages": [1]},
    ]
    model.queue(json.dumps({"preferences": found}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert _inferred(dreaming) == [SHORT]
    assert _preferences_log(dreaming, report.run.id) == "1 change applied."


def test_a_preference_the_user_deleted_is_left_alone_and_the_report_says_so(
    dreaming: Dreaming, model: ScriptedChatModel, said: list[int]
) -> None:
    deleted = dreaming.add(SHORT)
    dreaming.memories.set_status([deleted.id], "deleted")
    model.queue(_answer(SHORT, "strong_correction", [1]))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert _inferred(dreaming) == []
    assert _preferences_log(dreaming, report.run.id).startswith(
        f"Nothing to change. “{SHORT}” was left alone: You deleted"
    )
