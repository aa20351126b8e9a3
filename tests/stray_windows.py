"""Which widgets open as windows of their own while a block runs.

A widget shown before a layout takes it is a window for that moment: it
flashes on screen, and Qt drops the quit it planned when the last window was
closed (a window shown cancels it).  Reverie's own windows are shown on
purpose; a label or a button that opens as one is a stray.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget


class _Opened(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and isinstance(watched, QWidget) and watched.isWindow():
            self.names.append(watched.objectName() or type(watched).__name__)
        return False


@contextmanager
def windows_opened() -> Iterator[list[str]]:
    """The object names (or class names) of the widgets opened as windows
    in the block, in order."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    opened = _Opened()
    app.installEventFilter(opened)
    try:
        yield opened.names
    finally:
        app.removeEventFilter(opened)
