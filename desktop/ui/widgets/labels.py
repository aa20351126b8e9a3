"""What a widget is called, and how counts and moments read in every window."""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

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
