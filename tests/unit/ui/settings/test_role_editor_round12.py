"""A server Test's answer that arrives after the rows were rebuilt (a
download finishing, Revert) or its row removed: shown in the row that took
the asking row's place when it shows the same server, else dropped; never a
RuntimeError from a deleted widget."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.core.backends.library import ModelLibrary
from desktop.core.base.secrets import SecretStore
from desktop.core.base.settings import Settings
from desktop.ui.settings.downloads import Downloads
from desktop.ui.settings.models_page import ModelsPage
from desktop.ui.settings.role_editor import SERVER, BackendRow
from models.broker import Role
from models.catalog import load_catalog
from models.server_http import ServerInfo
from tests.fakes import MemoryKeyring

URL = "http://127.0.0.1:9/v1"
INFO = ServerInfo(URL, "llama-server", ("qwen",))


@dataclass
class Question:
    """A Test the page asked, waiting for its answer."""

    url: str
    done: Callable[[object], None]
    failed: Callable[[str], None]


@pytest.fixture
def questions() -> list[Question]:
    return []


@pytest.fixture
def page(qtbot: QtBot, tmp_path: Path, questions: list[Question]) -> Iterator[ModelsPage]:
    library = ModelLibrary(tmp_path / "models", load_catalog())

    def probe(
        url: str, key: str | None, done: Callable[[object], None], failed: Callable[[str], None]
    ) -> None:
        questions.append(Question(url, done, failed))  # the server takes a while

    downloads = Downloads(library, lambda: "http://127.0.0.1:9")
    models_page = ModelsPage(
        Settings(), library, downloads, SecretStore(MemoryKeyring()), lambda _: True, probe
    )
    qtbot.addWidget(models_page)
    models_page.show()
    yield models_page
    downloads.stop()


def _server_row(qtbot: QtBot, row: BackendRow, model: str = "") -> BackendRow:
    row.source.setCurrentIndex(row.source.findData(SERVER))
    qtbot.keyClicks(row.url, URL)
    if model:
        qtbot.keyClicks(row.model, model)
    return row


def _deleted_later() -> None:
    # The old rows' deleteLater, as the event loop would run it.
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def test_an_answer_after_a_download_rebuilt_the_rows_shows_in_the_new_row(
    qtbot: QtBot, page: ModelsPage, questions: list[Question]
) -> None:
    _server_row(qtbot, page.roles[Role.BACKGROUND].rows[0], "qwen").test()

    page.refresh(keep_edits=True)  # what a download finishing does
    _deleted_later()
    row = page.roles[Role.BACKGROUND].rows[0]
    assert row.test_result.text() == "Asking the server…"
    assert not row.test_button.isEnabled()
    questions[0].done(INFO)

    assert "Reached a llama-server server; it serves: qwen" in row.test_result.text()
    assert row.test_button.isEnabled()


def test_a_failure_after_the_rows_were_rebuilt_shows_in_the_new_row(
    qtbot: QtBot, page: ModelsPage, questions: list[Question]
) -> None:
    _server_row(qtbot, page.roles[Role.CHAT].rows[0], "qwen").test()

    page.refresh(keep_edits=True)
    _deleted_later()
    questions[0].failed("Cannot reach the server at http://127.0.0.1:9/v1.")

    row = page.roles[Role.CHAT].rows[0]
    assert row.test_result.text() == "Cannot reach the server at http://127.0.0.1:9/v1."
    assert row.test_result.property("problem") is True
    assert row.test_button.isEnabled()


def test_an_answer_after_revert_to_another_backend_is_dropped(
    qtbot: QtBot, page: ModelsPage, questions: list[Question]
) -> None:
    _server_row(qtbot, page.roles[Role.BACKGROUND].rows[0], "qwen").test()

    page.revert_button.click()  # back to the chat's model: no server in that row
    _deleted_later()
    questions[0].done(INFO)
    questions[0].failed("Cannot reach the server.")

    row = page.roles[Role.BACKGROUND].rows[0]
    assert row.source.currentData() is None
    assert row.test_result.text() == "" and row.test_button.isEnabled()


def test_an_answer_to_an_edit_not_finished_yet_shows_in_its_kept_row(
    qtbot: QtBot, page: ModelsPage, questions: list[Question]
) -> None:
    # No model name yet: a refresh keeps the row as typed, and the Test's answer lands in it.
    row = page.roles[Role.BACKGROUND].rows[0]
    _server_row(qtbot, row).test()

    page.refresh(keep_edits=True)
    _deleted_later()
    questions[0].done(INFO)

    assert page.roles[Role.BACKGROUND].rows[0] is row
    assert "it serves: qwen" in row.test_result.text()


def test_an_answer_for_a_removed_fallback_is_dropped(
    qtbot: QtBot, page: ModelsPage, questions: list[Question]
) -> None:
    editor = page.roles[Role.CHAT]
    editor.add_button.click()
    asking = _server_row(qtbot, editor.rows[-1], "qwen")
    asking.test()

    asking.remove_button.click()
    del asking
    _deleted_later()
    questions[0].done(INFO)
    questions[0].failed("Cannot reach the server.")

    assert len(editor.rows) == 1
    assert editor.rows[0].test_result.text() == ""


def test_an_answer_after_the_page_is_gone_is_dropped(
    qtbot: QtBot, page: ModelsPage, questions: list[Question]
) -> None:
    _server_row(qtbot, page.roles[Role.CHAT].rows[0], "qwen").test()

    page.roles[Role.CHAT].deleteLater()  # the settings window closed for good
    _deleted_later()
    questions[0].done(INFO)
    questions[0].failed("Cannot reach the server.")  # neither raises
