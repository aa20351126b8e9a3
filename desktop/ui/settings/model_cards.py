"""One card per model on the Models page: what it is, what it needs, and getting it.

A card shows the model's name, kind, size, licence and what it is good at;
the memory it needs at the chosen context beside what the machine has free
(too big is a warning, never a lock-out); and, for a catalog model, its
download: Download, then a progress bar with speed and time left, Pause or
Resume, and Cancel.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.backends.library import ModelOption
from desktop.core.base.text import duration_text, size_text
from desktop.ui.settings.downloads import DownloadUpdate
from desktop.ui.settings.role_editor import unstretching
from desktop.ui.widgets.labels import named, plain_label
from desktop.ui.widgets.visibility import set_shown
from models.memory_estimate import fits

_FIT_WORDS = {
    "fits": "fits in memory",
    "tight": "tight: close other big programs first",
    "too_big": "more than this computer has free",
}


class ModelCard(QFrame):
    """Signals:
    download_requested(str): Download or Resume (the model's catalog id).
    pause_requested(str): Pause.
    cancel_requested(str): Cancel (what was downloaded is removed).
    remove_requested(str): Remove an added file from the list (its ref).
    """

    download_requested = Signal(str)
    pause_requested = Signal(str)
    cancel_requested = Signal(str)
    remove_requested = Signal(str)

    def __init__(self, option: ModelOption, available: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        named(self, "model-card", option.name)
        self.option = option
        self.title = named(plain_label(option.name), "model-card-title")
        self.details = named(QLabel(_details(option)), "model-card-details")
        self.needs = named(QLabel(), "model-card-needs")
        self.summary = named(
            QLabel(option.entry.good_for if option.entry else ""), "model-card-text"
        )
        self.state = named(QLabel(), "model-card-state")
        for label in (self.details, self.summary, self.state, self.needs):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
        set_shown(self.summary, bool(self.summary.text()))
        for label in (self.details, self.state):  # a path or a long reason: cut, not widened
            unstretching(label)
        self.progress = named(QProgressBar(), "model-card-progress", f"Download of {option.name}")
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.download_button = self._button("Download", f"Download {option.name}")
        self.download_button.clicked.connect(lambda: self.download_requested.emit(option.ref))
        self.pause_button = self._button("Pause", f"Pause the download of {option.name}")
        self.pause_button.clicked.connect(lambda: self.pause_requested.emit(option.ref))
        self.cancel_button = self._button("Cancel", f"Cancel the download of {option.name}")
        self.cancel_button.clicked.connect(lambda: self.cancel_requested.emit(option.ref))
        self.remove_button = self._button("Remove", f"Remove {option.name} from the list")
        self.remove_button.setToolTip("Take it off the list; the file itself stays where it is.")
        self.remove_button.clicked.connect(lambda: self.remove_requested.emit(option.ref))
        buttons = QHBoxLayout()
        buttons.addWidget(self.state, 1)
        for button in (
            self.download_button,
            self.pause_button,
            self.cancel_button,
            self.remove_button,
        ):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(self.details)
        layout.addWidget(self.needs)
        layout.addWidget(self.summary)
        layout.addWidget(self.progress)
        layout.addLayout(buttons)
        self.set_available(available)
        self.show_update(None)

    def _button(self, text: str, accessible: str) -> QPushButton:
        return named(QPushButton(text), "model-card-button", accessible)

    def set_available(self, available: int) -> None:
        """Say what the model needs beside *available* bytes of free memory."""
        estimate = self.option.estimate
        if estimate is None:
            self.needs.setText("Memory it needs: known once it is on this computer.")
            self.needs.setProperty("fit", "")
            return
        verdict = fits(estimate, available)
        self.needs.setText(
            f"Needs about {size_text(estimate.total)} of memory at {estimate.context:,} tokens "
            f"({size_text(available)} free now): {_FIT_WORDS[verdict]}."
        )
        self.needs.setProperty("fit", verdict)
        self.needs.style().polish(self.needs)

    def show_update(self, update: DownloadUpdate | None) -> None:
        """Show where the model stands: installed, downloading, paused, failed..."""
        option = self.option
        downloading = update is not None and update.state in ("queued", "downloading")
        downloadable = option.source == "catalog" and not option.installed
        self.progress.setVisible(downloading)
        self.download_button.setVisible(downloadable and not downloading)
        self.pause_button.setVisible(downloading)
        self.cancel_button.setVisible(downloading or (downloadable and option.partial > 0))
        self.remove_button.setVisible(option.source == "added")
        self.download_button.setText("Resume" if option.partial else "Download")
        if update is not None and update.state == "downloading" and update.progress:
            self._show_progress(update)
        elif update is not None and update.state == "queued":
            self.state.setText("Waiting for the download before it…")
        elif update is not None and update.state in ("failed", "paused"):
            self.state.setText(update.message)
            self.download_button.setText("Resume" if update.state == "paused" else "Try again")
        else:
            self.state.setText(_standing(option))
        problem = option.problem is not None or (update is not None and update.state == "failed")
        self.state.setProperty("problem", problem)
        self.state.style().polish(self.state)

    def _show_progress(self, update: DownloadUpdate) -> None:
        progress = update.progress
        assert progress is not None
        total = progress.total or self.option.size
        said = size_text(progress.received)
        if total:
            self.progress.setValue(int(1000 * progress.received / total))
            said += f" of {size_text(total)}"
        if progress.bytes_per_second:
            said += f" · {size_text(int(progress.bytes_per_second))}/s"
        if progress.seconds_left is not None:
            said += f" · {duration_text(progress.seconds_left)} left"
        self.state.setText(said)


def _details(option: ModelOption) -> str:
    kind = "Chat model" if option.kind == "chat" else "Embedding model"
    parts = [kind]
    entry = option.entry
    if entry is not None:
        parts += [
            f"{entry.parameters} parameters" if entry.parameters else "",
            entry.quantization,
            f"{entry.context_length:,} tokens of context",
            f"{entry.dimension} dimensions" if entry.dimension else "",
            size_text(entry.size),
            entry.license,
        ]
    elif option.size:
        parts.append(size_text(option.size))
    if option.source == "added" and option.path is not None:
        parts.append(str(option.path))
    return " · ".join(part for part in parts if part)


def _standing(option: ModelOption) -> str:
    if option.problem is not None:
        return option.problem
    if option.source == "embedded":
        return "Ships with Reverie." if option.installed else "Made on the first start."
    if option.installed:
        return "On this computer." if option.source == "added" else "Downloaded and checked."
    if option.partial:
        return f"{size_text(option.partial)} downloaded so far; Resume goes on from there."
    return "Not downloaded."
