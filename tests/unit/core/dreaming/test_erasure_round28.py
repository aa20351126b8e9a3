"""Round 28: a task or a skill erased for good ("Delete now") stayed word for
word in the chat's tool results.

The ``task`` tool lists a task's text, ``read_skill`` gives a skill's whole
text, and the conversation keeps each result as ``search_memory``'s is
kept; erasing took a memory's copy out of them (rounds 5 and 25), not a
task's or a skill's.  The text stayed in the conversation (shown, and in
the next prompt), in the database file and in the snapshots taken before
dreams.  A skill's text is in its file alone, removed first: its copies
are found by the skill's name in ``read_skill``'s results."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.base.paths import AppPaths
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database
from desktop.core.db.message_kinds import TOOL_CALL_START
from desktop.core.db.purge import ERASED
from desktop.core.dreaming.snapshots import complete_snapshots, take_snapshot
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from tests.erasers import eraser_for
from tests.fakes import Recorder, ScriptedChatModel

MARK = "Quillbrook"


def _asked(chat: ChatService, model: ScriptedChatModel, tool: str, **arguments: object) -> int:
    """A conversation in which the model called *tool* and read its result."""
    conversation = chat.new_conversation()
    call = json.dumps({"name": tool, "arguments": arguments})
    model.queue(f"{TOOL_CALL_START}{call}", "There.")
    chat.run(chat.send(conversation.id, "Have a look, please."), Recorder())
    return conversation.id


def _holding_mark(database: Database, user_dirs: AppPaths) -> list[str]:
    files = [database.path, Path(f"{database.path}-wal")]
    files += complete_snapshots(user_dirs.snapshots_dir)
    return [p.name for p in files if p.exists() and MARK.encode() in p.read_bytes()]


def _tool_results(store: ConversationStore, conversation_id: int) -> list[object]:
    return [json.loads(m.content) for m in store.messages(conversation_id) if m.role == "tool"]


def test_a_task_erased_for_good_goes_from_the_tools_results_the_file_and_the_snapshots(
    chat: ChatService,
    store: ConversationStore,
    task_service: TaskService,
    model: ScriptedChatModel,
    database: Database,
    user_dirs: AppPaths,
) -> None:
    task = task_service.add(f"Buy {MARK} paint for the shed", conversation_id=None)
    conversation = _asked(chat, model, "task", action="list")
    take_snapshot(database, user_dirs.snapshots_dir, "20261201T000000Z", skills_dir=None, keep=3)
    assert MARK in json.dumps(_tool_results(store, conversation))
    task_service.delete(task.id)

    eraser_for(database, user_dirs).erase_tasks([task.id])

    assert _tool_results(store, conversation) == [
        {"tasks": [{"id": task.id, "text": ERASED, "priority": 5, "status": "active"}]}
    ]
    assert _holding_mark(database, user_dirs) == []


def test_a_skill_erased_for_good_goes_from_the_tools_results_the_file_and_the_snapshots(
    chat: ChatService,
    store: ConversationStore,
    skill_library: SkillLibrary,
    model: ScriptedChatModel,
    database: Database,
    user_dirs: AppPaths,
) -> None:
    skill = skill_library.create("Fold flags", f"Fold a flag\n1. Use the {MARK} fold, twice.\n")
    conversation = _asked(chat, model, "read_skill", name="Fold flags")
    take_snapshot(
        database,
        user_dirs.snapshots_dir,
        "20261201T000000Z",
        skills_dir=user_dirs.skills_dir,
        keep=3,
    )
    assert MARK in json.dumps(_tool_results(store, conversation))
    skill_library.delete(skill.id)

    eraser_for(database, user_dirs, skills=skill_library).erase_skills([skill.id])

    # Its name too (round 33): what the record names is what was erased.
    assert _tool_results(store, conversation) == [{"name": ERASED, "text": ERASED}]
    assert _holding_mark(database, user_dirs) == []
