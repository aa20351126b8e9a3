"""Round 26: a tool that failed on the user's storage told the model where
the user's files are.

A full disk under a ``task`` call, or a skill file that is not UTF-8 under
``read_skill``, came back to the model as the error the window shows: the
database's full path ("The disk holding /home/anna/.local/share/reverie/
reverie.sqlite3 is full (2 MB free in ...)"), the skill file's, the user's
home and name in them.  The model reads it (a server backend may be
another machine), may repeat it, and its reply is stored and exported.
The model now hears what failed without a path; the user, in the call's
summary, still reads where and what to do.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.tools.skills import skill_tools
from desktop.core.chat.tools.tasks import task_tools
from desktop.core.chat.tools.toolbox import Toolbox, ToolCall, ToolContext
from desktop.core.db import ConversationStore, Database
from desktop.core.db.errors import disk_full
from desktop.core.db.skills import SkillStore
from desktop.core.db.tasks import Task
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService


def _places(*paths: Path) -> list[str]:
    """Each folder an error could name, down to the temporary root (the home's stand-in)."""
    return sorted({str(p) for path in paths for p in (path, *path.parents) if len(p.parts) > 2})


def _for_the_model(call: ToolCall) -> str:
    return json.dumps(call.result.content, ensure_ascii=False)


def test_a_full_disk_under_a_tool_is_said_to_the_model_without_the_databases_path(
    database: Database,
    task_service: TaskService,
    prompts: PromptLibrary,
    store: ConversationStore,
    user_dirs: AppPaths,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    toolbox = Toolbox(task_tools(task_service), prompts)
    conversation = store.create("tasks")
    asked = "Remind me to water the plants, it matters"
    message = store.add_message(conversation.id, "user", asked)
    context = replace(ToolContext(conversation.id, (message.id,), asked), said=asked)

    def full_disk(*args: object, **kwargs: object) -> Task:
        raise disk_full(database.path)  # as SQLite's "database or disk is full" is translated

    monkeypatch.setattr(task_service.store, "add", full_disk)
    call = toolbox.call(
        json.dumps({"name": "task", "arguments": {"action": "add", "text": "Water the plants"}}),
        context,
        frozenset({"task"}),
    )

    said = _for_the_model(call)
    assert not call.result.ok
    assert "disk" in said and "full" in said
    for place in _places(database.path, user_dirs.data_dir):
        assert place not in said
    assert str(database.path) in call.result.summary  # the user reads where


def test_an_unreadable_skill_file_is_said_to_the_model_without_its_path(
    database: Database, prompts: PromptLibrary, store: ConversationStore, user_dirs: AppPaths
) -> None:
    library = SkillLibrary(SkillStore(database), user_dirs.skills_dir)
    skill = library.create("Brew tea", "Brew the user's tea\n1. Boil water.\n")
    library.path(skill).write_bytes(b"Brew the user's tea\n\xff\xfe boil\n")
    toolbox = Toolbox(skill_tools(library), prompts)
    context = ToolContext(store.create("skills").id, ())

    call = toolbox.call(
        json.dumps({"name": "read_skill", "arguments": {"name": "Brew tea"}}),
        context,
        frozenset({"read_skill"}),
    )

    said = _for_the_model(call)
    assert not call.result.ok
    assert "skill file" in said
    for place in _places(library.path(skill)):
        assert place not in said
    assert str(library.path(skill)) in call.result.summary
