"""Round 33: an unsaved memory edit is never dropped quietly.

The skill and task editors asked before unsaved edits went; the memory
browser dropped them: choosing another memory in the list showed it, and
the memory typed into read as before, unsaid (and quitting Reverie did not
ask either).  Now it asks as they do: Save, Discard changes or Keep editing.
"""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.core.memory.service import MemoryService
from desktop.ui.memory.browser import MemoryBrowser
from tests.unit.ui.memory.test_memory_browser import remember, settle
from tests.unit.ui.skills.test_skill_editor import answer

TEA, COFFEE = "The user drinks green tea every morning.", "The user drinks black coffee."
CAT = "The user has a cat named Miso."


def test_choosing_another_memory_asks_about_the_edit(
    qtbot: QtBot, memories: MemoryService, browser: MemoryBrowser
) -> None:
    tea, cat = remember(memories, TEA), remember(memories, CAT)
    browser.refresh()
    browser.select([tea.id])
    browser.detail.editor.setPlainText(COFFEE)

    browser.select([cat.id])
    dialog = browser.unsaved.dialog
    assert dialog is not None and dialog.text() == (
        f"You changed memory #{tea.id} and did not save it. Save before leaving it?"
    )
    answer(qtbot, dialog, "Keep editing")
    assert [m.id for m in browser.selected_memories()] == [tea.id]
    assert browser.detail.editor.toPlainText() == COFFEE

    browser.select([cat.id])
    answer(qtbot, browser.unsaved.dialog, "Save")
    settle(qtbot, browser)
    saved = memories.store.get(tea.id)
    assert saved is not None and saved.content == COFFEE
    assert browser.detail.memory is not None and browser.detail.memory.id == cat.id

    browser.detail.editor.setPlainText("The user has a dog.")
    browser.select([tea.id])
    answer(qtbot, browser.unsaved.dialog, "Discard changes")
    assert browser.detail.memory is not None and browser.detail.memory.id == tea.id
    kept = memories.store.get(cat.id)
    assert kept is not None and kept.content == CAT


def test_an_edited_memory_a_search_leaves_out_stays_with_the_typing(
    qtbot: QtBot, memories: MemoryService, browser: MemoryBrowser
) -> None:
    tea, cat = remember(memories, TEA), remember(memories, CAT)
    browser.refresh()
    browser.select([tea.id])
    browser.detail.editor.setPlainText(COFFEE)

    browser.filters.search.setText("Miso")
    qtbot.waitUntil(lambda: browser.memory_ids() == [cat.id])
    assert browser.unsaved.dialog is None  # no question while typing a search
    assert browser.detail.memory is not None and browser.detail.memory.id == tea.id
    assert browser.detail.editor.toPlainText() == COFFEE

    browser.select([cat.id])  # chosen: now it asks
    answer(qtbot, browser.unsaved.dialog, "Discard changes")
    assert browser.detail.memory is not None and browser.detail.memory.id == cat.id
