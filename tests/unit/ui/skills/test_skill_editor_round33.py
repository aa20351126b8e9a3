"""Round 33: the questions about a skill name it as it is written.

A skill may be named "Hearts &lt;3 tea" (an entity, as typed in a forum
post); the delete question and the unsaved-changes question let Qt guess
their format, took the name for HTML and showed "Hearts <3 tea".
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QMessageBox
from pytestqt.qtbot import QtBot

from desktop.core.skills.library import SkillLibrary
from desktop.ui.skills.editor import SkillEditorWindow
from tests.on_screen import label_shows
from tests.unit.ui.skills.test_skill_editor import (  # noqa: F401 (the fixture)
    BREAD,
    TEA,
    answer,
    click,
    editor,
    type_text,
)

NAME = "Hearts &lt;3 tea"


def _shows(dialog: QMessageBox | None) -> str:
    assert dialog is not None
    label = dialog.findChild(QLabel, "qt_msgbox_label")
    assert isinstance(label, QLabel)
    return label_shows(label)


def test_the_questions_about_a_skill_name_it_as_written(
    qtbot: QtBot,
    editor: SkillEditorWindow,  # noqa: F811 (a fixture)
    skill_library: SkillLibrary,
) -> None:
    skill_library.create(NAME, TEA)
    skill_library.create("Bake bread", BREAD)
    editor.refresh()
    editor.select(NAME)

    click(qtbot, editor.pane.delete_button)
    assert f"Delete the skill “{NAME}”?" in _shows(editor.confirm_dialog)
    answer(qtbot, editor.confirm_dialog, "Keep it")

    type_text(editor, "Brew it\n")
    editor.select("Bake bread")
    assert f"You changed the skill “{NAME}”" in _shows(editor.unsaved_dialog)
    answer(qtbot, editor.unsaved_dialog, "Keep editing")
