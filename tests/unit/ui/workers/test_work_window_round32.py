"""Round 32 of issue 15: a worker's words with a right-to-left override.

A worker's transcript and result are what a model wrote; an override in them
("\\u202eevil\\u202c tab") showed in the Work window as "live tab".  They now
show in their stored order (checked where Qt lays the text out)."""

from __future__ import annotations

from typing import cast

from PySide6.QtGui import QTextLine

from desktop.core.db import Database
from desktop.core.db.workers import WorkerStore
from desktop.ui.workers.window import WorkWindow
from tests.unit.ui.workers.test_work_window import dag, window, workers
from tests.work import FiveWorkers

__all__ = ["dag", "window", "workers"]  # the Work window's fixtures

OVERRIDDEN = "\u202eevil\u202c tab"


def _letters_in_order(line: QTextLine, text: str) -> bool:
    xs = [
        cast(tuple[float, int], line.cursorToX(index))[0]
        for index, char in enumerate(text)
        if char.isalpha()
    ]
    return xs == sorted(xs)


def test_a_worker_s_transcript_shows_in_its_stored_order(
    window: WorkWindow, dag: FiveWorkers, database: Database
) -> None:
    WorkerStore(database).add_message(dag.completed, "assistant", OVERRIDDEN)
    window.select(dag.failed)
    window.select(dag.completed)

    document = window.transcript.document()
    found = document.find("tab")
    block = found.block()
    layout = block.layout()
    line = layout.lineForTextPosition(found.position() - block.position())
    assert line.isValid() and _letters_in_order(line, block.text()), block.text()
