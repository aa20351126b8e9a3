"""What a widget is called, how counts and moments read in every window, and
how a label or a tooltip shows text the user or a model wrote (as written,
in its stored order)."""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from desktop.ui.widgets.bidi import stored_order

W = TypeVar("W", bound=QWidget)


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
    label = QLabel(stored_order(text))
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
    dropping the tag and styling or loading what it names.  In its stored
    order (``bidi.stored_order``)."""
    return (
        QtGui.Qt.convertFromPlainText(stored_order(text), Qt.WhiteSpaceMode.WhiteSpaceNormal)
        if text
        else ""
    )
