"""Round 24: the clock set back after a dream (a laptop's clock a year
ahead, corrected; a restored snapshot of a virtual machine).

Each pass keeps a mark: up to when it judged the memories, at the dream's
time.  A mark left ahead of the clock covered everything stamped since: for
as long as the clock took to catch up (a year, here) duplicates were not
merged, contradictions not seen and no preference learned, and the dream
was never due early, while each report read "Nothing to change."  A mark or
a last dream ahead of the clock is not trusted: the passes judge all again."""

from __future__ import annotations

import json

from desktop.core.base.settings import DreamSettings
from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.control import DreamControl
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import DAY, Dreaming

REX = "The user has a dog named Rex"
REX_TWIN = "The user has a dog called Rex"
SHORT = "The user prefers short answers, not long essays."


def _dreamed_a_year_ahead(dreaming: Dreaming) -> None:
    dreaming.clock.advance(365 * DAY)
    dreaming.dreamer.run("manual", DreamControl())
    dreaming.clock.advance(-365 * DAY + DAY)  # set right again, a day after it was wrong


def test_duplicates_stored_after_the_clock_was_set_back_are_merged(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    _dreamed_a_year_ahead(dreaming)
    first = dreaming.add(REX)
    second = dreaming.add(REX_TWIN)
    saved = {"content": "The user has a dog named Rex.", "category": "people", "sourceIds": [1, 2]}
    model.queue(json.dumps({"toSave": [saved], "toDelete": [1, 2]}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert report.outcomes["dedup"] == "1 change applied."
    assert [dreaming.get(m.id).status for m in (first, second)] == ["superseded"] * 2


def test_a_preference_said_after_the_clock_was_set_back_is_learned(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    _dreamed_a_year_ahead(dreaming)
    store = ConversationStore(database, clock=dreaming.clock)
    conversation = store.create("essays")
    store.add_message(conversation.id, "user", "No, stop writing long essays!")
    found = {"preference": SHORT, "strength": "strong_correction", "sensitive": False}
    model.queue(json.dumps({"preferences": [{**found, "messages": [1]}]}))

    dreaming.dreamer.run("manual", DreamControl())

    assert [m.content for m in dreaming.memories.store.listed()] == [SHORT]


def test_memories_added_after_the_clock_was_set_back_make_a_dream_due(
    dreaming: Dreaming, settings: DreamSettings
) -> None:
    _dreamed_a_year_ahead(dreaming)
    assert not dreaming.dreamer.due_early()
    for n in range(settings.early_after_new_memories):
        dreaming.add(f"The user visited museum number {n} in Vienna")

    assert dreaming.dreamer.due_early()
