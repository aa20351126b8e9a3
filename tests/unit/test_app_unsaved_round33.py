"""Round 33: quitting Reverie asks about an unsaved memory edit, as it asks
about a skill's or a task's: the memory browser's edit went unsaid."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from desktop.app import build_core, load_models
from desktop.core.base.paths import AppPaths
from desktop.ui.shell.application import ReverieApplication
from tests.unit.test_app import app_paths  # noqa: F401 (the fixture)


def test_quitting_asks_about_an_unsaved_memory_edit_first(
    qtbot: QtBot,
    app_paths: AppPaths,  # noqa: F811 (a fixture)
) -> None:
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    try:
        browser = app.memory_browser
        assert core.memories is not None and browser is not None
        tea = core.memories.remember(
            "The user drinks tea.", source_kind="user_explicit", actor="user"
        )
        browser.present()
        browser.select([tea.memory.id])
        browser.detail.editor.setPlainText("The user drinks coffee.")
        browser.close()  # hidden, the edit kept

        app.quit()  # as the tray's Quit does
        dialog = browser.unsaved.dialog
        assert dialog is not None and dialog.text().endswith("Save before quitting Reverie?")
        assert browser.isVisible()  # the question is about it
        keep = next(b for b in dialog.findChildren(QPushButton) if b.text() == "Keep editing")
        qtbot.mouseClick(keep, Qt.MouseButton.LeftButton)
        assert browser.detail.editor.toPlainText() == "The user drinks coffee."
    finally:
        app.shutdown()
        core.close()
