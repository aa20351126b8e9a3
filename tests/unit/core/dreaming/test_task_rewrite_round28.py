"""Round 28: a dream's new text for a task that dropped the task's words
was applied without asking: after "What a day." the task pass rewrote "Call
the dentist about the crown" as "Call" (or "Buy paint" as "x"), and the
check let it through, as it looked only for numbers and names dropped.  A
word of the task may go only when the user's words about the task let it go."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.control import DreamControl
from desktop.core.memory.service import MemoryService
from desktop.core.tasks.rewrites import unfaithful
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from tests.dreams import make_dreamer
from tests.fakes import ScriptedChatModel

DAY = "What a day."


@pytest.mark.parametrize(
    ("old", "new", "dropped"),
    [
        ("Call the dentist about the crown", "Call", "dentist, crown"),
        ("Buy paint", "x", "buy, paint"),
        ("Water the plants on the balcony", "Water the plants", "balcony"),
    ],
)
def test_a_new_text_that_drops_the_tasks_words_waits(old: str, new: str, dropped: str) -> None:
    assert unfaithful(old, new, [DAY]) == (
        f"it drops {dropped}, which your words about it do not let go"
    )


def test_words_the_user_let_go_may_go() -> None:
    assert unfaithful("Buy milk and eggs", "Buy milk", ["I already got the eggs."]) is None


def test_a_dream_leaves_a_task_whose_words_it_would_drop_for_the_user(
    database: Database,
    tasks: TaskService,
    memories: MemoryService,
    model: ScriptedChatModel,
    prompts: PromptLibrary,
    broker: InferenceBroker,
    tmp_path: Path,
) -> None:
    store = ConversationStore(database)
    conversation = store.create("errands")
    dentist = tasks.add("Call the dentist about the crown", conversation_id=conversation.id)
    store.add_message(conversation.id, "user", DAY)
    model.default = json.dumps({"actions": []})
    model.queue(json.dumps({"actions": [{"task": 1, "action": "update", "text": "Call"}]}))
    dreamer = make_dreamer(database, memories, broker, prompts, tmp_path, tasks=tasks)

    report = dreamer.run("manual", DreamControl())

    assert report.outcomes["tasks"] == "1 change waiting for your approval."
    assert tasks.get(dentist.id) == dentist
