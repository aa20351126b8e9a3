"""The settings window's Desktop page: the start-at-login switch shows and
sets the real login entry (in a temporary home), and its buttons open the
data and log folders through Qt's URL handlers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QCheckBox, QSpinBox
from pytestqt.qtbot import QtBot

from desktop.core.base.autostart import Autostart, Launcher
from desktop.core.base.settings import Settings, load_settings
from desktop.ui.settings.window import SettingsWindow
from tests.file_urls import catching_file_urls

Make = Callable[..., SettingsWindow]
LAUNCHER = Launcher(Path("/opt/my apps/venv/bin/reverie"), ("--hidden",))


@pytest.fixture
def entry(tmp_path: Path) -> Autostart:
    return Autostart("linux", tmp_path / "home", {}, LAUNCHER)


@pytest.fixture
def settings_file(tmp_path: Path) -> Path:
    return tmp_path / "config" / "settings.json"


@pytest.fixture
def folders(tmp_path: Path) -> list[tuple[str, Path]]:
    return [("Open data folder", tmp_path / "data"), ("Open logs", tmp_path / "cache" / "logs")]


@pytest.fixture
def make(
    qtbot: QtBot, entry: Autostart, settings_file: Path, folders: list[tuple[str, Path]]
) -> Iterator[Make]:
    made: list[SettingsWindow] = []

    def open_window(settings: Settings | None = None) -> SettingsWindow:
        window = SettingsWindow(
            settings or Settings(), settings_file, autostart=entry, folders=folders
        )
        qtbot.addWidget(window)
        window.show()
        window.show_page("Desktop")
        made.append(window)
        return window

    yield open_window
    for window in made:
        window.shutdown()
        window.revert()


def switch(window: SettingsWindow) -> QCheckBox:
    widget = window.form("Desktop").rows["start_at_login"].editor.widget
    assert isinstance(widget, QCheckBox)
    return widget


def click(qtbot: QtBot, button: QAbstractButton) -> None:
    assert button.isVisible() and button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def on_disk(path: Path) -> Settings:
    settings, problem = load_settings(path)
    assert problem is None
    return settings


def test_the_switch_is_off_by_default_and_says_what_it_does(make: Make, entry: Autostart) -> None:
    window = make()

    row = window.form("Desktop").rows["start_at_login"]
    assert row.label.text() == "Start at login"
    assert "when you log in" in row.help.text() and row.help.isVisible()
    assert not switch(window).isChecked()
    assert not entry.path.exists()


def test_switching_on_writes_the_login_entry(
    qtbot: QtBot, make: Make, entry: Autostart, settings_file: Path
) -> None:
    window = make()

    click(qtbot, switch(window))
    click(qtbot, window.save_button)

    assert entry.is_enabled() and entry.state().ours
    assert on_disk(settings_file).desktop.start_at_login
    assert window.notice.text() == "Saved."  # it applies now, not after a restart
    assert not window.is_dirty()


def test_switching_off_removes_it(
    qtbot: QtBot, make: Make, entry: Autostart, settings_file: Path
) -> None:
    entry.enable()
    window = make()
    assert switch(window).isChecked()  # read from the entry, not the file

    click(qtbot, switch(window))
    click(qtbot, window.save_button)

    assert not entry.path.exists()
    assert not on_disk(settings_file).desktop.start_at_login


def test_turned_off_elsewhere_it_shows_off_and_is_left_so(
    qtbot: QtBot, make: Make, entry: Autostart, settings_file: Path
) -> None:
    entry.enable()
    window = make(Settings.model_validate({"desktop": {"start_at_login": True}}))
    window.hide()
    # The desktop's startup manager turns it off while the window is closed.
    entry.path.write_text(entry.path.read_text() + "Hidden=true\n")
    before = entry.path.read_text()

    window.show()

    assert not switch(window).isChecked()
    assert not window.is_dirty()  # the truth, not an edit
    spin = window.form("Chat").rows["memories_top_k"].editor.widget
    assert isinstance(spin, QSpinBox)
    spin.setValue(12)  # another change, saved: the entry stays as the user left it
    click(qtbot, window.save_button)
    assert entry.path.read_text() == before
    assert not on_disk(settings_file).desktop.start_at_login


def test_a_folder_in_the_way_is_explained_and_nothing_else_is_lost(
    qtbot: QtBot, make: Make, entry: Autostart, settings_file: Path
) -> None:
    entry.path.parent.parent.mkdir(parents=True)
    entry.path.parent.write_text("a file where the autostart folder goes")
    window = make()
    window.show_page("Chat")
    spin = window.form("Chat").rows["memories_top_k"].editor.widget
    assert isinstance(spin, QSpinBox)
    spin.setValue(12)
    window.show_page("Desktop")

    click(qtbot, switch(window))
    click(qtbot, window.save_button)

    said = window.problem.text()
    assert window.problem.isVisible()
    assert "could not be set to start at login" in said
    assert f"{entry.path.parent} is not a folder" in said
    assert said.endswith("It does not start at login. Your other changes were saved.")
    assert not switch(window).isChecked()  # the truth
    saved = on_disk(settings_file)
    assert saved.chat.memories_top_k == 12
    assert not saved.desktop.start_at_login
    assert not window.is_dirty()


def test_only_the_switch_failing_saves_nothing(
    qtbot: QtBot, make: Make, entry: Autostart, settings_file: Path
) -> None:
    entry.path.parent.parent.mkdir(parents=True)
    entry.path.parent.write_text("in the way")
    window = make()

    click(qtbot, switch(window))
    click(qtbot, window.save_button)

    assert "could not be set to start at login" in window.problem.text()
    assert "other changes" not in window.problem.text()
    assert not switch(window).isChecked()
    assert not settings_file.exists()


def test_the_buttons_open_the_data_and_log_folders(
    qtbot: QtBot, make: Make, folders: list[tuple[str, Path]]
) -> None:
    window = make()
    (data, data_dir), (logs, log_dir) = folders
    data_dir.mkdir()

    with catching_file_urls() as urls:
        click(qtbot, window.folder_buttons[data])
        click(qtbot, window.folder_buttons[logs])

    assert urls.opened == [data_dir, log_dir]
    assert log_dir.is_dir()  # made first: there was no log yet
    assert not window.problem.isVisible()


def test_a_folder_that_cannot_be_opened_is_explained(
    qtbot: QtBot, make: Make, folders: list[tuple[str, Path]]
) -> None:
    window = make()
    _, (logs, log_dir) = folders
    log_dir.parent.parent.mkdir(parents=True, exist_ok=True)
    log_dir.parent.write_text("in the way")

    with catching_file_urls() as urls:
        click(qtbot, window.folder_buttons[logs])

    assert urls.opened == []
    assert window.problem.isVisible()
    assert str(log_dir) in window.problem.text()


def test_without_a_login_entry_the_switch_edits_the_file_alone(
    qtbot: QtBot, settings_file: Path
) -> None:
    window = SettingsWindow(Settings(), settings_file)
    qtbot.addWidget(window)
    window.show()
    window.show_page("Desktop")

    click(qtbot, switch(window))
    click(qtbot, window.save_button)

    assert on_disk(settings_file).desktop.start_at_login
    assert window.folder_buttons == {}
    window.shutdown()
