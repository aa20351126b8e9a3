""" "Delete now": a memory, a topic's memories or a conversation erased for
good from the windows, after a question that says it cannot be undone."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore, Database, Memory
from desktop.core.dreaming.erasure import DAY, Eraser
from desktop.core.memory.service import MemoryService
from desktop.ui.chat.conversation_list import ConversationList
from desktop.ui.memory.browser import MemoryBrowser
from desktop.ui.memory.views import erase_deadline
from desktop.ui.widgets.erase_confirm import CANNOT_BE_UNDONE

WAIT_MS = 10_000
MARKER = b"zorblattian"


def remember(memories: MemoryService, text: str) -> Memory:
    return memories.remember(text, source_kind="user_explicit", actor="user").memory


def answer(box: QMessageBox | None, button: str) -> None:
    """Click *button* ("yes" or "cancel") of the open erase question."""
    assert box is not None and box.isVisible()
    found = box.findChild(QPushButton, f"erase-confirm-{button}")
    assert found is not None
    found.click()


def on_disk(database: Database) -> bytes:
    return b"".join(
        path.read_bytes().lower() for path in database.path.parent.glob(f"{database.path.name}*")
    )


def test_delete_now_asks_first_then_erases_the_memory_from_the_file(
    qtbot: QtBot, database: Database, memories: MemoryService, browser: MemoryBrowser
) -> None:
    cookbook = remember(memories, "Keeps the recipes in the Zorblattian cookbook")
    tea = remember(memories, "Drinks green tea every morning")
    browser.refresh()
    browser.select([cookbook.id])
    erase = browser.detail.erase_button
    assert erase.isVisible() and erase.text() == "Delete now…"

    qtbot.mouseClick(erase, Qt.MouseButton.LeftButton)
    assert browser.erase_confirm is not None
    assert browser.erase_confirm.informativeText() == CANNOT_BE_UNDONE
    assert browser.erase_confirm.defaultButton().objectName() == "erase-confirm-cancel"
    answer(browser.erase_confirm, "cancel")
    assert memories.store.get(cookbook.id) is not None  # nothing without a yes

    qtbot.mouseClick(erase, Qt.MouseButton.LeftButton)
    answer(browser.erase_confirm, "yes")
    qtbot.waitUntil(lambda: not browser.busy, timeout=WAIT_MS)

    assert memories.store.get(cookbook.id) is None
    assert memories.store.get(tea.id) is not None
    assert browser.memory_ids() == [tea.id]
    assert browser.notice.text() == "Erased 1 memory for good."
    assert MARKER not in on_disk(database)


def test_a_deleted_memory_says_until_when_it_can_be_restored_and_can_be_erased(
    qtbot: QtBot, memories: MemoryService, browser: MemoryBrowser, eraser: Eraser
) -> None:
    cookbook = remember(memories, "Keeps the recipes in the Zorblattian cookbook")
    memories.set_status([cookbook.id], "deleted")
    deleted_at = eraser._purge.deleted_at([cookbook.id])[cookbook.id]
    browser.filters.show_everything_with("deleted")
    browser.refresh()
    browser.select([cookbook.id])

    until = browser.detail.facts.text().splitlines()[-1]
    assert until == erase_deadline(deleted_at + 30 * DAY)
    assert until.startswith("Deleted: restorable until ")
    assert browser.detail.restore_button.isVisible()

    browser.items.setFocus()
    qtbot.keyClick(browser.items, Qt.Key.Key_Delete, Qt.KeyboardModifier.ShiftModifier)
    answer(browser.erase_confirm, "yes")
    qtbot.waitUntil(lambda: not browser.busy, timeout=WAIT_MS)

    assert memories.store.get(cookbook.id) is None


def test_forget_a_topic_now_for_good_erases_the_checked_memories(
    qtbot: QtBot, memories: MemoryService, browser: MemoryBrowser
) -> None:
    green = remember(memories, "The user drinks green tea every morning.")
    iced = remember(memories, "The user likes iced tea in summer.")
    hives = remember(memories, "The user keeps two beehives on the roof.")
    browser.preview_forget("tea")
    qtbot.waitUntil(lambda: browser.forget_preview is not None, timeout=WAIT_MS)
    preview = browser.forget_preview
    assert preview is not None and preview.erase_button.isVisible()
    assert "forget them now, for good" in preview.intro.text()

    qtbot.mouseClick(preview.erase_button, Qt.MouseButton.LeftButton)
    assert browser.erase_confirm is not None
    assert browser.erase_confirm.text() == "Delete 2 memories about “tea” now, for good?"
    answer(browser.erase_confirm, "yes")
    qtbot.waitUntil(lambda: not browser.busy, timeout=WAIT_MS)

    assert memories.store.get(green.id) is None and memories.store.get(iced.id) is None
    assert memories.store.get(hives.id) is not None


def test_without_an_eraser_there_is_no_delete_now(
    qtbot: QtBot, memories: MemoryService, store: ConversationStore
) -> None:
    tea = remember(memories, "Drinks green tea every morning")
    window = MemoryBrowser(memories, store)
    qtbot.addWidget(window)
    window.show()
    window.select([tea.id])
    assert window.detail.delete_button.isVisible()
    assert not window.detail.erase_button.isVisible()
    window.shutdown()


@pytest.fixture
def side_list(qtbot: QtBot) -> ConversationList:
    widget = ConversationList()
    qtbot.addWidget(widget)
    widget.show()
    return widget


def test_a_conversation_is_erased_for_good_from_the_list_after_a_yes(
    qtbot: QtBot,
    database: Database,
    store: ConversationStore,
    eraser: Eraser,
    side_list: ConversationList,
) -> None:
    kept = store.create("Tea")
    gone = store.create("Cousins")
    store.add_message(gone.id, "user", "My cousin Zorblattian lives by the lighthouse")
    side_list.show_conversations(store.list(), kept.id)
    side_list.erase_requested.connect(lambda i: eraser.erase_conversations([i]))

    menu = side_list.menu_for(gone.id)
    assert [a.text() for a in menu.actions()] == ["Rename…", "Delete…", "Delete now…"]
    menu.actions()[2].trigger()
    answer(side_list.erase_confirm, "cancel")
    assert store.get(gone.id) is not None
    menu.actions()[2].trigger()
    with qtbot.waitSignal(side_list.erase_requested, timeout=WAIT_MS) as asked:
        answer(side_list.erase_confirm, "yes")

    assert asked.args == [gone.id]
    assert store.get(gone.id) is None and store.get(kept.id) is not None
    assert MARKER not in on_disk(database)


def test_recently_deleted_lists_them_with_their_last_day_to_restore_or_erase(
    qtbot: QtBot, store: ConversationStore, eraser: Eraser, side_list: ConversationList
) -> None:
    gone = store.create("Cousins")
    store.delete(gone.id)
    deleted = store.deleted()
    [conversation] = deleted
    assert conversation.deleted_at is not None
    erased_on = {gone.id: eraser.conversation_erased_on(conversation.deleted_at)}

    with qtbot.waitSignal(side_list.deleted_shown) as shown:
        side_list.deleted_button.click()
    assert shown.args == [True] and side_list.showing_deleted
    assert side_list.deleted_button.text() == "Back to conversations"
    side_list.show_deleted(deleted, erased_on)

    text = side_list.items.item(0).text()
    assert text.startswith("Cousins  · until ")
    assert side_list.deleted_note.isVisible()
    menu = side_list.menu_for(gone.id)
    assert [a.text() for a in menu.actions()] == ["Restore", "Delete now…"]
    with qtbot.waitSignal(side_list.restore_requested) as restored:
        menu.actions()[0].trigger()
    assert restored.args == [gone.id]
    with qtbot.assertNotEmitted(side_list.selected):
        side_list.items.itemClicked.emit(side_list.items.item(0))

    side_list.items.setCurrentRow(0)
    side_list.items.setFocus()
    qtbot.keyClick(side_list, Qt.Key.Key_Delete)  # in the deleted list, Del erases: asked first
    answer(side_list.erase_confirm, "cancel")


def test_shift_del_in_the_list_asks_to_erase(
    qtbot: QtBot, store: ConversationStore, side_list: ConversationList
) -> None:
    kept = store.create("Tea")
    side_list.show_conversations(store.list(), kept.id)
    side_list.items.setFocus()
    qtbot.keyClick(side_list, Qt.Key.Key_Delete, Qt.KeyboardModifier.ShiftModifier)
    assert side_list.erase_confirm is not None
    answer(side_list.erase_confirm, "cancel")
    assert store.get(kept.id) is not None
