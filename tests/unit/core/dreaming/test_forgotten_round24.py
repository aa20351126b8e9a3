"""Round 24: a preference erased for good ("Delete now") came back at the next dream.

The preference pass reads the user's messages of the last weeks whenever a
new one arrived.  It leaves alone a preference the user deleted while the
deleted row is there to say so; erased, nothing was left to say it, and the
message it was learned from was read again: the next dream after any new
message added it again, word for word.  Recalling past conversations leaves
out a message a deleted or erased memory was learned from (``FORGOTTEN``);
what a dream learns from leaves it out too."""

from __future__ import annotations

import json

from desktop.core.db import ConversationStore, Database, MemoryQuery
from desktop.core.db.memory_rows import MEMORY_STATUSES
from desktop.core.dreaming.control import DreamControl
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import DAY, Dreaming

SHORT = "The user prefers short answers, not long essays."
FOUND = {"preference": SHORT, "strength": "strong_correction", "sensitive": False}


def test_a_preference_erased_for_good_is_not_learned_again_from_the_same_words(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    store = ConversationStore(database, clock=dreaming.clock)
    conversation = store.create("essays")
    store.add_message(conversation.id, "user", "No, stop writing long essays!")
    model.queue(json.dumps({"preferences": [{**FOUND, "messages": [1]}]}))
    dreaming.dreamer.run("manual", DreamControl())
    [learned] = dreaming.memories.store.listed()
    assert learned.content == SHORT
    dreaming.dreamer.eraser.erase_memories([learned.id])
    dreaming.clock.advance(DAY)
    store.add_message(conversation.id, "user", "What is the weather like in Oslo today?")
    # The new message first, then those read before (``fit_messages``).
    model.queue(json.dumps({"preferences": [{**FOUND, "messages": [2]}]}))

    dreaming.dreamer.run("manual", DreamControl())

    assert dreaming.memories.browse(MemoryQuery(statuses=MEMORY_STATUSES)) == []
    [prompt] = [r[0][-1].content for r in model.requests if "Oslo" in r[0][-1].content]
    assert "long essays" not in prompt
