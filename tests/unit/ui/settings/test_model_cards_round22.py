"""Round 22: a model card names an added file as the file is named."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.core.backends.library import ModelLibrary
from desktop.ui.settings.model_cards import ModelCard
from models.catalog import load_catalog
from tests.on_screen import label_shows


def test_an_added_files_name_is_shown_as_written(qtbot: QtBot, tmp_path: Path) -> None:
    """A GGUF file named "<h1>Big.gguf" (or "<s>old</s>...") was named on its
    card by a heading "Big.gguf": the card's title read the name as HTML."""
    library = ModelLibrary(tmp_path / "models", load_catalog())
    for name in ("<h1>Big.gguf", "<s>Mistral-7B-Q4.gguf", "<b>R&D tiny.gguf"):
        path = tmp_path / name
        path.write_bytes(b"GGUF" + bytes(100))
        card = ModelCard(library.added_option(path, 2048), 8 * 2**30)
        qtbot.addWidget(card)

        assert label_shows(card.title) == name
