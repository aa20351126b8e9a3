"""Round 22: what the skill editor shows of a skill written in HTML's characters."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.skills.library import SkillLibrary
from desktop.ui.skills.editor import SkillEditorWindow
from tests.tooltips import HOSTILE_TEXTS, tip_shows


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
