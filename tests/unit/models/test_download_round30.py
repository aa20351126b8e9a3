"""Round 30 of issue 15 against downloads: the models folder deleted while
a download runs (a clean-up, the user emptying it, a drive unmounted).

The bytes went on into a file no folder held, and at the end the check of
its size raised a bare ``FileNotFoundError`` out of ``Downloader.download``
(a traceback in ``reverie models download``, Python's words on the Models
page), after the whole model had come for nothing.  Now the part is looked
for as the download goes (every ``PART_CHECK_BYTES``) and before its
checks, and its loss is a ``DownloadFailed`` saying what happened.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import models.download
from models.download import DownloadProgress, DownloadState, hub_file_url
from models.errors import DownloadFailed
from tests.hub_server import HubServer
from tests.unit.models.test_download import (
    CUT,
    FILE,
    SIZE,
    gguf_bytes,
    request_for,
    sha256,
    stalling_downloader,
)

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

GONE = "was deleted while it downloaded"


@pytest.fixture
def hub() -> Iterator[HubServer]:
    with HubServer() as server:
        yield server


def _download_deleting(
    hub: HubServer, models_dir: Path, when: Callable[[DownloadProgress], bool]
) -> list[int]:
    """Download the file, deleting *models_dir* at the first progress *when*
    holds; how much had come then."""
    content = gguf_bytes()
    hub.add("someone/tiny", FILE, content)
    url = hub_file_url(hub.endpoint, "someone/tiny", "main", FILE)
    request = request_for(url, models_dir, expected_size=SIZE, expected_sha256=sha256(content))
    deleted: list[int] = []

    def delete_the_folder(progress: DownloadProgress) -> None:
        if not deleted and when(progress):
            deleted.append(progress.received)
            shutil.rmtree(models_dir)

    downloader = stalling_downloader()  # progress after every read
    try:
        with pytest.raises(DownloadFailed, match=GONE):
            downloader.download(request, DownloadState(delete_the_folder))
    finally:
        downloader.close()
    return deleted


@pytest.mark.timeout(60)  # a download not told stalls on the server for two minutes
def test_a_models_folder_deleted_mid_download_ends_it_as_it_happens(
    hub: HubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(models.download, "PART_CHECK_BYTES", 256 * 1024, raising=False)
    hub.stall_after = CUT  # the rest never comes: only a check made as it goes ends it

    deleted = _download_deleting(hub, tmp_path / "models", lambda p: p.received > 0)

    assert deleted and deleted[0] < CUT


def test_a_models_folder_deleted_as_the_download_ends_is_said(
    hub: HubServer, tmp_path: Path
) -> None:
    deleted = _download_deleting(hub, tmp_path / "models", lambda p: p.received == SIZE)

    assert deleted == [SIZE]
