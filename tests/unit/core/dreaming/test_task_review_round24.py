"""Round 24: a task rewritten from what the user said, while the user took it back.

A dream's new task text is drawn from the user's messages, and records
them so that erasing them retracts the change.  Erased ("Delete now"),
deleted or edited away while the model read them, the text was written
anyway, after the erasure had retracted what there was: a word of an erased
conversation stayed in the task for good.  The change is left for the next
dream, as a harvest stores nothing the user took back while it read."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.control import DreamControl
from desktop.core.tasks.service import TaskService
from tests.unit.core.dreaming.conftest import Dreaming
from tests.unit.core.dreaming.test_erased_meanwhile_round22 import Meanwhile
from tests.unit.core.dreaming.test_preferences_round24 import TAKING_BACK, taking_back

SAID = "Buy the oat milk from the quillfern market, please."


@pytest.fixture
def model() -> Meanwhile:
    return Meanwhile()


@pytest.mark.parametrize("act", TAKING_BACK)
def test_a_task_rewritten_from_messages_taken_back_meanwhile_is_not(
    make_dreaming: Callable[..., Dreaming],
    tasks: TaskService,
    model: Meanwhile,
    database: Database,
    act: str,
) -> None:
    dreaming = make_dreaming(tasks=tasks)
    store = ConversationStore(database, clock=dreaming.clock)
    conversation = store.create("shopping")
    milk = tasks.add("Buy the milk", conversation_id=None)
    message = store.add_message(conversation.id, "user", SAID)
    new = "Buy the oat milk from the quillfern market"
    model.queue(json.dumps({"actions": [{"task": 1, "action": "update", "text": new}]}))
    model.meanwhile["quillfern"] = taking_back(dreaming, store, message, act)

    report = dreaming.dreamer.run("manual", DreamControl())

    assert not model.meanwhile, "the user acted while the model read the message"
    assert tasks.get(milk.id).text == "Buy the milk"  # type: ignore[union-attr]
    assert "drafted from was deleted since the dream read it" in report.outcomes["tasks"]
    if act == "erases the conversation":
        rows = database.fetch_all("SELECT text FROM tasks")
        assert not any("quillfern" in row["text"] for row in rows)
