"""Round 22: the memory browser's export never writes over Reverie's own
files (the app gives it its folders); it says why instead."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore
from desktop.core.memory.service import MemoryService
from desktop.ui.memory.browser import MemoryBrowser


def test_an_export_over_the_database_is_refused_and_said(
    qtbot: QtBot, memories: MemoryService, store: ConversationStore, user_dirs: AppPaths
) -> None:
    target = user_dirs.database_file
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"SQLite format 3\x00 as it was")
    browser = MemoryBrowser(memories, store, own=user_dirs)
    qtbot.addWidget(browser)

    assert not browser.export_memories(target, "markdown")

    assert target.read_bytes() == b"SQLite format 3\x00 as it was"
    assert "one of Reverie's own files" in browser.problem.text()
    browser.shutdown()
