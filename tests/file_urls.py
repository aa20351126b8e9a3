"""Qt's own URL handler mechanism, catching the folders Reverie asks the
system to show (``QDesktopServices.setUrlHandler``): no file manager opens."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices


class OpenedUrls(QObject):
    """Receives every ``file:`` URL opened while it is the handler."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[Path] = []

    @Slot(QUrl)
    def open_url(self, url: QUrl) -> None:
        assert url.isLocalFile(), url.toString()
        self.opened.append(Path(url.toLocalFile()))


@contextmanager
def catching_file_urls() -> Iterator[OpenedUrls]:
    receiver = OpenedUrls()
    # The stub says bytes; the binding refuses them and takes the slot's name.
    QDesktopServices.setUrlHandler("file", receiver, "open_url")  # type: ignore[arg-type]
    try:
        yield receiver
    finally:
        QDesktopServices.unsetUrlHandler("file")
