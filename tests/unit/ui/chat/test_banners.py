"""The banner above the conversation: a long problem (a damaged database's
way back to a sound copy) was cut off at its foot in a small window, with
no way to read the rest."""

from __future__ import annotations

from PySide6.QtWidgets import QScrollArea
from pytestqt.qtbot import QtBot

from desktop.ui.chat.banners import BANNER_LINES
from desktop.ui.chat.window import ChatWindow

LONG = " ".join(f"Sentence {n} of what went wrong and the way back." for n in range(40))


def _shown(qtbot: QtBot, window: ChatWindow, text: str) -> QScrollArea:
    window.resize(640, 480)
    window.show()
    qtbot.waitExposed(window)
    window.show_problem(text)
    qtbot.wait(50)  # the layout settles
    return window.banner.text_area


def test_a_long_problem_scrolls_in_a_small_window_and_all_of_it_can_be_read(
    qtbot: QtBot, window: ChatWindow
) -> None:
    area = _shown(qtbot, window, LONG)
    lines = area.height() / area.fontMetrics().lineSpacing()
    assert 2 < lines <= BANNER_LINES
    label = window.banner.label
    assert label.height() >= label.heightForWidth(label.width())  # none of it cut off
    bar = area.verticalScrollBar()
    assert bar.isVisible() and bar.maximum() > 0
    bar.setValue(bar.maximum())  # the last words can be scrolled to
    assert window.banner.label.geometry().bottom() <= area.viewport().height() + 1
    assert window.transcript.height() > 3 * area.height() // 2  # the conversation stays


def test_a_short_problem_takes_the_height_of_its_text(qtbot: QtBot, window: ChatWindow) -> None:
    area = _shown(qtbot, window, "The chat model could not load.")
    assert not area.verticalScrollBar().isVisible()
    assert area.height() <= 2 * area.fontMetrics().lineSpacing()
    window.show_problem(LONG)  # then a longer one grows it
    qtbot.wait(50)
    assert area.height() > 3 * area.fontMetrics().lineSpacing()


def test_the_way_back_stays_when_the_problem_over_it_is_fixed(
    qtbot: QtBot, window: ChatWindow
) -> None:
    # Round 19: a chat model loaded after a failed one cleared the banner,
    # the damaged database's report with it.
    window.show_damage("Reverie's database is damaged. The newest sound copy is X.")
    window.set_chat_available(False, "The chat model could not load.")
    assert "could not load" in window.banner.text() and "sound copy" in window.banner.text()
    window.set_chat_available(True, "")
    assert window.banner.text() == "Reverie's database is damaged. The newest sound copy is X."
    assert window.banner.isVisibleTo(window)
