"""Round 32: a new skill given a deleted skill's name takes its place (its
row and uses; the deleted one's file goes, as it can be restored no more),
and the editor says so: the deleted one left the Deleted tab unsaid."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.core.skills.library import SkillLibrary
from desktop.ui.skills.editor import SkillEditorWindow
from tests.unit.ui.skills.test_skill_editor import (  # noqa: F401 (the fixture)
    BREAD,
    click,
    editor,
    type_text,
)


def test_a_new_skill_under_a_deleted_ones_name_says_it_replaces_it(
    qtbot: QtBot,
    editor: SkillEditorWindow,  # noqa: F811 (a fixture)
    skill_library: SkillLibrary,
) -> None:
    old = skill_library.create("Bake bread", "Bake bread\n1. The old way.\n")
    skill_library.delete(old.id)
    editor.refresh()
    editor.new_skill()
    editor.pane.name_edit.setText("Bake bread")
    type_text(editor, BREAD)

    with qtbot.waitSignal(editor.skills_changed):
        click(qtbot, editor.pane.save_button)

    assert editor.notice.text() == (
        "Created the skill “Bake bread”: Reverie can use it now. "
        "It replaces the deleted skill of that name."
    )
    assert skill_library.list(statuses=("deleted",)) == []
    assert skill_library.read(old.id).text == BREAD
