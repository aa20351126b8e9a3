"""Round 8: ModelLibrary.download with something in the way.

A folder where a catalog model's ``.rejected`` copy goes, or a file where the
models folder goes, escaped as a bare ``IsADirectoryError`` /
``FileExistsError``; both are a ``DownloadFailed`` naming the path, said
before anything is asked of the server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.backends.library import ModelLibrary
from models.catalog import load_catalog
from models.download import Downloader, DownloadState, part_path, rejected_path
from models.errors import DownloadFailed
from tests.hub_server import HubServer

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])


@pytest.fixture
def hub() -> Iterator[HubServer]:
    with HubServer() as server:
        yield server


@pytest.fixture
def downloader(hub: HubServer) -> Iterator[Downloader]:
    loader = Downloader(disk_margin=0, max_attempts=1)
    yield loader
    loader.close()


def test_a_folder_where_the_rejected_copy_goes_is_named(
    hub: HubServer, downloader: Downloader, tmp_path: Path
) -> None:
    library = ModelLibrary(tmp_path / "models", load_catalog())
    entry = library.catalog.entries[0]
    folder = rejected_path(library.file_of(entry))
    folder.mkdir(parents=True)
    with pytest.raises(DownloadFailed, match="is a folder") as caught:
        library.download(entry, DownloadState(), endpoint=hub.endpoint, downloader=downloader)
    assert str(folder) in str(caught.value)
    assert folder.is_dir()
    assert hub.requests == []


def test_a_file_where_the_models_folder_goes_is_named(
    hub: HubServer, downloader: Downloader, tmp_path: Path
) -> None:
    models = tmp_path / "models"
    models.write_text("not a folder")
    library = ModelLibrary(models, load_catalog())
    with pytest.raises(DownloadFailed, match="Cannot make the folder") as caught:
        library.download(
            library.catalog.entries[0],
            DownloadState(),
            endpoint=hub.endpoint,
            downloader=downloader,
        )
    assert str(models) in str(caught.value)
    assert models.read_text() == "not a folder"
    assert hub.requests == []


def test_a_copy_rejected_before_is_removed_when_the_download_starts(
    hub: HubServer, downloader: Downloader, tmp_path: Path
) -> None:
    """Not a defect: the removal moved from the library into the downloader; kept so it stays."""
    library = ModelLibrary(tmp_path / "models", load_catalog())
    entry = library.catalog.entries[0]
    old = rejected_path(library.file_of(entry))
    old.parent.mkdir()
    old.write_bytes(b"a damaged copy")
    with pytest.raises(DownloadFailed):  # the local hub does not have the catalog's files
        library.download(entry, DownloadState(), endpoint=hub.endpoint, downloader=downloader)
    assert not old.exists()


def test_discarding_a_paused_download_with_a_folder_in_its_place_says_so(
    tmp_path: Path,
) -> None:
    library = ModelLibrary(tmp_path / "models", load_catalog())
    entry = library.catalog.entries[0]
    in_the_way = part_path(library.file_of(entry))
    in_the_way.mkdir(parents=True)

    with pytest.raises(DownloadFailed, match=str(in_the_way)):
        library.discard_partial(entry)

    assert in_the_way.is_dir(), "what stands there is the user's"
