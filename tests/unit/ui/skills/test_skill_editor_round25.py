"""Round 25: the editor's save racing a dream's change to the same skill.

Saving checked that the file was still as the user began editing it, then
wrote the typed text without saying what it expected: a dream's rewrite
(another thread, under the library's lock) landing between the check and
the write was overwritten, unasked, the user never told.  The write now
says what it expects, checked under the library's lock just before it
(``SkillLibrary.update_text``): the dream's text stays, the typing stays,
and the editor says the file changed meanwhile."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database
from desktop.core.db.skills import Skill, SkillStore
from desktop.core.privacy.redaction import Redactor
from desktop.core.skills.library import SkillLibrary
from desktop.ui.skills.editor import SkillEditorWindow
from tests.unit.ui.skills.test_skill_editor import TEA, click, type_text

DREAMT = "# Brew the user's tea\n\n1. Boil water.\n2. Steep green tea for 3 minutes.\n"


class DreamLandsFirst(SkillLibrary):
    """The app's library, where a dream's rewrite of the skill lands just
    before the next write the editor asks for (as a dream thread may)."""

    dream_text: str | None = None

    def update_text(self, skill_id: int, text: str, *, expected: str | None = None) -> Skill:
        if self.dream_text is not None:
            dreamt, self.dream_text = self.dream_text, None
            super().update_text(skill_id, dreamt, expected=self.read(skill_id).text)
        return super().update_text(skill_id, text, expected=expected)


@pytest.fixture
def library(database: Database, user_dirs: AppPaths, redactor: Redactor) -> DreamLandsFirst:
    return DreamLandsFirst(SkillStore(database), user_dirs.skills_dir, redactor=redactor)


@pytest.fixture
def editor(qtbot: QtBot, library: DreamLandsFirst) -> Iterator[SkillEditorWindow]:
    window = SkillEditorWindow(library)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()


def test_a_dream_writing_the_skill_as_it_is_saved_is_not_overwritten(
    qtbot: QtBot, editor: SkillEditorWindow, library: DreamLandsFirst
) -> None:
    library.create("Brew tea", TEA)
    editor.refresh()
    typed = "# Brew the user's tea\n\n1. Boil water.\n2. Steep black tea.\n"
    type_text(editor, typed)
    library.dream_text = DREAMT

    click(qtbot, editor.pane.save_button)

    file = Path(library.directory) / "Brew tea.md"
    assert file.read_text(encoding="utf-8") == DREAMT
    assert editor.pane.editor.toPlainText() == typed
    assert editor.pane.edit_problem.text().startswith(
        "Not saved: the file changed outside Reverie while you edited it."
    )
    click(qtbot, editor.pane.save_button)  # knowingly, now
    assert file.read_text(encoding="utf-8") == typed
