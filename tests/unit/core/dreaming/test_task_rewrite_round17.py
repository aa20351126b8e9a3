"""A dream rewrites a task unasked only when the new text is faithful (round 17).

A task's update was applied with no look at what it said: after "I had a
long day at work", "Take 1 tablet of warfarin at 08:00" became "Take 10
tablets of warfarin at 20:00" and "Do not sign the Acme contract" became
"Sign the Acme contract today".  Such a text now waits for the user's
approval; one the user's own words say is applied.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.control import DreamControl
from desktop.core.tasks.service import TaskService
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming


@pytest.fixture
def dreaming(make_dreaming: Callable[..., Dreaming], tasks: TaskService) -> Dreaming:
    return make_dreaming(tasks=tasks)


def _rewrite(
    dreaming: Dreaming,
    tasks: TaskService,
    model: ScriptedChatModel,
    database: Database,
    old: str,
    new: str,
    said: str,
) -> tuple[str, str, str]:
    """The task's text after a dream rewrote *old* as *new* once the user
    *said* something, with the change's status and why it waits."""
    conversation = ConversationStore(database, clock=dreaming.clock).create("c")
    task = tasks.add(old, conversation_id=conversation.id)
    dreaming.clock.advance(60)
    ConversationStore(database, clock=dreaming.clock).add_message(conversation.id, "user", said)
    model.queue(json.dumps({"actions": [{"task": 1, "action": "update", "text": new}]}))

    report = dreaming.dreamer.run("manual", DreamControl())

    [change] = dreaming.dreamer.dreams.changes(report.run.id)
    text = tasks.get(task.id).text  # type: ignore[union-attr]
    return text, change.status, str(change.payload.get("waits", ""))


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        ("Take 1 tablet of warfarin at 08:00", "Take 10 tablets of warfarin at 20:00", "10"),
        ("Do not sign the Acme contract", "Sign the Acme contract today", "today"),
        ("Do not sign the Acme contract", "Sign the Acme contract", "otherwise"),
        ("Call mum on Sunday about the present", "Call mum about the present", "sunday"),
    ],
    ids=["dose", "reversed", "denial dropped", "day dropped"],
)
def test_an_unfaithful_new_text_waits_for_approval(
    dreaming: Dreaming,
    tasks: TaskService,
    model: ScriptedChatModel,
    database: Database,
    old: str,
    new: str,
    why: str,
) -> None:
    text, status, waits = _rewrite(
        dreaming, tasks, model, database, old, new, "I had a long day at work."
    )

    assert (text, status) == (old, "pending")
    assert why in waits


def test_a_new_text_the_user_said_is_applied(
    dreaming: Dreaming, tasks: TaskService, model: ScriptedChatModel, database: Database
) -> None:
    said = "Mum is away on Sunday, I will call her on Saturday."
    text, status, _ = _rewrite(
        dreaming, tasks, model, database, "Call mum on Sunday", "Call mum on Saturday", said
    )

    assert (text, status) == ("Call mum on Saturday", "applied")
