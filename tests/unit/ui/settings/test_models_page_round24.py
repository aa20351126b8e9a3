"""The Models page read again as a model load ends (round 24): its cards
never open as windows of their own, so a load ending just after the user
closed the last window no longer keeps Reverie running with none."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.core.backends.library import ModelLibrary
from desktop.core.base.secrets import SecretStore
from desktop.core.base.settings import Settings
from desktop.ui.settings.downloads import Downloads
from desktop.ui.settings.models_page import ModelsPage
from tests.stray_windows import windows_opened
from tests.unit.ui.settings.test_models_page import (  # noqa: F401 (fixtures)
    Saved,
    _no_probe,
    catalog,
    library,
    page,
    secrets,
    tiny,
)


def test_building_the_page_opens_no_window_but_its_own(
    qtbot: QtBot,
    library: ModelLibrary,  # noqa: F811 (a fixture)
    secrets: SecretStore,  # noqa: F811 (a fixture)
) -> None:
    downloads = Downloads(library, lambda: "http://127.0.0.1:9")
    try:
        with windows_opened() as opened:
            models_page = ModelsPage(Settings(), library, downloads, secrets, Saved(), _no_probe)
            qtbot.addWidget(models_page)
            models_page.show()

        assert opened == [models_page.objectName() or "ModelsPage"]
    finally:
        downloads.stop()


def test_reading_the_models_again_as_a_load_ends_opens_no_window(
    page: tuple[ModelsPage, Saved, Downloads],  # noqa: F811 (a fixture)
) -> None:
    models_page, _, _ = page
    assert any(card.summary.text() for card in models_page.cards.values())  # cards with text

    with windows_opened() as opened:
        models_page.refresh(keep_edits=True)  # what each role's load does as it ends

    assert opened == []
    for card in models_page.cards.values():  # each shows with its card, as before
        assert card.summary.isHidden() == (not card.summary.text())


def test_a_load_ending_as_the_last_window_closes_lets_reverie_quit(
    page: tuple[ModelsPage, Saved, Downloads],  # noqa: F811 (a fixture)
) -> None:
    models_page, _, _ = page
    app = QApplication.instance()
    assert isinstance(app, QApplication) and app.quitOnLastWindowClosed()  # no tray
    stuck: list[str] = []

    def close_as_a_load_ends() -> None:
        models_page.close()  # the last window: Qt plans to quit
        models_page.refresh(keep_edits=True)  # a model load ends meanwhile

    def way_out() -> None:  # only if Qt's quit was dropped
        stuck.append("closing the last window did not quit")
        app.exit(1)

    waiting = QTimer()
    waiting.setSingleShot(True)
    waiting.timeout.connect(way_out)
    waiting.start(5_000)
    QTimer.singleShot(0, close_as_a_load_ends)
    app.exec()
    waiting.stop()

    assert not stuck
