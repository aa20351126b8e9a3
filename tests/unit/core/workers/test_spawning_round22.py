"""Round 22: a hostile or broken model's objective."""

from __future__ import annotations

import json

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.tools.sub_sessions import SPAWN_TOOL, sub_session_tools
from desktop.core.chat.tools.toolbox import Toolbox, ToolContext
from desktop.core.workers.dag import SpawnRefused
from tests.unit.core.workers.conftest import MakeWorld


def test_an_objective_is_stored_without_bidi_overrides_or_control_characters(
    make_world: MakeWorld,
) -> None:
    # Once kept: a right-to-left override reversed the Work window's rows
    # after it ("Depends on: #1 … (detelpmoc)") and the report in the chat.
    world = make_world()

    worker = world.spawn("sum \u202ethe bills\u0000 of\u0007 May\u200b")

    assert world.get(worker).objective == "sum the bills of May"


@pytest.mark.parametrize("objective", ["   ", "\u202e\u200b", "\u0000\n"])
def test_a_blank_objective_is_refused_in_words_the_model_can_use(
    make_world: MakeWorld, prompts: PromptLibrary, objective: str
) -> None:
    # Once the database's CHECK failed and the model read "SQLite rejected a
    # statement on /home/…/reverie.sqlite3: CHECK constraint failed".
    world = make_world()
    toolbox = Toolbox(sub_session_tools(world.workers), prompts)
    written = json.dumps({"name": SPAWN_TOOL, "arguments": {"objective": objective}})

    called = toolbox.call(written, ToolContext(world.conversation_id), frozenset({SPAWN_TOOL}))
    with pytest.raises(SpawnRefused, match="objective is blank"):
        world.spawn(objective)

    error = str(called.result.content)
    assert not called.result.ok
    assert "objective is blank" in error and "SQLite" not in error
    assert world.workers.list() == []
