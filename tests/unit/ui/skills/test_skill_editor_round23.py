"""Round 23: the skill editor while the skills folder is away (moved or
renamed by hand): it says so, and keeps every skill, none deleted."""

from __future__ import annotations

from desktop.core.skills.library import SkillLibrary
from desktop.ui.skills.editor import SkillEditorWindow
from desktop.ui.skills.views import UNREADABLE_ROLE
from tests.unit.ui.skills.test_skill_editor import editor

__all__ = ["editor"]  # the editor's fixture, as its own tests have it


def test_a_missing_skills_folder_is_said_and_its_skills_stay(
    skill_library: SkillLibrary, editor: SkillEditorWindow
) -> None:
    skill_library.create("Brew tea", "Brew the user's tea\n1. Boil water.\n")
    folder = skill_library.directory
    away = folder.with_name("skills moved")
    folder.rename(away)

    editor.refresh()

    assert editor.skipped.isVisible()
    assert editor.skipped.text() == (
        f"The skills folder {folder} is missing (moved or renamed?): its skills are kept as "
        "they were until it is back. To let them all go, make an empty folder there."
    )
    assert editor.skill_names() == ["Brew tea"]
    assert editor.items.item(0).data(UNREADABLE_ROLE) is True

    away.rename(folder)
    editor.refresh()

    assert not editor.skipped.isVisible()
    assert editor.skill_names() == ["Brew tea"]
    assert editor.items.item(0).data(UNREADABLE_ROLE) is False
