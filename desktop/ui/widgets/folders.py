"""Opening one of Reverie's folders (the data, the logs) in the user's file manager.

A folder not made yet (no log written so far) is made first, readable by the
user alone, so that the file manager has something to show.  Qt's URL
handlers decide which program opens it (the tests install their own).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.files import make_missing_folders
from desktop.core.base.paths import explain


class FolderNotOpened(EnvironmentProblem):
    """A folder could not be made or shown; says which and why."""


def open_folder(folder: Path) -> None:
    """Show *folder* in the file manager, made first if it is missing;
    ``FolderNotOpened`` if it cannot be made or nothing opened it."""
    try:
        make_missing_folders(folder)
    except OSError as error:
        raise FolderNotOpened(f"{folder} could not be made: {explain(error)}.") from error
    if not folder.is_dir():
        raise FolderNotOpened(f"{folder} is not a folder, so it cannot be opened.")
    if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
        raise FolderNotOpened(
            f"No program on this computer opened {folder}.", "Open it in your file manager."
        )
