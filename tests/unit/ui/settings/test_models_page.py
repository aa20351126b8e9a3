"""The Models page driven like a user would: choosing a model or a server of
one's own for each role, keys kept in the keyring, downloads from a local Hub
with pause and resume, GGUF files added by button or drop; and the one-time
suggestion of a model that fits."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from pytestqt.qtbot import QtBot

from desktop.core.backends.library import ModelLibrary
from desktop.core.backends.roles import api_key_name
from desktop.core.base.secrets import SecretStore
from desktop.core.base.settings import Backend, Settings, load_settings
from desktop.ui.settings.downloads import Downloads, DownloadUpdate
from desktop.ui.settings.models_page import ModelsPage
from desktop.ui.settings.role_editor import SERVER
from desktop.ui.settings.window import SettingsWindow
from desktop.ui.shell.model_manager import suggested_model
from models.broker import Role
from models.catalog import Catalog, load_catalog
from models.server_http import ServerInfo
from tests.fakes import MemoryKeyring
from tests.hub_server import HubServer, sha256_hex
from tests.unit.models.tiny_gguf import tokenizer_metadata, write_tiny_gguf

WAIT_MS = 20_000
GIB = 1 << 30


class Saved:
    """The page's writer: keeps what it was asked to save (and says it saved)."""

    def __init__(self) -> None:
        self.settings: list[Settings] = []

    def __call__(self, settings: Settings) -> bool:
        self.settings.append(settings)
        return True


def _no_probe(
    url: str, key: str | None, done: Callable[[object], None], failed: Callable[[str], None]
) -> None:
    done(ServerInfo(url, "llama-server", ("qwen2.5:7b",)))


@pytest.fixture
def secrets() -> SecretStore:
    return SecretStore(MemoryKeyring())


@pytest.fixture
def tiny(tmp_path: Path) -> bytes:
    return b"GGUF" + os.urandom(400_000)


@pytest.fixture
def catalog(tmp_path: Path, tiny: bytes) -> Catalog:
    """The shipped catalog, plus one tiny model the local Hub serves."""
    base = load_catalog().get("qwen2.5-1.5b-instruct").model_dump()
    entry = {
        **base,
        "id": "tiny",
        "name": "Tiny Instruct",
        "repo": "someone/tiny-GGUF",
        "file": "tiny-q4_k_m.gguf",
        "revision": "main",
        "size": len(tiny),
        "sha256": sha256_hex(tiny),
        "shape": dict(base["shape"]),
    }
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps({"version": 1, "models": [entry]}), "utf-8")
    return load_catalog(path)


@pytest.fixture
def hub(tiny: bytes) -> Iterator[HubServer]:
    with HubServer() as server:
        server.add("someone/tiny-GGUF", "tiny-q4_k_m.gguf", tiny)
        yield server


@pytest.fixture
def library(tmp_path: Path, catalog: Catalog) -> ModelLibrary:
    return ModelLibrary(tmp_path / "models", catalog)


@pytest.fixture
def page(
    qtbot: QtBot, library: ModelLibrary, secrets: SecretStore
) -> Iterator[tuple[ModelsPage, Saved, Downloads]]:
    saved = Saved()
    downloads = Downloads(library, lambda: "http://127.0.0.1:9")
    models_page = ModelsPage(Settings(), library, downloads, secrets, saved, _no_probe)
    qtbot.addWidget(models_page)
    models_page.resize(860, 900)
    models_page.show()
    yield models_page, saved, downloads
    downloads.stop()


def test_the_roles_show_what_the_settings_say(page: tuple[ModelsPage, Saved, Downloads]) -> None:
    models_page, _, _ = page

    chat = models_page.roles[Role.CHAT].rows[0]
    background = models_page.roles[Role.BACKGROUND].rows[0]
    assert chat.source.currentText() == "SmolLM2 135M Instruct (embedded)"
    assert background.source.currentText() == "The chat's model"
    labels = [chat.source.itemText(i) for i in range(chat.source.count())]
    assert "Tiny Instruct (not downloaded)" in labels
    assert labels[-1] == "A server of your own…"
    assert not models_page.apply_button.isEnabled()  # nothing changed yet


def test_a_server_for_background_work_is_saved_and_its_key_goes_to_the_keyring(
    qtbot: QtBot, page: tuple[ModelsPage, Saved, Downloads], secrets: SecretStore
) -> None:
    models_page, saved, _ = page
    row = models_page.roles[Role.BACKGROUND].rows[0]
    row.source.setCurrentIndex(row.source.findData(SERVER))
    assert row.server.isVisible()
    qtbot.keyClicks(row.url, "http://box:8080/v1")
    row.test()  # asks the server: it serves one model, which fills in the name
    qtbot.keyClicks(row.api_key, "sk-live-9876")

    qtbot.mouseClick(models_page.apply_button, Qt.MouseButton.LeftButton)

    [settings] = saved.settings
    assert settings.models.background == (
        Backend(kind="server", url="http://box:8080/v1", model="qwen2.5:7b"),
    )
    assert secrets.get(api_key_name("http://box:8080/v1")) == "sk-live-9876"
    assert "sk-live-9876" not in settings.model_dump_json()
    assert "Reached a llama-server server; it serves: qwen2.5:7b" in row.test_result.text()


def test_a_server_address_that_cannot_be_used_is_not_saved_and_says_why(
    qtbot: QtBot, page: tuple[ModelsPage, Saved, Downloads]
) -> None:
    models_page, saved, _ = page
    row = models_page.roles[Role.CHAT].rows[0]
    row.source.setCurrentIndex(row.source.findData(SERVER))
    qtbot.keyClicks(row.url, "http://me:hunter2@box/v1")
    qtbot.keyClicks(row.model, "qwen")

    models_page.apply()

    assert saved.settings == []
    assert "user name or password" in models_page.message.text()


def test_a_fallback_is_added_after_the_first_backend(
    qtbot: QtBot, page: tuple[ModelsPage, Saved, Downloads]
) -> None:
    models_page, saved, _ = page
    editor = models_page.roles[Role.CHAT]
    first = editor.rows[0]
    first.source.setCurrentIndex(first.source.findData(SERVER))
    qtbot.keyClicks(first.url, "http://box:8080/v1")
    qtbot.keyClicks(first.model, "qwen")
    qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)

    models_page.apply()

    [settings] = saved.settings
    assert [b.kind for b in settings.models.chat] == ["server", "embedded"]


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_download_shows_its_progress_and_the_model_becomes_choosable(
    qtbot: QtBot,
    library: ModelLibrary,
    secrets: SecretStore,
    hub: HubServer,
    tiny: bytes,
) -> None:
    downloads = Downloads(library, lambda: hub.endpoint)
    models_page = ModelsPage(Settings(), library, downloads, secrets, Saved(), _no_probe)
    qtbot.addWidget(models_page)
    updates: list[DownloadUpdate] = []
    downloads.changed.connect(updates.append)
    try:
        card = models_page.cards["chat:tiny"]
        assert card.download_button.isVisibleTo(models_page)

        with qtbot.waitSignal(
            downloads.changed,
            check_params_cb=lambda update: update.state == "done",
            timeout=WAIT_MS,
        ):
            qtbot.mouseClick(card.download_button, Qt.MouseButton.LeftButton)

        assert (library.models_dir / "tiny-q4_k_m.gguf").read_bytes() == tiny
        assert updates[0].state == "queued"
        chat = models_page.roles[Role.CHAT].rows[0]
        assert chat.source.findText("Tiny Instruct") >= 0  # downloaded: no longer marked
        assert models_page.cards["chat:tiny"].state.text() == "Downloaded and checked."
    finally:
        downloads.stop()


def _download_then_pause(qtbot: QtBot, models_page: ModelsPage, downloads: Downloads) -> None:
    """Start the tiny model's download and pause it once some bytes came."""
    with qtbot.waitSignal(
        downloads.changed,
        check_params_cb=lambda u: u.state == "downloading" and u.progress.received > 0,
        timeout=WAIT_MS,
    ):
        models_page.cards["chat:tiny"].download_button.click()
    with qtbot.waitSignal(
        downloads.changed, check_params_cb=lambda u: u.state == "paused", timeout=WAIT_MS
    ):
        models_page.cards["chat:tiny"].pause_button.click()


@pytest.fixture
def paused(
    qtbot: QtBot, library: ModelLibrary, secrets: SecretStore, hub: HubServer
) -> Iterator[tuple[ModelsPage, Downloads]]:
    """The Models page with the tiny model's download paused part-way."""
    hub.throttle = 100_000  # four seconds for the whole file: time to pause
    downloads = Downloads(library, lambda: hub.endpoint)
    models_page = ModelsPage(Settings(), library, downloads, secrets, Saved(), _no_probe)
    qtbot.addWidget(models_page)
    try:
        _download_then_pause(qtbot, models_page, downloads)
        yield models_page, downloads
    finally:
        downloads.stop()


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_paused_download_keeps_its_part_and_resumes(
    qtbot: QtBot,
    paused: tuple[ModelsPage, Downloads],
    library: ModelLibrary,
    hub: HubServer,
    tiny: bytes,
) -> None:
    models_page, downloads = paused
    card = models_page.cards["chat:tiny"]
    assert card.download_button.text() == "Resume"
    assert card.option.partial > 0
    hub.throttle = None
    with qtbot.waitSignal(
        downloads.changed, check_params_cb=lambda u: u.state == "done", timeout=WAIT_MS
    ):
        card.download_button.click()
    assert (library.models_dir / "tiny-q4_k_m.gguf").read_bytes() == tiny
    assert "bytes=" in (hub.ranges()[-1] or "")  # the second request resumed


def test_files_are_added_by_drop_and_a_bad_one_says_why(
    page: tuple[ModelsPage, Saved, Downloads], smollm2_path: Path, tmp_path: Path
) -> None:
    models_page, saved, _ = page
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + os.urandom(100))
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(smollm2_path)), QUrl.fromLocalFile(str(broken))])
    drop = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        data,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )

    models_page.dropEvent(drop)

    [settings] = saved.settings
    assert settings.models.added == (str(smollm2_path),)
    assert "broken.gguf" in models_page.message.text()


def test_the_suggestion_fits_both_memory_and_cores() -> None:
    library = ModelLibrary(Path("/nonexistent"), load_catalog())

    roomy = suggested_model(library, 4096, free=64 * GIB, cores=16)
    two_cores = suggested_model(library, 4096, free=64 * GIB, cores=2)
    little_memory = suggested_model(library, 4096, free=4 * GIB, cores=16)
    nothing = suggested_model(library, 4096, free=GIB // 2, cores=16)

    assert roomy is not None and roomy.id == "llama-3.1-8b-instruct"
    assert two_cores is not None and two_cores.size <= 2 * 1_300_000_000
    assert little_memory is not None and little_memory.id == "qwen2.5-1.5b-instruct"
    assert nothing is None


def test_only_an_embedding_model_is_offered_for_memory_search(
    page: tuple[ModelsPage, Saved, Downloads],
) -> None:
    models_page, _, _ = page
    row = models_page.roles[Role.EMBEDDINGS].rows[0]

    labels = [row.source.itemText(i) for i in range(row.source.count())]

    assert labels == ["all-MiniLM-L6-v2 (embedded)", "A server of your own…"]
    assert not models_page.roles[Role.EMBEDDINGS].add_button.isVisible()  # one backend only


def test_an_address_that_cannot_be_one_is_not_asked(
    qtbot: QtBot, page: tuple[ModelsPage, Saved, Downloads]
) -> None:
    models_page, _, _ = page
    row = models_page.roles[Role.BACKGROUND].rows[0]
    row.source.setCurrentIndex(row.source.findData(SERVER))
    asked: list[str] = []
    row._probe = lambda url, key, done, failed: asked.append(url)
    qtbot.keyClicks(row.url, "http://my box:8080/v1")

    row.test()

    assert asked == []
    assert row.test_result.text() == "Not asked: an address has no spaces."
    assert row.test_result.property("problem") is True
    qtbot.keyClicks(row.url, "x")  # another address: what was said of this one goes
    assert row.test_result.text() == ""


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_cancelling_a_paused_download_leaves_nothing_and_says_so(
    paused: tuple[ModelsPage, Downloads], library: ModelLibrary
) -> None:
    models_page, _ = paused

    models_page.cards["chat:tiny"].cancel_button.click()

    card = models_page.cards["chat:tiny"]
    assert card.state.text() == "Not downloaded."
    assert card.download_button.text() == "Download"
    assert list(library.models_dir.iterdir()) == []


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_cancelling_a_paused_download_with_a_folder_in_its_way_says_what_is_there(
    paused: tuple[ModelsPage, Downloads], library: ModelLibrary
) -> None:
    models_page, _ = paused
    [sidecar] = library.models_dir.glob("*.part.json")
    sidecar.unlink()
    sidecar.mkdir()  # something of the user's where the download kept its notes

    models_page.cards["chat:tiny"].cancel_button.click()

    assert str(sidecar) in models_page.message.text()
    assert models_page.message.property("problem") is True
    assert sidecar.is_dir()


def test_choices_not_used_yet_survive_another_pages_save_and_are_asked_about(
    qtbot: QtBot, library: ModelLibrary, secrets: SecretStore, tmp_path: Path
) -> None:
    downloads = Downloads(library, lambda: "http://127.0.0.1:9")
    holder: list[SettingsWindow] = []
    models_page = ModelsPage(
        Settings(), library, downloads, secrets, lambda s: holder[0].save(s), _no_probe
    )
    window = SettingsWindow(
        Settings(), tmp_path / "settings.json", extra_pages=[("Models", models_page)]
    )
    holder.append(window)
    window.saved.connect(models_page.set_settings)
    qtbot.addWidget(window)
    try:
        row = models_page.roles[Role.BACKGROUND].rows[0]
        row.source.setCurrentIndex(row.source.findData(SERVER))
        qtbot.keyClicks(row.url, "http://box:8080/v1")
        qtbot.keyClicks(row.model, "qwen")
        assert window.is_dirty()

        chat = Settings().chat.model_copy(update={"memories_top_k": 7})
        assert window.save(Settings().model_copy(update={"chat": chat}))

        assert row.url.text() == "http://box:8080/v1"  # still there, still not used
        assert models_page.is_dirty()
        assert window.save_edits()  # what Save in the unsaved question does
        saved = load_settings(tmp_path / "settings.json")[0]
        assert saved.models.background[0].url == "http://box:8080/v1"
        assert saved.chat.memories_top_k == 7
    finally:
        downloads.stop()


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_an_unfinished_edit_survives_a_cancelled_download(
    qtbot: QtBot, paused: tuple[ModelsPage, Downloads]
) -> None:
    models_page, _ = paused
    row = models_page.roles[Role.CHAT].rows[0]
    row.source.setCurrentIndex(row.source.findData(SERVER))
    qtbot.keyClicks(row.url, "http://box:8080/v1")  # no model name yet: not a backend

    models_page.cards["chat:tiny"].cancel_button.click()  # the page reads the models again

    row = models_page.roles[Role.CHAT].rows[0]
    assert row.source.currentData() == SERVER
    assert row.url.text() == "http://box:8080/v1"


def test_a_file_of_an_architecture_llama_cpp_does_not_know_is_not_added(
    page: tuple[ModelsPage, Saved, Downloads], smollm2_path: Path, tmp_path: Path
) -> None:
    """As ``reverie models add`` refuses it (round 31): it was listed and
    could be chosen, and failed only when its role loaded it."""
    models_page, saved, _ = page
    unknown = write_tiny_gguf(
        tmp_path / "frob.gguf", tokenizer_metadata(smollm2_path), architecture="frobnicator"
    )

    models_page.add_files([unknown])

    assert saved.settings == []
    assert "'frobnicator', is not one this llama.cpp knows" in models_page.message.text()
