"""Round 32 of issue 15: text with bidirectional overrides in the windows.

A message typed as "\\u202eevil\\u202c tab" showed in the transcript as
"live tab", and a message recalled in a chip under a reply the same way: the
override reordered it on screen (titles, tasks and memories are stored
without it).  Each is checked where Qt lays it out (the x of each
letter, in the order stored), and Copy still copies the text as stored.
"""

from __future__ import annotations

from typing import cast

from PySide6.QtGui import QFont, QGuiApplication, QTextDocument, QTextLayout, QTextLine
from pytestqt.qtbot import QtBot

from desktop.core.db.message_search import Excerpt
from desktop.ui.chat.transcript import Transcript
from desktop.ui.chat.window import ChatWindow
from tests.unit.ui.conftest import say

OVERRIDDEN = "\u202eevil\u202c tab"


def _x(line: QTextLine, index: int) -> float:
    """Where the character at *index* is drawn (the binding returns it with
    the index, typed as an object)."""
    return cast(tuple[float, int], line.cursorToX(index))[0]


def _xs_in_line(text: str, font: QFont) -> list[float]:
    """The x at which Qt draws each letter of *text* (one line), in the
    order the letters are stored."""
    layout = QTextLayout(text, font)
    layout.beginLayout()
    line = layout.createLine()
    layout.endLayout()
    return [_x(line, index) for index, char in enumerate(text) if char.isalpha()]


def _xs_in_html(html: str, font: QFont, word: str) -> list[float]:
    """The x of each letter of the line of *html* holding *word*."""
    document = QTextDocument()
    document.setDefaultFont(font)
    document.setHtml(html)
    document.setTextWidth(2_000)
    found = document.find(word)
    block = found.block()
    document.documentLayout().blockBoundingRect(block)  # lays the paragraph out
    line = block.layout().lineForTextPosition(found.position() - block.position())
    start, end = line.textStart(), line.textStart() + line.textLength()
    text = block.text()
    return [_x(line, index) for index in range(start, end) if text[index].isalpha()]


def test_an_override_in_a_message_shows_its_letters_in_the_order_stored(
    qtbot: QtBot, window: ChatWindow
) -> None:
    say(qtbot, window, OVERRIDDEN)
    view = next(view for view in window.transcript.messages if view.role == "user")

    xs = _xs_in_html(view.body.text(), view.body.font(), "tab")
    assert len(xs) == len("eviltab") and xs == sorted(xs), xs  # not "live"
    view.copy()
    assert QGuiApplication.clipboard().text() == OVERRIDDEN  # as stored


def test_an_override_in_a_recalled_message_shows_in_its_chip_in_the_order_stored(
    qtbot: QtBot,
) -> None:
    transcript = Transcript()
    qtbot.addWidget(transcript)
    view = transcript.add_message("assistant", "Here you go.", 1)
    view.show_excerpts([Excerpt(5, 2, "Bills", 1_700_000_000.0, "user", OVERRIDDEN)])
    [chip] = view.excerpt_chips

    xs = _xs_in_line(chip.text(), chip.font())
    assert len(xs) == len("Bills") + len("Nov") + len("eviltab") and xs == sorted(xs), xs
    xs = _xs_in_html(chip.toolTip(), chip.font(), "tab")  # and its tip
    assert xs == sorted(xs), xs
