"""Round 22: what the skill editor shows of a skill written in HTML's characters."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.skills.library import SkillLibrary
from desktop.ui.skills.editor import SkillEditorWindow
from desktop.ui.widgets.line_breaks import unbroken
from tests.on_screen import HOSTILE_TEXTS, label_shows, tip_shows


@pytest.fixture
def editor(qtbot: QtBot, skill_library: SkillLibrary) -> Iterator[SkillEditorWindow]:
    window = SkillEditorWindow(skill_library)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()


def test_a_skills_tooltip_shows_its_summary_as_written(
    skill_library: SkillLibrary, editor: SkillEditorWindow
) -> None:
    """A skill whose first line holds a tag ("# <b>Budget</b> for the R&D
    trip") had its summary read as HTML in the list's tooltip."""
    for number, text in enumerate(HOSTILE_TEXTS):
        skill_library.create(f"Skill {number}", f"# {text}\n\nSteps.\n")
    editor.refresh()

    tips = [tip_shows(editor.items.item(row).toolTip()) for row in range(editor.items.count())]
    assert tips == list(HOSTILE_TEXTS)


def test_a_search_that_finds_nothing_is_quoted_as_typed(
    skill_library: SkillLibrary, editor: SkillEditorWindow
) -> None:
    skill_library.create("Brew tea", "# Brew the tea\n\nSteep it.\n")
    editor.search.setText("<h2>none</h2>")
    editor.refresh()

    assert editor.list_stack.currentWidget() is editor.empty_label
    assert label_shows(editor.empty_label) == "No skills here match “<h2>none</h2>”."


LONG_LINK = "https://example.com/recipes/" + "".join(f"Zm9vYmFy{n}_" for n in range(120))


def test_a_long_link_in_a_skills_first_line_wraps_in_its_preview(
    skill_library: SkillLibrary, editor: SkillEditorWindow
) -> None:
    """A skill whose first line is a 1,300-character link made its summary
    and prompt-line preview as wide as the link: at the window's least size
    both were cut off on the right (the window cannot grow past the screen)."""
    skill_library.create("Brew tea", "# Brew the tea\n\nSteep it.\n")
    skill_library.create("Read feed", f"# Open {LONG_LINK}\n\nSummarise it.\n")
    editor.refresh()
    editor.select("Brew tea")
    least = editor.pane.minimumSizeHint().width()

    editor.select("Read feed")

    assert editor.pane.minimumSizeHint().width() <= least
    shown = unbroken(label_shows(editor.pane.summary)).removesuffix("…")
    assert f"Summary: Open {LONG_LINK}".startswith(shown) and len(shown) > 200
