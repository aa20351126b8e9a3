"""Tests of the skill tools: ``add_skill``, ``read_skill`` and ``list_skills``,
called as a model would call them."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.tools.skills import READ_CHARS, skill_tools
from desktop.core.chat.tools.toolbox import Toolbox, ToolContext
from desktop.core.db import ConversationStore, Database
from desktop.core.db.skills import EVERY_STATUS, SkillStore
from desktop.core.skills.library import SkillLibrary
from models.interfaces import ChatMessage, GenerationOptions
from models.llama_chat import LlamaChatModel
from models.sampling import grammar_for_schema

SKILLS = frozenset({"add_skill", "read_skill", "list_skills"})
TEA = "Brew the user's tea\n1. Boil water.\n2. Steep green tea for 2 minutes.\n"


@pytest.fixture
def skill_library(database: Database, user_dirs: AppPaths) -> SkillLibrary:
    return SkillLibrary(SkillStore(database), user_dirs.skills_dir)


@pytest.fixture
def toolbox(skill_library: SkillLibrary, prompts: PromptLibrary) -> Toolbox:
    return Toolbox(skill_tools(skill_library), prompts)


@pytest.fixture
def context(store: ConversationStore) -> ToolContext:
    conversation = store.create("skills")
    return ToolContext(conversation.id, ())


def _call(tool: str, /, **arguments: Any) -> str:
    return json.dumps({"name": tool, "arguments": arguments})


def _state(library: SkillLibrary) -> list[tuple[str, str, str, int]]:
    return [(s.name, s.summary, s.status, s.use_count) for s in library.store.list(EVERY_STATUS)]


def test_the_tools_are_described_and_their_schema_compiles(toolbox: Toolbox) -> None:
    described = toolbox.describe(SKILLS).splitlines()

    assert described[0].startswith("- add_skill(name: text, text: text): Save a way of doing")
    assert described[1].startswith("- list_skills(query?: text): List your skills")
    assert described[2].startswith("- read_skill(name: text): Load the full text")
    assert "root ::=" in grammar_for_schema(toolbox.schema(SKILLS))


def test_add_skill_saves_an_active_skill(
    toolbox: Toolbox, skill_library: SkillLibrary, context: ToolContext, user_dirs: AppPaths
) -> None:
    call = toolbox.call(_call("add_skill", name="Brew tea", text=TEA), context, SKILLS)

    assert call.result.ok
    assert call.result.content == {
        "result": "added",
        "name": "Brew tea",
        "summary": "Brew the user's tea",
    }
    assert call.result.summary == "Skill “Brew tea” saved: Brew the user's tea"
    assert (user_dirs.skills_dir / "Brew tea.md").read_text(encoding="utf-8") == TEA
    assert [line.name for line in skill_library.table_of_contents(2000)] == ["Brew tea"]


def test_read_skill_gives_the_text_and_records_the_use(
    toolbox: Toolbox, skill_library: SkillLibrary, context: ToolContext
) -> None:
    skill = skill_library.create("Brew tea", TEA)

    call = toolbox.call(_call("read_skill", name="brew tea"), context, SKILLS)

    assert call.result.ok
    assert call.result.content == {"name": "Brew tea", "text": TEA}
    assert [u.conversation_id for u in skill_library.uses(skill.id)] == [context.conversation_id]


def test_a_long_skill_reaches_the_model_cut_and_says_so(
    toolbox: Toolbox, skill_library: SkillLibrary, context: ToolContext
) -> None:
    skill_library.create("Long", "A long one\n" + "step\n" * 2000)

    content = toolbox.call(_call("read_skill", name="Long"), context, SKILLS).result.content

    assert len(content["text"]) == READ_CHARS
    assert content["cut"] == f"only the first {READ_CHARS} of 10011 characters"


def test_list_skills_finds_by_words(
    toolbox: Toolbox, skill_library: SkillLibrary, context: ToolContext
) -> None:
    skill_library.create("Brew tea", TEA)
    skill_library.create("Bake bread", "Bake the sourdough\n")

    everything = toolbox.call(_call("list_skills"), context, SKILLS).result
    found = toolbox.call(_call("list_skills", query="green"), context, SKILLS).result

    assert [s["name"] for s in everything.content["skills"]] == ["Bake bread", "Brew tea"]
    assert found.content == {"skills": [{"name": "Brew tea", "summary": "Brew the user's tea"}]}
    assert found.summary == "Listed skills about “green”: 1 found."


def test_a_skill_file_broken_outside_is_a_clear_error_and_no_use(
    toolbox: Toolbox, skill_library: SkillLibrary, context: ToolContext, user_dirs: AppPaths
) -> None:
    skill_library.create("Brew tea", TEA)
    Path(user_dirs.skills_dir / "Brew tea.md").write_bytes(b"Brew tea\n\x80\x81")
    before = _state(skill_library)

    call = toolbox.call(_call("read_skill", name="Brew tea"), context, SKILLS)

    assert not call.result.ok
    # The model hears what is wrong (round 26: not where the file is), the user which file.
    assert "read_skill failed: the skill file" in call.result.content["error"]
    assert "not UTF-8 text" in call.result.content["error"]
    assert "is not UTF-8 text" in call.result.summary
    assert _state(skill_library) == before


@pytest.mark.parametrize(
    ("written", "error"),
    [
        (_call("read_skill", name="coffee"), "There is no skill 'coffee'; skills: Brew tea."),
        (_call("read_skill", name=7), "Wrong arguments for read_skill: name: Input should be"),
        (_call("read_skill"), "Wrong arguments for read_skill: name: Field required."),
        (_call("add_skill", name="Brew TEA", text="Another\n"), "already a skill called"),
        (_call("add_skill", name="../../etc", text="Sneaky\n"), "cannot contain path separators"),
        (_call("add_skill", name="Empty", text="\n#\n"), "its first line is the one-line"),
        (_call("add_skill", name="Tea", text=["a list"]), "text: Input should be a valid string"),
        (_call("list_skills", query=None), "query: Input should be a valid string"),
    ],
)
def test_a_bad_call_gets_a_clear_error_and_changes_nothing(
    toolbox: Toolbox,
    skill_library: SkillLibrary,
    context: ToolContext,
    user_dirs: AppPaths,
    written: str,
    error: str,
) -> None:
    skill_library.create("Brew tea", TEA)
    before = _state(skill_library)

    call = toolbox.call(written, context, SKILLS)

    assert not call.result.ok
    assert error in call.result.content["error"]
    assert _state(skill_library) == before
    assert sorted(p.name for p in user_dirs.skills_dir.iterdir()) == ["Brew tea.md"]


def test_off_the_record_skills_are_read_but_never_added(toolbox: Toolbox) -> None:
    assert toolbox.offered(off_record=True) == {"read_skill", "list_skills"}


@pytest.mark.model
def test_a_skill_the_real_small_model_writes_under_the_schema_is_saved(
    smollm2: LlamaChatModel,
    toolbox: Toolbox,
    skill_library: SkillLibrary,
    context: ToolContext,
    user_dirs: AppPaths,
) -> None:
    offered = frozenset({"add_skill"})
    prompt = [
        ChatMessage("system", f"Tools:\n{toolbox.describe(offered)}"),
        ChatMessage("user", "Save this as a skill called tea: boil water, steep 2 minutes."),
    ]
    options = GenerationOptions(
        temperature=0.0, max_tokens=160, json_schema=toolbox.schema(offered)
    )

    written = "".join(chunk.text for chunk in smollm2.stream(prompt, options))
    call = toolbox.call(written, context, offered)

    assert call.name == "add_skill"
    assert call.result.ok, call.result.content
    [skill] = skill_library.list()
    assert skill.name == call.arguments["name"] == call.result.content["name"]
    # What the user asked to keep is in the saved text: its steps and its
    # number, in the model's words ("boil water, steep 2 minutes" came back
    # as "two minutes of boiling water" from another build of llama.cpp).
    saved = (user_dirs.skills_dir / f"{skill.name}.md").read_text(encoding="utf-8")
    assert saved == call.arguments["text"].rstrip("\n") + "\n"
    words = saved.casefold()
    assert "water" in words and "minute" in words and ("2" in words or "two" in words), saved


def test_a_refused_call_is_logged_by_its_kind_not_by_the_users_words(
    toolbox: Toolbox, context: ToolContext, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        call = toolbox.call(_call("add_skill", name="quexnib / ledger", text=TEA), context, SKILLS)

    assert "quexnib" in call.result.content["error"]  # the model hears why
    assert "add_skill failed: SkillRefused" in caplog.text
    assert "quexnib" not in caplog.text  # the log keeps no words of it
