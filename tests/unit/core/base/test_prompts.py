"""Tests of the prompt library: shipped templates, user overrides, rendered text."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.base import paths
from desktop.core.base.paths import AppPaths
from desktop.core.base.prompts import PromptLibrary, fill

SHIPPED_BASE = """<!-- section: core always -->
You are a test companion.


<!--section:memories when any-->
Things you remember:



- none yet
  <!--   section: tools  -->
Use tools wisely.
"""


@pytest.fixture
def user_prompts(user_dirs: AppPaths) -> Path:
    folder = user_dirs.config_dir / "prompts"
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
def shipped(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "BASE_PROMPT.txt").write_text(SHIPPED_BASE, "utf-8")
    (folder / "OTHER.txt").write_text("the shipped other\n", "utf-8")
    return folder


def test_the_shipped_template_is_loaded_from_the_data_folder(user_prompts: Path) -> None:
    library = PromptLibrary(user_prompts)

    text = library.load("BASE_PROMPT.txt")

    assert text == (paths.data_dir() / "BASE_PROMPT.txt").read_text("utf-8")


def test_the_shipped_base_prompt_renders_without_markers(user_prompts: Path) -> None:
    prompt = PromptLibrary(user_prompts).base_prompt()

    assert prompt.startswith("You are Reverie")
    assert "<!--" not in prompt
    assert "section:" not in prompt


def test_the_shipped_base_prompt_has_the_six_sections(user_prompts: Path) -> None:
    sections = PromptLibrary(user_prompts).sections("BASE_PROMPT.txt")

    assert [s.name for s in sections] == [
        "core",
        "knowledge_routing",
        "delegation",
        "scheduled_tasks",
        "system_events",
        "guidelines",
    ]
    assert sections[1].requires == {"append_memory", "task", "add_skill"}
    assert all(s.text for s in sections)


def test_a_user_copy_wins_over_the_shipped_template(user_prompts: Path, shipped: Path) -> None:
    (user_prompts / "OTHER.txt").write_text("my own wording\n", "utf-8")
    library = PromptLibrary(user_prompts, shipped)

    assert library.load("OTHER.txt") == "my own wording\n"
    assert library.load("BASE_PROMPT.txt") == SHIPPED_BASE  # no copy: the shipped one


def test_a_user_folder_with_that_name_is_not_a_copy(user_prompts: Path, shipped: Path) -> None:
    (user_prompts / "OTHER.txt").mkdir()

    assert PromptLibrary(user_prompts, shipped).load("OTHER.txt") == "the shipped other\n"


GATED_BASE = """<!-- section: core always -->
Core.
<!-- section: knowledge_routing requires: append_memory, task,add_skill -->
Route knowledge.
<!--section: delegation requires: delegate-->
Delegate.
<!-- section: guidelines -->
Guide.
"""


def test_a_section_is_included_when_one_of_its_tools_is_available(
    user_prompts: Path, shipped: Path
) -> None:
    (shipped / "BASE_PROMPT.txt").write_text(GATED_BASE, "utf-8")
    library = PromptLibrary(user_prompts, shipped)

    assert library.base_prompt() == "Core.\n\nGuide."
    assert library.base_prompt({"task"}) == "Core.\n\nRoute knowledge.\n\nGuide."
    assert library.base_prompt({"add_skill", "delegate"}) == (
        "Core.\n\nRoute knowledge.\n\nDelegate.\n\nGuide."
    )
    assert library.base_prompt({"unrelated"}) == "Core.\n\nGuide."


def test_base_prompt_strips_markers_comments_and_extra_blank_lines(
    user_prompts: Path, shipped: Path
) -> None:
    (shipped / "BASE_PROMPT.txt").write_text(
        "<!-- a note for editors,\nover two lines -->\n" + SHIPPED_BASE, "utf-8"
    )
    prompt = PromptLibrary(user_prompts, shipped).base_prompt()

    assert prompt == (
        "You are a test companion.\n\nThings you remember:\n\n- none yet\n\nUse tools wisely."
    )


def test_base_prompt_uses_the_users_copy(user_prompts: Path, shipped: Path) -> None:
    (user_prompts / "BASE_PROMPT.txt").write_text(
        "<!-- section: core -->\r\nBe a pirate.\r\n", "utf-8"
    )

    assert PromptLibrary(user_prompts, shipped).base_prompt() == "Be a pirate."


def test_text_before_the_first_marker_is_always_included(user_prompts: Path, shipped: Path) -> None:
    (user_prompts / "BASE_PROMPT.txt").write_text(
        "No markers at all.\n<!-- section: x requires: t -->\nGated.", "utf-8"
    )

    assert PromptLibrary(user_prompts, shipped).base_prompt() == "No markers at all."


def test_render_fills_placeholders(user_prompts: Path, shipped: Path) -> None:
    (shipped / "T.txt").write_text("Summarise:\n{history}\nThanks. {history}", "utf-8")

    rendered = PromptLibrary(user_prompts, shipped).render("T.txt", history="A said hi")

    assert rendered == "Summarise:\nA said hi\nThanks. A said hi"


def test_render_appends_a_value_whose_placeholder_is_missing(
    user_prompts: Path, shipped: Path
) -> None:
    (user_prompts / "T.txt").write_text("Summarise this conversation.\n", "utf-8")

    rendered = PromptLibrary(user_prompts, shipped).render("T.txt", history="A said hi")

    assert rendered == "Summarise this conversation.\n\nA said hi"


def test_fill_leaves_braces_and_placeholder_text_inside_values_alone() -> None:
    template = 'Reply as {"summary": "..."} about {content} then {history}'

    filled = fill(template, content="a {history} b", history="H")

    assert filled == 'Reply as {"summary": "..."} about a {history} b then H'


@pytest.mark.parametrize("language", ["en", "de", "fr", "es", "it", "zh", "ja"])
def test_a_seed_prompt_ships_for_each_language(user_prompts: Path, language: str) -> None:
    seed = PromptLibrary(user_prompts).seed_prompt(language)

    assert seed.startswith("[SYSTEM EVENT]")
    assert seed == (paths.data_dir() / f"prompts/SEED_{language}.txt").read_text("utf-8").strip()


@pytest.mark.parametrize("language", ["xx", "../BASE_PROMPT", ""])
def test_a_missing_seed_language_falls_back_to_english(user_prompts: Path, language: str) -> None:
    library = PromptLibrary(user_prompts)

    assert library.seed_prompt(language) == library.seed_prompt("en")


def test_a_new_seed_language_is_a_new_file(user_prompts: Path) -> None:
    (user_prompts / "prompts").mkdir()
    (user_prompts / "prompts" / "SEED_nl.txt").write_text("[SYSTEM EVENT] Hallo.", "utf-8")

    assert PromptLibrary(user_prompts).seed_prompt("nl") == "[SYSTEM EVENT] Hallo."


def test_a_missing_template_raises(user_prompts: Path, shipped: Path) -> None:
    with pytest.raises(FileNotFoundError):
        PromptLibrary(user_prompts, shipped).load("NO_SUCH_PROMPT.txt")
