"""Round 8 of issue 15 against the API key field of a server backend: a key
that cannot be sent (typographic quotes, a line break) is refused where it is
typed, with a message that says what is wrong and never quotes the key."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.core.backends.library import ModelLibrary
from desktop.core.backends.roles import api_key_name
from desktop.core.base.secrets import SecretStore
from desktop.core.base.settings import Settings
from desktop.ui.settings.downloads import Downloads
from desktop.ui.settings.models_page import ModelsPage
from desktop.ui.settings.role_editor import SERVER, BackendRow
from models.broker import Role
from models.catalog import load_catalog
from models.server_http import ServerInfo
from tests.fakes import MemoryKeyring

URL = "http://box:8080/v1"
CURLY = "\u201csk-abc123\u201d"


@pytest.fixture
def secrets() -> SecretStore:
    return SecretStore(MemoryKeyring())


@pytest.fixture
def asked() -> list[str]:
    """The addresses the page's Test asked."""
    return []


@pytest.fixture
def page(
    qtbot: QtBot, tmp_path: Path, secrets: SecretStore, asked: list[str]
) -> Iterator[ModelsPage]:
    library = ModelLibrary(tmp_path / "models", load_catalog())

    def probe(
        url: str, key: str | None, done: Callable[[object], None], failed: Callable[[str], None]
    ) -> None:
        asked.append(url)
        done(ServerInfo(url, "llama-server", ("qwen",)))

    downloads = Downloads(library, lambda: "http://127.0.0.1:9")
    models_page = ModelsPage(Settings(), library, downloads, secrets, lambda _: True, probe)
    qtbot.addWidget(models_page)
    models_page.show()
    yield models_page
    downloads.stop()


def _server_row(qtbot: QtBot, page: ModelsPage, key: str) -> BackendRow:
    row = page.roles[Role.BACKGROUND].rows[0]
    row.source.setCurrentIndex(row.source.findData(SERVER))
    qtbot.keyClicks(row.url, URL)
    qtbot.keyClicks(row.model, "qwen")
    _paste(row, key)
    return row


def _paste(row: BackendRow, key: str) -> None:
    """Paste *key* into the key field, as a user would (line breaks kept)."""
    row.api_key.clear()
    QApplication.clipboard().setText(key)
    row.api_key.paste()


def test_a_key_with_curly_quotes_is_refused_as_it_is_typed(
    qtbot: QtBot, page: ModelsPage, secrets: SecretStore, asked: list[str]
) -> None:
    row = _server_row(qtbot, page, CURLY)

    said = row.test_result.text()
    assert "quotes" in said and row.test_result.property("problem") is True
    assert "abc123" not in said
    row.test()
    assert asked == []  # never asked with a key that cannot be sent
    assert page.apply() is False
    assert "quotes" in page.message.text() and "abc123" not in page.message.text()
    assert secrets.get(api_key_name(URL)) is None


def test_a_key_with_a_line_break_is_refused_and_its_fix_clears_the_message(
    qtbot: QtBot, page: ModelsPage, secrets: SecretStore
) -> None:
    row = _server_row(qtbot, page, "sk-SECRET123\nX: 1")

    assert "line break" in row.test_result.text()
    assert "SECRET" not in row.test_result.text()
    assert page.apply() is False
    assert "SECRET" not in page.message.text()

    _paste(row, "sk-SECRET123")

    assert row.test_result.text() == ""
    assert page.apply() is True
    assert secrets.get(api_key_name(URL)) == "sk-SECRET123"
