"""What a widget is called, how counts and moments read in every window, and
how a label or a tooltip shows text the user or a model wrote."""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import TypeVar

from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

W = TypeVar("W", bound=QWidget)

BREAK_EVERY = 20
"""Characters of a run without spaces between the places a label may break it."""
_ZERO_WIDTH_SPACE = "\u200b"
_JOINER = "\u200d"


def named(widget: W, name: str, accessible: str = "") -> W:
    """*widget* with an object name (for the style sheet and tests) and an accessible name."""
    widget.setObjectName(name)
    if accessible:
        widget.setAccessibleName(accessible)
    return widget


def plain_label(text: str = "") -> QLabel:
    """A label showing *text*, and whatever it is set to later, as written:
    one left to guess (Qt's default) reads a line holding a tag as HTML,
    so a conversation titled "<h1>Budget</h1>" or a search for "<code>"
    showed as a heading, or as nothing in a typewriter font."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def count(n: int, one: str = "memory", many: str = "memories") -> str:
    return f"{n} {one if n == 1 else many}"


def when(timestamp: float) -> str:
    moment = datetime.fromtimestamp(timestamp)
    return f"{moment.day} {moment:%b %Y, %H:%M}"


def plain_tip(text: str) -> str:
    """*text* as a tooltip shows it: as written.  Qt reads a tip whose first
    line holds a tag ("<b>notes</b>", a pasted page, "<img src=...>") as HTML,
    dropping the tag and styling or loading what it names."""
    return QtGui.Qt.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpaceNormal) if text else ""


def wrappable(text: str, every: int = BREAK_EVERY) -> str:
    """*text* with a zero-width space every *every* characters of a run
    without spaces (a long link, a pasted key), for a word-wrapped label to
    break it at: unbroken, it made the label as wide as the run, and a panel
    that never scrolls sideways cut off every line of it on the right.

    A mark, a joiner or what a joiner joins stays with the character before
    it (a break there would split an accent or an emoji)."""
    shown: list[str] = []
    run = 0
    for char in text:
        if char.isspace():
            run = 0
        elif run >= every and _starts_a_character(char, shown[-1]):
            shown.append(_ZERO_WIDTH_SPACE)
            run = 0
        shown.append(char)
        run += not char.isspace()
    return "".join(shown)


def unwrapped(text: str) -> str:
    """*text* without the breaks ``wrappable`` put in (for a screen reader)."""
    return text.replace(_ZERO_WIDTH_SPACE, "")


def _starts_a_character(char: str, before: str) -> bool:
    return (
        before != _JOINER
        and char != _JOINER
        and unicodedata.category(char) not in ("Mn", "Me", "Mc", "Cf")
        and not 0xFE00 <= ord(char) <= 0xFE0F  # a variation selector
        and not 0x1F3FB <= ord(char) <= 0x1F3FF  # a skin tone
    )
