"""The Models page in round 29.

Its word on a paused download said how many megabytes were kept, rounded,
so a download paused before its first half megabyte read "Paused; the 0 MB
downloaded so far are kept." (and a gigabyte-sized one "2500 MB"), though
the bytes were there.  It now gives the size as every other size on the
page is given.

A file listed twice in ``models.added`` (settings.json edited by hand, or
``/models//a.gguf`` beside ``/models/a.gguf``) was a model of its own each
time: two cards, each with Remove, and twice in every role's choices.  It
is one file, listed once.  And Remove did nothing to a file written
otherwise than the page names it (``~/a.gguf``, ``/models//a.gguf``): the
page compared the names, not the files; every entry naming it goes now.

A role on a file the settings write otherwise than the page names it
(``~/a.gguf``) showed that file twice in its choices, once by its name and
once as the path written; it is the added file's choice now, and left as
it is the role is saved as it was written.

A file whose path no role may name (a zero-width space in it) was added
from the page, then refused by *Use these models*; ``reverie models add``
refuses it at once, and so does the page now, saying why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QComboBox
from pytestqt.qtbot import QtBot

from desktop.core.backends.library import ModelLibrary
from desktop.core.base.paths import AppPaths
from desktop.core.base.secrets import SecretStore
from desktop.core.base.settings import Backend, ModelSettings, Settings, load_settings
from desktop.core.base.text import size_text
from desktop.ui.settings.downloads import Downloads
from desktop.ui.settings.model_cards import ModelCard
from desktop.ui.settings.models_page import ModelsPage
from models.broker import Role
from tests.unit.ui.settings.test_models_page import (  # noqa: F401 (fixtures)
    Saved,
    _no_probe,
    catalog,
    hub,
    library,
    page,
    paused,
    secrets,
    tiny,
)


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_paused_download_says_the_size_it_kept(
    paused: tuple[ModelsPage, Downloads],  # noqa: F811 (a fixture)
    library: ModelLibrary,  # noqa: F811 (a fixture)
) -> None:
    models_page, _ = paused
    kept = (library.models_dir / "tiny-q4_k_m.gguf.part").stat().st_size
    assert 0 < kept < 500_000  # under half a megabyte: "0 MB" as megabytes rounded

    said = models_page.cards["chat:tiny"].state.text()

    assert said == f"Paused; the {size_text(kept)} downloaded so far are kept."
    assert "0 MB" not in said


def test_a_file_listed_twice_is_one_model_on_the_page(
    qtbot: QtBot,
    user_dirs: AppPaths,
    library: ModelLibrary,  # noqa: F811 (a fixture)
    secrets: SecretStore,  # noqa: F811 (a fixture)
    smollm2_path: Path,
) -> None:
    file = str(smollm2_path)
    twice = [file, file, f"{smollm2_path.parent}//{smollm2_path.name}"]
    settings_file = user_dirs.settings_file
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text(json.dumps({"version": 2, "models": {"added": twice}}), "utf-8")

    settings, problem = load_settings(settings_file)
    downloads = Downloads(library, lambda: "http://127.0.0.1:9")
    models_page = ModelsPage(settings, library, downloads, secrets, Saved(), _no_probe)
    qtbot.addWidget(models_page)
    try:
        cards = models_page.findChildren(ModelCard)
        chat = models_page.findChild(QComboBox, "backend-source")
        assert chat is not None
        choices = [chat.itemData(i) for i in range(chat.count())]
    finally:
        downloads.stop()

    assert problem is None
    assert [card.option.ref for card in cards if card.option.source == "added"] == [file]
    assert choices.count(file) == 1


@pytest.mark.parametrize("written", ["{folder}//{name}", "{folder}/./{name}", "~/{name}"])
def test_remove_takes_out_a_file_as_it_was_written(
    qtbot: QtBot,
    library: ModelLibrary,  # noqa: F811 (a fixture)
    secrets: SecretStore,  # noqa: F811 (a fixture)
    smollm2_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    written: str,
) -> None:
    monkeypatch.setenv("HOME", str(smollm2_path.parent))
    added = written.format(folder=smollm2_path.parent, name=smollm2_path.name)
    settings = Settings().model_copy(
        update={"models": ModelSettings(added=(added, "/elsewhere/other.gguf"))}
    )
    saved = Saved()
    downloads = Downloads(library, lambda: "http://127.0.0.1:9")
    models_page = ModelsPage(settings, library, downloads, secrets, saved, _no_probe)
    qtbot.addWidget(models_page)
    try:
        models_page.cards[f"chat:{smollm2_path}"].remove_button.click()
    finally:
        downloads.stop()

    assert saved.settings[-1].models.added == ("/elsewhere/other.gguf",)


def test_a_file_no_role_could_use_is_not_added_and_says_why(
    page: tuple[ModelsPage, Saved, Downloads],  # noqa: F811 (a fixture)
    smollm2_path: Path,
    tmp_path: Path,
) -> None:
    models_page, saved, _ = page
    hidden = tmp_path / "smol\u200blm.gguf"  # a zero-width space: no role may name it
    hidden.symlink_to(smollm2_path)

    models_page.add_files([hidden])

    assert saved.settings == []  # nothing added that Use these models would refuse
    said = models_page.message.text()
    assert "invisible or control character (U+200B)" in said
    assert models_page.message.property("problem") is True


def test_a_role_on_a_file_written_otherwise_shows_that_file_once_unchanged(
    qtbot: QtBot,
    library: ModelLibrary,  # noqa: F811 (a fixture)
    secrets: SecretStore,  # noqa: F811 (a fixture)
    smollm2_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mine = tmp_path / "mine.gguf"
    mine.symlink_to(smollm2_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    chat = (Backend(kind="local", model="~/mine.gguf"),)  # as settings.json may say it
    settings = Settings().model_copy(
        update={"models": ModelSettings(added=(str(mine),), chat=chat)}
    )
    downloads = Downloads(library, lambda: "http://127.0.0.1:9")
    models_page = ModelsPage(settings, library, downloads, secrets, Saved(), _no_probe)
    qtbot.addWidget(models_page)
    try:
        row = models_page.roles[Role.CHAT].rows[0]
        labels = [row.source.itemText(i) for i in range(row.source.count())]

        assert labels.count("mine.gguf") == 1
        assert "~/mine.gguf" not in labels
        assert row.source.currentText() == "mine.gguf"
        assert row.backend() == chat[0]  # as written: nothing changed
        assert not models_page.apply_button.isEnabled()
    finally:
        downloads.stop()
