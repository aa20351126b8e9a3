"""Model downloads off the UI thread, one at a time, each with pause and cancel.

A download is ``ModelLibrary.download`` run on a worker thread with a
``DownloadState`` whose progress becomes a queued signal; pausing or
cancelling is called on the state from the UI thread and takes effect within
one read.  A paused download keeps its part file, so it resumes (here, or
after a restart) where it stopped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from desktop.core.backends.library import ModelLibrary
from desktop.core.base.text import size_text
from desktop.ui.widgets.worker import TaskDone, TaskFailed, WorkerThread
from models.catalog import CatalogEntry
from models.download import Downloader, DownloadProgress, DownloadState
from models.errors import DownloadCancelled, DownloadPaused

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DownloadUpdate:
    """Where one model's download stands (a signal's payload)."""

    model_id: str
    state: str
    """"queued", "downloading", "paused", "cancelled", "done" or "failed"."""
    progress: DownloadProgress | None = None
    message: str = ""
    path: Path | None = None


class Downloads(QObject):
    """Signals:
    changed(DownloadUpdate): a download was queued, moved on, or ended.
    """

    changed = Signal(object)

    def __init__(
        self,
        library: ModelLibrary,
        endpoint: Callable[[], str],
        parent: QObject | None = None,
        downloader: Downloader | None = None,
    ) -> None:
        """*endpoint* gives the Hub's address at the moment a download starts
        (called on the downloads' thread: it only reads the settings)."""
        super().__init__(parent)
        self._library = library
        self._endpoint = endpoint
        self._downloader = downloader or Downloader()
        self._states: dict[str, DownloadState] = {}
        self._thread = WorkerThread("downloads", self)
        self._thread.worker.done.connect(self._on_done)
        self._thread.worker.failed.connect(self._on_failed)
        self._order: list[str] = []

    def active(self, model_id: str) -> bool:
        """Is *model_id* queued or downloading?"""
        return model_id in self._states

    def start(self, entry: CatalogEntry) -> None:
        """Queue *entry*'s download (resuming what a paused one kept)."""
        if entry.id in self._states:
            return
        state = DownloadState(
            lambda progress: self.changed.emit(DownloadUpdate(entry.id, "downloading", progress))
        )
        self._states[entry.id] = state
        self._order.append(entry.id)
        self.changed.emit(DownloadUpdate(entry.id, "queued"))

        def download(_listener: object) -> DownloadUpdate:
            # The Hub as the settings name it now: a mirror set while this
            # one waited its turn is the one asked.
            endpoint = self._endpoint()
            try:
                path = self._library.download(
                    entry, state, endpoint=endpoint, downloader=self._downloader
                )
            except DownloadPaused as stopped:
                return DownloadUpdate(entry.id, "paused", message=_kept(stopped.received))
            except DownloadCancelled:
                return DownloadUpdate(entry.id, "cancelled")
            return DownloadUpdate(entry.id, "done", path=path)

        self._thread.submit(download)

    def pause(self, model_id: str) -> None:
        if (state := self._states.get(model_id)) is not None:
            state.pause()

    def cancel(self, model_id: str) -> None:
        if (state := self._states.get(model_id)) is not None:
            state.cancel()

    def stop(self) -> None:
        """Pause every download (parts are kept) and end the thread."""
        for state in list(self._states.values()):
            state.pause()
        self._thread.stop()
        self._downloader.close()

    def _finished(self) -> str:
        # The worker runs downloads in the order they were queued.
        model_id = self._order.pop(0)
        del self._states[model_id]
        return model_id

    def _on_done(self, done: TaskDone) -> None:
        self._finished()
        self.changed.emit(done.result)

    def _on_failed(self, failure: TaskFailed) -> None:
        model_id = self._finished()
        self.changed.emit(DownloadUpdate(model_id, "failed", message=failure.message))


def _kept(received: int) -> str:
    return f"Paused; the {size_text(received)} downloaded so far are kept."
