"""The running application's desktop integration: the tray opens the data
and log folders and the Import and export window (so does the settings
window), and the settings window's switch writes the login entry of
this installation (in the tests' own autostart folder, ``REVERIE_AUTOSTART_DIR``)."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QCheckBox

from desktop.core.base.autostart import ENV_AUTOSTART
from desktop.ui.shell.application import ReverieApplication
from tests.file_urls import catching_file_urls
from tests.unit.test_app import app_paths, notified, started

__all__ = ["app_paths", "notified", "started"]  # the application's fixtures, used here


def test_the_tray_opens_the_folders_and_the_switch_writes_this_installations_entry(
    notified: list[tuple[str, str]], started: ReverieApplication
) -> None:
    """One test: each start of the application loads the chat model."""
    tray, paths = started.tray, started._core.paths
    assert tray is not None

    with catching_file_urls() as urls:
        tray.data_folder_action.trigger()
        tray.logs_action.trigger()

    assert urls.opened == [paths.data_dir, paths.log_dir]
    assert notified == []

    window = started.models.settings_window
    window.present()
    window.show_page("Desktop")
    switch = window.form("Desktop").rows["start_at_login"].editor.widget
    assert isinstance(switch, QCheckBox) and not switch.isChecked()

    switch.setChecked(True)
    assert window.save_edits()

    entry = Path(os.environ[ENV_AUTOSTART]) / "reverie.desktop"
    text = entry.read_text(encoding="utf-8")
    assert "X-Reverie-Autostart=true" in text
    exec_line = next(line for line in text.splitlines() if line.startswith("Exec="))
    assert exec_line.endswith(" --hidden")

    # Import and export: from the tray, and from the Desktop page (no tray needed).
    transfer = started.transfer_view
    assert transfer is not None
    tray.transfer_action.trigger()
    assert transfer.isVisible()
    transfer.close()
    window.transfer_button.click()
    assert transfer.isVisible()
    transfer.close()
    window.close()
