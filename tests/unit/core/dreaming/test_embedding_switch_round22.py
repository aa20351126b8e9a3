"""Round 22: the embedding model switched while a dream's memory waited for its vector.

A vector is labelled with the model that made it, so searches compare only
vectors of one model and the upkeep re-embeds the others.  A merge was
labelled with the model in use when the pass proposed it (or, approved
later, when the dream did), not with the model that embedded it: after a
switch in Settings while a dream gave way to the chat, or between a dream
and the approval of its pending merge, a vector of one model was kept as
another's, never re-embedded and compared with vectors it has nothing in
common with.
"""

from __future__ import annotations

import json

from desktop.core.db import Database
from desktop.core.dreaming.control import DreamControl, DreamProgress
from models.broker import InferenceBroker
from tests.fakes import HashingEmbedder, ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

REX = "The user has a dog named Rex"
REX_TWIN = "The user has a dog called Rex"
MERGED = "The user has a dog named Rex."


class OtherEmbedder(HashingEmbedder):
    """The model the user switches to: another name, another size."""

    name = "other"

    def __init__(self) -> None:
        super().__init__(dimension=768)


def _merge_of_both() -> str:
    saved = {"content": MERGED, "category": "people", "sourceIds": [1, 2]}
    return json.dumps({"toSave": [saved], "toDelete": [1, 2]})


def _made_by(database: Database, memory_id: int) -> tuple[str | None, int]:
    """The model a memory's vector is labelled with, and the vector's size."""
    label = database.fetch_value("SELECT embedding_model FROM memories WHERE id = ?", (memory_id,))
    size = database.fetch_value(
        "SELECT length(embedding) / 4 FROM memory_embeddings WHERE memory_id = ?", (memory_id,)
    )
    return label, size


def _merged(dreaming: Dreaming) -> int:
    [merged] = [m for m in dreaming.memories.store.listed() if m.content == MERGED]
    return merged.id


class SwitchingWhileWaiting(DreamControl):
    """The user switches embedding models while the dream waits for them,
    once the model has answered (before the merge's vector is made)."""

    def __init__(self, broker: InferenceBroker, model: ScriptedChatModel) -> None:
        super().__init__()
        self._broker = broker
        self._model = model
        self.switched = False

    def give_way(self, progress: DreamProgress) -> None:
        if self._model.requests and not self.switched:
            self._broker.load_embedder(OtherEmbedder).result(timeout=5)
            self.switched = True
        super().give_way(progress)


def test_a_merge_embedded_after_a_switch_is_labelled_with_the_model_that_made_it(
    dreaming: Dreaming, model: ScriptedChatModel, broker: InferenceBroker, database: Database
) -> None:
    dreaming.add(REX)
    dreaming.add(REX_TWIN)
    model.queue(_merge_of_both())
    control = SwitchingWhileWaiting(broker, model)

    dreaming.dreamer.run("manual", control)

    assert control.switched
    assert _made_by(database, _merged(dreaming)) == ("other", 768)


def test_a_merge_approved_after_a_switch_is_labelled_with_the_model_that_made_it(
    dreaming: Dreaming, model: ScriptedChatModel, broker: InferenceBroker, database: Database
) -> None:
    dreaming.add(REX, pinned=True)  # risky: waits for the user's approval
    dreaming.add(REX_TWIN)
    model.queue(_merge_of_both())
    dreaming.dreamer.run("manual", DreamControl())
    [change] = dreaming.dreamer.dreams.pending()
    broker.load_embedder(OtherEmbedder).result(timeout=5)

    dreaming.dreamer.book.approve(change.id, dreaming.memories.embed_labelled)

    assert _made_by(database, _merged(dreaming)) == ("other", 768)
