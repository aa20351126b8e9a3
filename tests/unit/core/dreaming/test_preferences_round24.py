"""Round 24: a conversation deleted, or a message of it edited away, while
the preference pass's model read it.

The harvest stores nothing from a conversation deleted while its model read
it, nor a fact citing a message an edit removed meanwhile (``_commit``).
The preference pass learns from the same messages, and added the preference
anyway: a memory citing a conversation the user had just put in the bin (or
messages that are no longer there), its text alive in the working set.  An
addition is left for the next dream when a message it cites went, or its
conversation was deleted, after the pass read it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.db import ConversationStore, Database, Message
from desktop.core.dreaming.control import DreamControl
from tests.unit.core.dreaming.conftest import Dreaming
from tests.unit.core.dreaming.test_erased_meanwhile_round22 import Meanwhile

SHORT = "The user prefers short answers, not long essays."
SAID = "No, stop writing long essays! I want short answers."


@pytest.fixture
def model() -> Meanwhile:
    return Meanwhile()


TAKING_BACK = ["deletes the conversation", "edits the message away", "erases the conversation"]


def taking_back(
    dreaming: Dreaming, store: ConversationStore, said: Message, act: str
) -> Callable[[], None]:
    """The user's *act* on the message *said* (one of ``TAKING_BACK``), a second later."""
    acts: dict[str, Callable[[], object]] = {
        "deletes the conversation": lambda: store.delete(said.conversation_id),
        "edits the message away": lambda: store.delete_messages_from(said.conversation_id, said.id),
        "erases the conversation": lambda: dreaming.dreamer.eraser.erase_conversations(
            [said.conversation_id]
        ),
    }

    def user_acts() -> None:
        dreaming.clock.advance(1)
        acts[act]()

    return user_acts


@pytest.mark.parametrize("act", TAKING_BACK)
def test_a_preference_from_what_the_user_took_back_meanwhile_is_not_added(
    dreaming: Dreaming, model: Meanwhile, database: Database, act: str
) -> None:
    store = ConversationStore(database, clock=dreaming.clock)
    conversation = store.create("essays")
    message = store.add_message(conversation.id, "user", SAID)
    found = {"preference": SHORT, "strength": "strong_correction", "sensitive": False}
    model.queue(json.dumps({"preferences": [{**found, "messages": [1]}]}))
    model.meanwhile["stop writing long essays"] = taking_back(dreaming, store, message, act)

    report = dreaming.dreamer.run("manual", DreamControl())

    assert not model.meanwhile, "the user acted while the model read the message"
    assert dreaming.memories.store.listed() == []
    assert "left for the next dream" in report.outcomes["preferences"]
    assert "short answers" not in (dreaming.folder / "MEMORIES.md").read_text()
