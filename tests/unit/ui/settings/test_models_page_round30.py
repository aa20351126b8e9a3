"""The Models page in round 30: a model file named by a link and by itself,
and an API key no role uses any more.

A file added once by a link's path (the page keeps what was chosen) and
once by the path it leads to (``reverie models add`` keeps that, as does a
second drop of the file itself) was two models: two cards, each with
Remove, twice in every role's choices; Remove took out only the entry
written as that card named it.  It is one file, so one model, and Remove
takes out every entry leading to it.  A file listed thousands of times is
read once.

A server's API key stayed in the system keyring after every role on that
server was pointed elsewhere: a credential kept for nothing, which a user
who removed the server believes gone.  Now *Use these models* takes the
key of each server the roles no longer use out of the keyring; a key
another role still uses stays.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QComboBox
from pytestqt.qtbot import QtBot

import desktop.core.backends.library
from desktop.core.backends.library import EMBEDDED, ModelLibrary
from desktop.core.backends.roles import api_key_name
from desktop.core.base.secrets import SecretStore
from desktop.core.base.settings import Backend, ModelSettings, Settings
from desktop.ui.settings.downloads import Downloads
from desktop.ui.settings.model_cards import ModelCard
from desktop.ui.settings.models_page import ModelsPage
from models.broker import Role
from models.gguf_info import GgufInfo, read_gguf_info
from tests.unit.ui.settings.test_models_page import (  # noqa: F401 (fixtures)
    Saved,
    _no_probe,
    catalog,
    library,
    secrets,
    tiny,
)


@pytest.fixture
def linked(smollm2_path: Path, tmp_path: Path) -> Path:
    """A link to the SmolLM2 file, as a models folder of links holds it."""
    link = tmp_path / "links" / "my-chat.gguf"
    link.parent.mkdir()
    link.symlink_to(smollm2_path)
    return link


PageOf = Callable[[ModelSettings], tuple[ModelsPage, Saved]]


@pytest.fixture
def page_of(
    qtbot: QtBot,
    library: ModelLibrary,  # noqa: F811 (a fixture)
    secrets: SecretStore,  # noqa: F811 (a fixture)
) -> Iterator[PageOf]:
    """Makes the page of settings whose models are the ones given."""
    downloads = Downloads(library, lambda: "http://127.0.0.1:9")

    def make(models: ModelSettings) -> tuple[ModelsPage, Saved]:
        saved = Saved()
        settings = Settings().model_copy(update={"models": models})
        models_page = ModelsPage(settings, library, downloads, secrets, saved, _no_probe)
        qtbot.addWidget(models_page)
        return models_page, saved

    yield make
    downloads.stop()


def test_a_file_added_by_a_link_and_by_itself_is_one_model(
    page_of: PageOf, smollm2_path: Path, linked: Path
) -> None:
    models_page, saved = page_of(ModelSettings(added=(str(linked), str(smollm2_path))))
    added = [c for c in models_page.findChildren(ModelCard) if c.option.source == "added"]
    chat = models_page.findChild(QComboBox, "backend-source")
    assert chat is not None
    labels = [chat.itemText(i) for i in range(chat.count())]

    assert len(added) == 1
    assert labels.count("my-chat.gguf") + labels.count(smollm2_path.name) == 1

    added[0].remove_button.click()

    assert saved.settings[-1].models.added == ()  # both entries went: nothing leads to it


def test_the_file_a_listed_link_leads_to_is_not_added_again(
    page_of: PageOf, smollm2_path: Path, linked: Path
) -> None:
    models_page, saved = page_of(ModelSettings(added=(str(linked),)))

    models_page.add_files([smollm2_path])

    assert saved.settings == []  # on the list already, by its link


def test_a_role_on_the_file_a_listed_link_leads_to_shows_it_once(
    page_of: PageOf, smollm2_path: Path, linked: Path
) -> None:
    # `reverie models use LINK` keeps the file the link leads to.
    chat = (Backend(kind="local", model=str(smollm2_path)),)
    models_page, _ = page_of(ModelSettings(added=(str(linked),), chat=chat))
    row = models_page.roles[Role.CHAT].rows[0]
    refs = [row.source.itemData(i) for i in range(row.source.count())]

    assert len([ref for ref in refs if isinstance(ref, str) and ref.startswith("/")]) == 1
    assert row.backend() == chat[0]
    assert not models_page.apply_button.isEnabled()


URL = "http://box:8080/v1"
SERVER = Backend(kind="server", url=URL, model="qwen2.5:7b")


@pytest.fixture
def on_server(
    page_of: PageOf,
    secrets: SecretStore,  # noqa: F811 (a fixture)
) -> tuple[ModelsPage, Saved]:
    """The page of settings whose chat and background work are on the
    server at ``URL``, its key in the keyring."""
    secrets.set(api_key_name(URL), "sk-live-9876")
    return page_of(ModelSettings(chat=(SERVER,), background=(SERVER,)))


def _to_embedded(models_page: ModelsPage, role: Role) -> None:
    row = models_page.roles[role].rows[0]
    row.source.setCurrentIndex(row.source.findData(EMBEDDED))
    assert models_page.apply()


def test_the_key_of_a_server_no_role_uses_leaves_the_keyring(
    on_server: tuple[ModelsPage, Saved],
    secrets: SecretStore,  # noqa: F811 (a fixture)
) -> None:
    models_page, saved = on_server

    _to_embedded(models_page, Role.CHAT)
    models_page.set_settings(saved.settings[-1])  # as the app does once saved
    assert secrets.get(api_key_name(URL)) == "sk-live-9876"  # background work still uses it
    _to_embedded(models_page, Role.BACKGROUND)

    assert [s.models.background for s in saved.settings][-1] == (Backend(),)
    assert secrets.get(api_key_name(URL)) is None


def test_a_file_listed_many_times_is_read_once(
    library: ModelLibrary,  # noqa: F811 (a fixture)
    smollm2_path: Path,
    linked: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # settings.json may list one file thousands of times (1 MB holds 10,000
    # entries): each was read, 40 ms a header, before the copies were seen.
    read: list[Path] = []

    def counted(path: Path) -> GgufInfo:
        read.append(path)
        return read_gguf_info(path)

    monkeypatch.setattr(desktop.core.backends.library, "read_gguf_info", counted)
    many = [str(smollm2_path), str(linked)] * 200

    library.options([], 4096)  # the embedded and catalog models alone
    alone = len(read)
    options = library.options(many, 4096)

    assert [option.ref for option in options if option.source == "added"] == [str(smollm2_path)]
    assert len(read) - alone == alone + 1  # the same reads, and the file's header once
