"""The Import and export window: everything Reverie holds written to one
archive, and an archive or another assistant's history brought in.

An import is previewed first (what it would add, what is already here, what
would be skipped and why), then runs on a thread of its own at idle
priority, with progress and a Cancel that leaves nothing half-imported.
The window never waits on the files or the database.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QThread, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.transfer.archive import ExportSummary
from desktop.core.transfer.imports import ImportOutcome, ImportPlan, Imports, exported_text
from desktop.ui.widgets.app_window import AppWindow
from desktop.ui.widgets.labels import named, plain_label
from desktop.ui.widgets.worker import TaskQueue

Exporter = Callable[[Path], ExportSummary]
"""Writes the whole app to an archive at the path given."""
_FILES = "Archives and exports (*.zip *.json);;All files (*)"


class _WindowState(QObject):
    """The ``ImportState`` the window gives an import: progress as a signal
    (queued to the window's thread), cancelled by the Cancel button."""

    progressed = Signal(int, int)

    def __init__(self) -> None:
        super().__init__()
        self._cancelled = threading.Event()

    def set_progress(self, done: int, total: int) -> None:
        self.progressed.emit(done, total)

    def is_cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        self._cancelled.set()


class TransferWindow(AppWindow):
    """Signals:
    imported(): an import added something (conversations, memories...).
    """

    imported = Signal()

    def __init__(
        self,
        imports: Imports,
        export: Exporter,
        parent: QWidget | None = None,
        *,
        refusal: Callable[[], str] = lambda: "",
    ) -> None:
        """*refusal*: why nothing may be imported now ("" if it may)."""
        super().__init__(parent)
        self.setWindowTitle("Import and export — Reverie")
        self._imports, self._export, self._refusal = imports, export, refusal
        self._queue = TaskQueue("transfer", self)
        self._queue.worker_thread.qthread.setPriority(QThread.Priority.IdlePriority)
        self._plan: ImportPlan | None = None
        self._state: _WindowState | None = None
        self.export_button = named(
            QPushButton("Export everything…"), "transfer-export", "Export everything"
        )
        self.choose_button = named(
            QPushButton("Choose a file to import…"), "transfer-choose", "Choose a file to import"
        )
        self.preview = named(plain_label(), "transfer-preview", "What importing it would do")
        self.preview.setWordWrap(True)
        self.learn = named(
            QCheckBox("Learn about me from these conversations"),
            "transfer-learn",
            "Learn memories from the imported conversations",
        )
        self.learn.setChecked(True)
        self.learn.setToolTip(
            "Reverie reads imported conversations in the background, as it reads yours, "
            "and remembers what matters. Unchecked, they are only kept and searchable."
        )
        self.import_button = named(QPushButton("Import"), "transfer-import", "Import it")
        self.cancel_button = named(QPushButton("Cancel"), "transfer-cancel", "Cancel the import")
        self.progress = named(QProgressBar(), "transfer-progress", "Import progress")
        self.build_status_lines("transfer")
        self._lay_out()
        for closing in (QKeySequence.StandardKey.Close, Qt.Key.Key_Escape):  # as every window
            QShortcut(QKeySequence(closing), self, self.close)
        self.export_button.clicked.connect(self.choose_export)
        self.choose_button.clicked.connect(self.choose_import)
        self.import_button.clicked.connect(self.start_import)
        self.cancel_button.clicked.connect(self.cancel)
        self._show_plan(None)

    def _lay_out(self) -> None:
        layout = QVBoxLayout(self)
        for heading, text, button in (
            (
                "Export everything",
                "Your conversations, memories with their history, tasks, skills, dreams and "
                "settings, in one archive file you can import on another computer. "
                "Secrets are never in it.",
                self.export_button,
            ),
            (
                "Import",
                "A Reverie archive, or your history from ChatGPT or Claude: the .zip of "
                "their data export, or its conversations.json. Nothing is changed "
                "before you have seen what it would add.",
                self.choose_button,
            ),
        ):
            title = QLabel(f"<b>{heading}</b>")
            said = QLabel(text)
            said.setWordWrap(True)
            layout.addWidget(title)
            layout.addWidget(said)
            row = QHBoxLayout()
            row.addWidget(button)
            row.addStretch(1)
            layout.addLayout(row)
            layout.addSpacing(8)
        layout.addWidget(self.preview)
        layout.addWidget(self.learn)
        buttons = QHBoxLayout()
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.progress, 3)
        buttons.addStretch(1)  # the buttons at their size while there is no progress
        layout.addLayout(buttons)
        layout.addWidget(self.notice)
        layout.addWidget(self.problem)
        layout.addStretch(1)
        self.resize(560, 480)

    def refresh(self) -> None:
        """Nothing it shows is read from the database: a preview is kept as it was."""

    @property
    def busy(self) -> bool:
        return self._queue.busy

    # -- exporting -------------------------------------------------------------
    def choose_export(self) -> None:
        suggested = Path.home() / f"reverie-{date.today().isoformat()}.zip"
        chosen, _ = QFileDialog.getSaveFileName(
            self, "Export everything", str(suggested), "Reverie archive (*.zip)"
        )
        if chosen:
            self.export_to(Path(chosen))

    def export_to(self, path: Path) -> None:
        """Write the archive at *path* (the file dialog asked about replacing it)."""
        self._working(f"Exporting to {path}…")
        self._queue.run(lambda: self._export(path), self._exported, self._failed)

    def _exported(self, summary: object) -> None:
        assert isinstance(summary, ExportSummary)
        self._finished(exported_text(summary))

    # -- importing -------------------------------------------------------------
    def choose_import(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(self, "Import", str(Path.home()), _FILES)
        if chosen:
            self.preview_file(Path(chosen))

    def preview_file(self, path: Path) -> None:
        """Read *path* and say what importing it would do; import nothing yet."""
        self._show_plan(None)
        self._working(f"Reading {path}…")
        self._queue.run(lambda: self._imports.preview(path), self._previewed, self._failed)

    def _previewed(self, plan: object) -> None:
        assert isinstance(plan, ImportPlan)
        self._idle()
        self._show_plan(plan)

    def start_import(self) -> None:
        plan = self._plan
        if plan is None or self.busy:
            return
        if refused := self._refusal():
            self.show_problem(f"Nothing was imported: {refused}")
            return
        state = self._state = _WindowState()
        state.progressed.connect(self._progressed)
        learn = self.learn.isChecked()
        self._working("Importing… You may close this window; the import goes on.")
        self.import_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.show()
        self.progress.setRange(0, 0)  # until the first count comes
        self._queue.run(
            lambda: self._imports.run(plan.path, learn=learn, state=state),
            self._imported,
            self._failed,
        )

    def cancel(self) -> None:
        """Stop the import at its next step; what it did so far is not kept
        half-done (a conversation, or an archive, goes in whole or not at all)."""
        if self._state is not None:
            self._state.cancel()
            self.cancel_button.setEnabled(False)
            self.show_notice("Cancelling…")

    def _progressed(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    def _imported(self, outcome: object) -> None:
        assert isinstance(outcome, ImportOutcome)
        self._state = None
        self._show_plan(None)
        self._finished("\n".join(outcome.lines))
        if outcome.imported:
            self.imported.emit()

    # -- what it shows ---------------------------------------------------------
    def _show_plan(self, plan: ImportPlan | None) -> None:
        self._plan = plan
        self.preview.setText("" if plan is None else "\n".join(plan.lines))
        self.preview.setVisible(plan is not None)
        self.learn.setVisible(plan is not None and not plan.archive)
        self.import_button.setVisible(plan is not None)
        self.import_button.setEnabled(plan is not None and plan.adds)
        self.cancel_button.setVisible(plan is not None)
        self.cancel_button.setEnabled(False)
        self.progress.hide()

    def _working(self, said: str) -> None:
        self.export_button.setEnabled(False)
        self.choose_button.setEnabled(False)
        self.show_notice(said)

    def _idle(self) -> None:
        self.export_button.setEnabled(True)
        self.choose_button.setEnabled(True)
        self.show_notice("")

    def _finished(self, said: str) -> None:
        self._idle()
        self.show_notice(said)

    def _failed(self, message: str) -> None:
        self._state = None
        self._show_plan(None)
        self._idle()
        self.show_problem(message)

    def shutdown(self) -> None:
        """Cancel an import in flight (nothing half-imported), then stop the thread."""
        self.cancel()
        self._queue.stop()
