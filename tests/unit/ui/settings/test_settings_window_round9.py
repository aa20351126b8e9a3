"""Round 9 of the attacks on the settings window: with Reverie running,
``reverie models add`` wrote a model into the settings file, and the
window's next save (one memory setting changed) wrote back the whole
settings it read at start: the model was gone, and the next start never saw
it.  The window's save now writes only what was changed in it over the file
as it is, and shows what the file holds then."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QSpinBox
from pytestqt.qtbot import QtBot

from desktop.app import main
from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import Settings, load_settings, save_settings
from desktop.ui.settings.window import SettingsWindow


@pytest.fixture
def window(qtbot: QtBot, user_dirs: AppPaths) -> Iterator[SettingsWindow]:
    start = Settings()
    save_settings(start, user_dirs.settings_file)  # the app's first start
    window = SettingsWindow(start, user_dirs.settings_file)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()
    window.revert()


def test_a_save_keeps_the_model_a_command_added_while_the_window_was_open(
    window: SettingsWindow, user_dirs: AppPaths, smollm2_path: Path, tmp_path: Path
) -> None:
    added = tmp_path / "mine.gguf"
    os.link(smollm2_path, added)
    assert main(["models", "add", str(added)]) == 0
    saved: list[Settings] = []
    window.saved.connect(saved.append)

    box = window.form("Memory").rows["harvest_check_minutes"].editor.widget
    assert isinstance(box, QSpinBox)
    box.setValue(9)
    assert window.save_edits()

    written, problem = load_settings(user_dirs.settings_file)
    assert problem is None
    assert written.models.added == (str(added),)
    assert written.memory.harvest_check_minutes == 9
    assert window.current() == written  # what the app now runs on
    assert saved == [written]
