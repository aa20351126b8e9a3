"""Round 5 of the attacks on "Delete now": when the rows went but compacting
the file failed (a full disk), the erasure is not finished
(``ErasedNotFinished``).  That is no error: what was asked is gone, and the
rest finishes at the next maintenance.  The memory browser and the chat
window say so in a calm notice, not in the error banner."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore, DiskFull
from desktop.core.db.purge import PurgeStore
from desktop.core.memory.service import MemoryService
from desktop.ui.chat.window import ChatWindow
from desktop.ui.memory.browser import MemoryBrowser

WAIT_MS = 10_000


@pytest.fixture
def disk_fills_while_compacting(monkeypatch: pytest.MonkeyPatch) -> None:
    def disk_full(self: PurgeStore) -> object:
        raise DiskFull("Reverie cannot write: database or disk is full. Nothing was changed.")

    monkeypatch.setattr(PurgeStore, "compact", disk_full)


@pytest.mark.usefixtures("disk_fills_while_compacting")
def test_the_memory_browser_says_calmly_what_is_gone_and_what_finishes_later(
    qtbot: QtBot, memories: MemoryService, browser: MemoryBrowser
) -> None:
    cookbook = memories.remember(
        "Keeps the recipes in the blue cookbook", source_kind="user_explicit", actor="user"
    ).memory
    browser.refresh()

    browser.erase([cookbook.id])
    qtbot.waitUntil(lambda: not browser.busy, timeout=WAIT_MS)

    assert memories.store.get(cookbook.id) is None
    assert not browser.problem.isVisible()
    assert browser.notice.isVisible()
    said = browser.notice.text()
    assert said.startswith("Erased 1 memory for good.")
    assert "next maintenance" in said
    assert "failed" not in said
    assert "disk is full" in browser.notice.toolTip()  # the details, for who wants them
    assert browser.memory_ids() == []


@pytest.mark.usefixtures("disk_fills_while_compacting")
def test_the_chat_window_says_calmly_what_is_gone_and_what_finishes_later(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore
) -> None:
    gone = store.create("Quinces")
    store.add_message(gone.id, "user", "The quince jam recipe is in the blue folder.")

    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        window.conversations.erase(gone.id)

    assert store.get(gone.id) is None
    assert not window.banner.isVisible()
    said = window.transcript.plain_text()
    assert "Erased 1 conversation for good." in said
    assert "next maintenance" in said
    assert "not erased" not in said
