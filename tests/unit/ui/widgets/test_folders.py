"""Opening a folder of Reverie's in the file manager, through Qt's URL handlers."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.ui.widgets.folders import FolderNotOpened, open_folder
from tests.file_urls import OpenedUrls, catching_file_urls


@pytest.fixture
def urls(qtbot: QtBot) -> Iterator[OpenedUrls]:
    with catching_file_urls() as receiver:
        yield receiver


def test_a_folder_is_opened(tmp_path: Path, urls: OpenedUrls) -> None:
    open_folder(tmp_path)

    assert urls.opened == [tmp_path]


def test_a_missing_folder_is_made_first_private(tmp_path: Path, urls: OpenedUrls) -> None:
    folder = tmp_path / "cache" / "logs"

    open_folder(folder)

    assert urls.opened == [folder]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(folder.parent.stat().st_mode) == 0o700


def test_a_file_in_its_place_is_not_opened(tmp_path: Path, urls: OpenedUrls) -> None:
    (tmp_path / "logs").write_text("mine")

    with pytest.raises(FolderNotOpened, match="is not a folder"):
        open_folder(tmp_path / "logs")
    with pytest.raises(FolderNotOpened, match="could not be made"):
        open_folder(tmp_path / "logs" / "deeper")

    assert urls.opened == []
    assert (tmp_path / "logs").read_text() == "mine"
