"""Round 9 tests of the preference pass: a preference named twice is one.

A small model repeats itself: an answer naming the same preference twice
(or near enough: another case, spacing, no final stop, an invisible
character, "any" more) gave two memories from one message, which the next
dream's deduplication merged as "seen 2 times" for something said once.
"""

from __future__ import annotations

import json

import pytest

from desktop.core.db import ConversationStore, Database, MemoryQuery
from desktop.core.dreaming.control import DreamControl
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

EMOJIS = "The user wants answers without emojis."


def _answer(*preferences: tuple[str, list[int]], sensitive: bool = False) -> str:
    found = [
        {"preference": text, "strength": "strong_correction", "sensitive": sensitive, "messages": m}
        for text, m in preferences
    ]
    return json.dumps({"preferences": found})


def _said(database: Database, dreaming: Dreaming, *texts: str) -> list[int]:
    store = ConversationStore(database, clock=dreaming.clock)
    conversation = store.create("kept")
    return [store.add_message(conversation.id, "user", text).id for text in texts]


@pytest.mark.parametrize(
    "repeat",
    [
        EMOJIS,
        "THE USER WANTS ANSWERS WITHOUT EMOJIS.",
        "The user wants answers without emojis",
        "The user  wants answers without emojis.",
        "The user wants answers\u200b without emojis.",
        "The user wants answers without any emojis.",
    ],
)
def test_a_preference_named_twice_is_added_once(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database, repeat: str
) -> None:
    [message] = _said(database, dreaming, "No, stop using emojis in your answers.")
    model.queue(_answer((EMOJIS, [1]), (repeat, [1])))

    dreaming.dreamer.run("manual", DreamControl())

    [memory] = dreaming.memories.browse(MemoryQuery(source_kinds=("inferred",)))
    assert (memory.content, memory.reinforcement_count) == (EMOJIS, 1)
    assert dreaming.memories.store.sources(memory.id).message_ids == (message,)


def test_a_repeat_brings_its_messages_and_its_need_for_approval(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    first, second = _said(
        database, dreaming, "No, stop using emojis in your answers.", "Don't put emojis in answers!"
    )
    found = json.loads(_answer((EMOJIS, [1])))["preferences"]
    found += json.loads(_answer((EMOJIS.upper(), [2]), sensitive=True))["preferences"]
    model.queue(json.dumps({"preferences": found}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert report.pending == 1
    assert dreaming.memories.browse(MemoryQuery(source_kinds=("inferred",))) == []
    [pending] = dreaming.dreamer.dreams.pending()
    assert pending.payload["message_ids"] == [first, second]


def test_two_different_preferences_stay_two(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    _said(database, dreaming, "No, stop using emojis and stop writing essays.")
    model.queue(_answer((EMOJIS, [1]), ("The user wants answers without essays.", [1])))

    dreaming.dreamer.run("manual", DreamControl())

    found = dreaming.memories.browse(MemoryQuery(source_kinds=("inferred",)))
    assert sorted(m.content for m in found) == [
        "The user wants answers without emojis.",
        "The user wants answers without essays.",
    ]
