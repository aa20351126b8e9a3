"""Tests of the prompt library: shipped templates, user overrides, rendered text."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core import paths
from desktop.core.paths import AppPaths
from desktop.core.prompts import PromptLibrary

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


def test_the_shipped_system_prompt_renders_without_markers(user_prompts: Path) -> None:
    prompt = PromptLibrary(user_prompts).system_prompt()

    assert prompt.startswith("You are Reverie")
    assert "<!--" not in prompt
    assert "section:" not in prompt


def test_a_user_copy_wins_over_the_shipped_template(user_prompts: Path, shipped: Path) -> None:
    (user_prompts / "OTHER.txt").write_text("my own wording\n", "utf-8")
    library = PromptLibrary(user_prompts, shipped)

    assert library.load("OTHER.txt") == "my own wording\n"
    assert library.load("BASE_PROMPT.txt") == SHIPPED_BASE  # no copy: the shipped one


def test_a_user_folder_with_that_name_is_not_a_copy(user_prompts: Path, shipped: Path) -> None:
    (user_prompts / "OTHER.txt").mkdir()

    assert PromptLibrary(user_prompts, shipped).load("OTHER.txt") == "the shipped other\n"


def test_system_prompt_strips_section_markers_and_extra_blank_lines(
    user_prompts: Path, shipped: Path
) -> None:
    prompt = PromptLibrary(user_prompts, shipped).system_prompt()

    assert prompt == (
        "You are a test companion.\n\nThings you remember:\n\n- none yet\n\nUse tools wisely."
    )


def test_system_prompt_uses_the_users_base_prompt(user_prompts: Path, shipped: Path) -> None:
    (user_prompts / "BASE_PROMPT.txt").write_text(
        "<!-- section: core -->\r\nBe a pirate.\r\n", "utf-8"
    )

    assert PromptLibrary(user_prompts, shipped).system_prompt() == "Be a pirate."


def test_a_missing_template_raises(user_prompts: Path, shipped: Path) -> None:
    with pytest.raises(FileNotFoundError):
        PromptLibrary(user_prompts, shipped).load("NO_SUCH_PROMPT.txt")
