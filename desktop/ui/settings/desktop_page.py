"""What the settings window's Desktop page has beside its fields: start at
login kept by the system's login entry, and buttons opening Reverie's folders.

Start at login is the one setting whose truth is not ``settings.json``: it
is the entry the system reads at login (``Autostart``), which the user may
also turn off in their desktop's startup settings.  ``LoginSwitch`` reads it
into the settings the window shows and writes it when a save changes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QWidget

from desktop.core.base.autostart import Autostart, AutostartProblem
from desktop.core.base.settings import Settings
from desktop.ui.widgets.labels import named, plain_tip

START_AT_LOGIN = "desktop.start_at_login"
"""The setting kept by the system's login entry, not by the file alone."""


class LoginSwitch:
    """Start at login as *autostart*'s entry has it (None: as the file has it)."""

    def __init__(self, autostart: Autostart | None) -> None:
        self._autostart = autostart

    def truth(self, settings: Settings) -> tuple[Settings, str | None]:
        """*settings* with start at login as the login entry says; and why
        that could not be read (the settings are then as given)."""
        if self._autostart is None:
            return settings, None
        try:
            enabled = self._autostart.is_enabled()
        except AutostartProblem as problem:
            return settings, str(problem)
        desktop = settings.desktop.model_copy(update={"start_at_login": enabled})
        return settings.model_copy(update={"desktop": desktop}), None

    def set(self, enabled: bool) -> str | None:
        """Write or remove the login entry; why that failed, or None."""
        if self._autostart is None:
            return None
        try:
            self._autostart.set_enabled(enabled)
        except AutostartProblem as problem:
            return str(problem)
        return None


def folder_buttons(
    folders: Sequence[tuple[str, Path]], opened: Callable[[Path], None], width: int
) -> tuple[QWidget, dict[str, QPushButton]]:
    """Under a "Folders" heading, a button for each of *folders* (its label
    and path), the path beside it; clicking one calls *opened* with it.
    The box, at most *width* wide, and its buttons by label."""
    box = named(QWidget(), "settings-folders")
    box.setMaximumWidth(width)
    grid = QGridLayout(box)
    grid.setContentsMargins(0, 0, 0, 0)
    grid.setHorizontalSpacing(18)
    grid.setColumnStretch(1, 1)
    grid.addWidget(named(QLabel("Folders"), "settings-field-label"), 0, 0, 1, 2)
    buttons: dict[str, QPushButton] = {}
    for row, (label, folder) in enumerate(folders, start=1):
        button = named(QPushButton(label), "settings-open-folder", label)
        button.setToolTip(plain_tip(f"Show {folder} in your file manager"))
        button.clicked.connect(lambda _=False, folder=folder: opened(folder))
        where = named(QLabel(str(folder)), "settings-field-help", f"{label}: where")
        where.setTextFormat(Qt.TextFormat.PlainText)
        where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        where.setWordWrap(True)
        grid.addWidget(button, row, 0)
        grid.addWidget(where, row, 1)
        buttons[label] = button
    return box, buttons
