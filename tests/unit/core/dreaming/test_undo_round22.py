"""Round 22: undoing a merge the harvest had seen again since.

A dream merged two memories; a later harvest found the merged fact said
again in a new message and counted it (one more sighting, that message a
source).  Undoing the dream took the merged memory away with that sighting
and its source: the message was harvested already, so nothing would ever
count it again.  An undo is refused when what it takes away was seen again
since, as it is when it was edited since.
"""

from __future__ import annotations

import json

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.proposals import ChangeRefused
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

REX = "The user has a dog named Rex"
REX_TWIN = "The user has a dog called Rex"
MERGED = "The user has a dog named Rex."


def test_an_undo_is_refused_when_the_merged_memory_was_seen_again_since(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    first = dreaming.add(REX)
    second = dreaming.add(REX_TWIN)
    saved = {"content": MERGED, "category": "people", "sourceIds": [1, 2]}
    model.queue(json.dumps({"toSave": [saved], "toDelete": [1, 2]}))
    report = dreaming.dreamer.run("manual", DreamControl())
    merged_id = dreaming.get(first.id).superseded_by
    assert merged_id is not None
    store = ConversationStore(database)
    said = store.add_message(store.create("walks").id, "user", "Rex, my dog, loves the park.")
    seen = dreaming.memories.remember(
        MERGED, source_kind="harvested", actor="harvest", message_ids=[said.id]
    )
    assert (seen.outcome, seen.memory.id) == ("reinforced", merged_id)

    with pytest.raises(ChangeRefused, match=f"memory #{merged_id} changed since"):
        dreaming.dreamer.book.revert_run(report.run.id)

    merged = dreaming.get(merged_id)
    assert merged.status == "active"
    assert merged.reinforcement_count == seen.memory.reinforcement_count
    assert said.id in dreaming.memories.store.sources(merged_id).message_ids
    assert (dreaming.get(first.id).status, dreaming.get(second.id).status) == ("superseded",) * 2
