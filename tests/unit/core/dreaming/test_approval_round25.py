"""Round 25: a pending change approved after what it was read from went to the bin.

A dream's completion of a task, and a sensitive preference, wait for the
user's approval in the dream report, with the user's words they were read
from.  Approving one after that conversation was moved to the bin (or the
message edited away) still applied it: a task completed, a memory stored,
from words the user had taken back.  Approving checks what the pass
checks (``sources_gone``): nothing is applied, and the change is set
aside as rejected, saying why."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.proposals import ChangeRefused
from desktop.core.tasks.service import TaskService
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

GONE = "a message it was drafted from was deleted since the dream read it"


def _pending(dreaming: Dreaming, run_id: int, pass_name: str) -> int:
    [change] = [
        c
        for c in dreaming.dreamer.dreams.changes(run_id)
        if c.pass_name == pass_name and c.status == "pending"
    ]
    return change.id


def test_a_completion_approved_after_its_conversation_was_binned_is_not_made(
    make_dreaming: Callable[..., Dreaming],
    tasks: TaskService,
    model: ScriptedChatModel,
    database: Database,
) -> None:
    dreaming = make_dreaming(tasks=tasks)
    store = ConversationStore(database, clock=dreaming.clock)
    conversation = store.create("chores")
    chore = tasks.add("File the taxes", conversation_id=None)
    dreaming.clock.advance(60)
    store.add_message(conversation.id, "user", "The taxes are filed, finally.")
    model.queue(
        json.dumps(
            {"actions": [{"task": 1, "action": "complete", "evidence": "The taxes are filed"}]}
        )
    )
    report = dreaming.dreamer.run("manual", DreamControl())
    change_id = _pending(dreaming, report.run.id, "tasks")
    store.delete(conversation.id)

    with pytest.raises(ChangeRefused, match=GONE):
        dreaming.dreamer.book.approve(change_id)

    assert tasks.get(chore.id).status == "active"  # type: ignore[union-attr]
    change = dreaming.dreamer.dreams.change(change_id)
    assert (change.status, change.note) == ("rejected", GONE)


def test_a_sensitive_preference_approved_after_its_conversation_was_binned_is_not_kept(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    store = ConversationStore(database, clock=dreaming.clock)
    conversation = store.create("money")
    store.add_message(conversation.id, "user", "Never suggest loans to me, I hate debt!")
    found = "The user does not want loans suggested."
    model.queue(
        json.dumps(
            {
                "preferences": [
                    {
                        "preference": found,
                        "strength": "strong_correction",
                        "sensitive": True,
                        "messages": [1],
                    }
                ]
            }
        )
    )
    report = dreaming.dreamer.run("manual", DreamControl())
    change_id = _pending(dreaming, report.run.id, "preferences")
    store.delete(conversation.id)

    with pytest.raises(ChangeRefused, match=GONE):
        dreaming.dreamer.book.approve(change_id)

    assert [m.content for m in dreaming.memories.store.listed()] == []
