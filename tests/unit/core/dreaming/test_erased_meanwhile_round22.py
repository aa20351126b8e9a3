"""Round 22: a memory erased for good while a dream's model read what says it.

The preference pass asks the model about the user's messages, then checks
each preference it names against the memories: one the user deleted is
refused, one kept already is not added twice.  A memory erased for good
("Delete now") while the model read leaves nothing to check against, so
the dream added it again at once.  An addition is left for the next dream
when a memory was erased since the pass read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import pytest

from desktop.core.db import ConversationStore, Database, MemoryQuery
from desktop.core.dreaming.control import DreamControl
from models.interfaces import ChatMessage
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

SHORT = "The user prefers short answers, not long essays."


class Meanwhile(ScriptedChatModel):
    """A scripted model that, asked with a marker in its prompt, first lets the user act."""

    def __init__(self) -> None:
        super().__init__(default='{"toSave": [], "toDelete": []}')
        self.meanwhile: dict[str, Callable[[], object]] = {}

    def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
        for marker in [m for m in self.meanwhile if any(m in c.content for c in messages)]:
            self.meanwhile.pop(marker)()
        return super()._next_reply(messages)


@pytest.fixture
def model() -> Meanwhile:
    return Meanwhile()


def test_a_preference_erased_while_the_model_read_it_is_not_added_again(
    dreaming: Dreaming, model: Meanwhile, database: Database
) -> None:
    kept = dreaming.add(SHORT)
    store = ConversationStore(database, clock=dreaming.clock)
    conversation = store.create("kept")
    store.add_message(conversation.id, "user", "No, stop writing long essays!")
    found = {"preference": SHORT, "strength": "strong_correction", "sensitive": False}
    model.queue(json.dumps({"preferences": [{**found, "messages": [1]}]}))
    model.meanwhile["stop writing long essays"] = lambda: dreaming.dreamer.eraser.erase_memories(
        [kept.id]
    )

    report = dreaming.dreamer.run("manual", DreamControl())

    assert not model.meanwhile, "the memory was erased while the model read the message"
    assert dreaming.memories.browse(MemoryQuery(statuses=("active", "deleted"))) == []
    assert "left for the next dream" in report.outcomes["preferences"]
