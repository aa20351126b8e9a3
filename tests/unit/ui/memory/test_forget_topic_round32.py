"""Round 32: "Forget everything about “tea”" forgot the memories alone.

The preview was titled so, while the conversations kept what the user said
about it, and those of their messages no forgotten memory was learned from
could still be recalled into a reply.  The preview now says what it
forgets and what stays."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.core.memory.service import MemoryService
from desktop.ui.memory.browser import MemoryBrowser
from tests.unit.ui.memory.test_delete_now import WAIT_MS, remember


def test_the_topic_preview_says_the_conversations_keep_what_was_said(
    qtbot: QtBot, memories: MemoryService, browser: MemoryBrowser
) -> None:
    remember(memories, "The user drinks green tea every morning.")
    browser.preview_forget("tea")
    qtbot.waitUntil(lambda: browser.forget_preview is not None, timeout=WAIT_MS)
    preview = browser.forget_preview
    assert preview is not None

    assert preview.windowTitle() == "Forget the memories about “tea”"
    assert preview.intro.text().endswith(
        "Your conversations keep what you said: the messages these were learned from are "
        "no longer recalled, the others may be (delete a conversation to have it gone)."
    )
