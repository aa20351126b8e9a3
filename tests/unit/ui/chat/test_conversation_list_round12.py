"""The conversation search box with a pasted text far longer than anything
searched for (round 12: 17,000 CJK characters went to SQLite as a LIKE
pattern over its 50,000-byte limit and ``QueryFailed`` escaped the window's
refresh, outside its guard)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.core.db.conversations import SEARCH_MAX_CHARS
from desktop.ui.chat.window import ChatWindow
from tests.unit.ui.conftest import WAIT_MS, say


def test_a_pasted_search_text_too_long_to_search_for_is_cut_with_a_note(
    qtbot: QtBot, window: ChatWindow
) -> None:
    say(qtbot, window, "晚饭吃什么")
    listing = window.conversation_list

    with qtbot.waitSignal(listing.search_changed, timeout=WAIT_MS):
        listing.search.setText("中" * 17_000)

    assert len(listing.search.text()) == SEARCH_MAX_CHARS
    assert listing.nothing_found.isVisible()
    assert f"first {SEARCH_MAX_CHARS:,} characters" in listing.nothing_found.text()
    assert len(listing.nothing_found.text()) < 200  # the text searched for is not repeated whole
    assert not window.banner.isVisible()
