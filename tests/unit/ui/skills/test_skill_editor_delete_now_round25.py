"""Round 25: a deleted skill could not be erased for good from the skill editor.

A deleted skill waited out its restore window, its file in
``skills/.deleted/``, with no way to say "gone now".  Given the eraser,
the editor offers "Delete now…" on a deleted skill, asks first, and
erases its row and its file on the worker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.db import Database
from desktop.core.dreaming.erasure import Eraser
from desktop.core.skills.library import DELETED, SkillLibrary
from desktop.ui.skills.editor import SkillEditorWindow
from desktop.ui.widgets.erase_confirm import CANNOT_BE_UNDONE
from tests.unit.ui.memory.test_delete_now import WAIT_MS, answer, on_disk
from tests.unit.ui.skills.test_skill_editor import TEA, click

MARKER = b"grommetwise"


@pytest.fixture
def editor(
    qtbot: QtBot, skill_library: SkillLibrary, eraser: Eraser
) -> Iterator[SkillEditorWindow]:
    window = SkillEditorWindow(skill_library, eraser=eraser)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()


def test_a_deleted_skill_is_erased_for_good_after_a_question(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary, database: Database
) -> None:
    flags = skill_library.create("Fold flags", "Fold a flag the Grommetwise way\n1. Halve it.\n")
    tea = skill_library.create("Brew tea", TEA)
    skill_library.delete(flags.id)
    editor.show_tab("deleted")
    editor.select("Fold flags")
    erase = editor.pane.erase_button
    assert erase.isVisible() and erase.text() == "Delete now…"

    click(qtbot, erase)
    assert editor.erase_confirm is not None
    assert editor.erase_confirm.informativeText() == CANNOT_BE_UNDONE
    answer(editor.erase_confirm, "cancel")
    assert skill_library.store.get(flags.id) is not None  # nothing without a yes

    click(qtbot, erase)
    answer(editor.erase_confirm, "yes")
    qtbot.waitUntil(lambda: not editor.busy, timeout=WAIT_MS)

    assert skill_library.store.get(flags.id) is None
    assert not (skill_library.directory / DELETED / "Fold flags.md").exists()
    assert skill_library.read(tea.id).text == TEA
    assert editor.notice.text() == "Erased 1 skill for good."
    assert MARKER not in on_disk(database)
    editor.show_tab("active")
    assert editor.skill_names() == ["Brew tea"]
