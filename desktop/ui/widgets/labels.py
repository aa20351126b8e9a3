"""What a widget is called, and how counts, moments and tooltips read in every window."""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as QtText
from PySide6.QtWidgets import QWidget

W = TypeVar("W", bound=QWidget)


def named(widget: W, name: str, accessible: str = "") -> W:
    """*widget* with an object name (for the style sheet and tests) and an accessible name."""
    widget.setObjectName(name)
    if accessible:
        widget.setAccessibleName(accessible)
    return widget


def count(n: int, one: str = "memory", many: str = "memories") -> str:
    return f"{n} {one if n == 1 else many}"


def when(timestamp: float) -> str:
    moment = datetime.fromtimestamp(timestamp)
    return f"{moment.day} {moment:%b %Y, %H:%M}"


def plain_tip(text: str) -> str:
    """*text* (a user's or a model's) as a tooltip shows it: never read as
    HTML, which Qt does to a tip that might be ("<b>notes</b>", a pasted page)."""
    return QtText.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpaceNormal)
