"""Round 9 of issue 15 against downloads: numbers too long to be sizes, and
the same model downloaded twice at once.

A ``Content-Range`` whose start had 5,000 digits made ``int`` raise a bare
``ValueError`` out of ``Downloader.download`` (Python's words on the Models
page, a traceback in the CLI).  Two downloads of one file (the Models page and
``reverie models download``) wrote the same ``.part``; the one that finished
second failed with a wrong reason, or a bare ``FileNotFoundError``.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from models.download import (
    Downloader,
    DownloadState,
    lock_path,
    part_path,
    sidecar_path,
)
from models.errors import DownloadCancelled, DownloadFailed
from tests.hub_server import HubServer
from tests.unit.models.test_download import (
    CUT,
    FILE,
    JOIN_S,
    SIZE,
    Running,
    leave_part,
    request_for,
    stalling_downloader,
)

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

LONG = "9" * 5000
"""More digits than ``int`` converts (4,300)."""


def leftovers(models_dir: Path) -> list[str]:
    return sorted(path.name for path in models_dir.iterdir())


# -- numbers too long to be a size --------------------------------------------------
def test_a_resumed_part_whose_start_has_thousands_of_digits_starts_over(
    downloader: Downloader, hub: HubServer, url: str, content: bytes, models_dir: Path
) -> None:
    leave_part(hub, url, models_dir)
    hub.cdn_headers = {"Content-Range": f"bytes {LONG}-{SIZE - 1}/{SIZE}"}

    path = downloader.download(request_for(url, models_dir), DownloadState())

    assert path.read_bytes() == content
    # Not the part asked for: the part kept was dropped, the next attempt started over.
    assert hub.ranges() == [None, f"bytes={CUT}-", None]


def test_a_total_size_of_thousands_of_digits_is_no_size(
    downloader: Downloader, hub: HubServer, url: str, content: bytes, models_dir: Path
) -> None:
    hub.cdn_headers = {"Content-Range": f"bytes 0-{SIZE - 1}/{LONG}"}
    path = downloader.download(request_for(url, models_dir), DownloadState())  # size unknown
    assert path.read_bytes() == content


# -- one download of a file at a time ------------------------------------------------
def test_a_second_download_of_the_same_file_is_told_one_is_under_way(
    hub: HubServer, url: str, content: bytes, models_dir: Path
) -> None:
    hub.stall_after = CUT
    first, second = stalling_downloader(), Downloader(disk_margin=0)
    got_all_sent = threading.Event()
    state = DownloadState(lambda p: got_all_sent.set() if p.received >= CUT else None)
    try:
        running = Running(first, request_for(url, models_dir), state)
        assert got_all_sent.wait(JOIN_S)  # it holds a part of CUT bytes, and waits for more
        part = part_path(models_dir / FILE)
        kept = part.read_bytes()

        with pytest.raises(DownloadFailed, match="being downloaded already") as raised:
            second.download(request_for(url, models_dir), DownloadState())

        assert "reverie models download" in str(raised.value)
        assert part.read_bytes() == kept  # the second wrote nothing
        state.cancel()
        assert isinstance(running.result(), DownloadCancelled)
    finally:
        first.close()
        second.close()
    # Once the first stopped, the file downloads as usual, and no lock is left.
    again = Downloader(disk_margin=0)
    try:
        path = again.download(request_for(url, models_dir), DownloadState())
    finally:
        again.close()
    assert path.read_bytes() == content
    assert leftovers(models_dir) == [FILE]


def test_a_lock_left_by_a_killed_download_does_not_hold_the_next(
    downloader: Downloader, hub: HubServer, url: str, content: bytes, models_dir: Path
) -> None:
    destination = models_dir / FILE
    lock_path(destination).write_bytes(b"")  # its process is gone: the system lock with it
    path = downloader.download(request_for(url, models_dir), DownloadState())
    assert path.read_bytes() == content
    assert not lock_path(destination).exists()
    assert not sidecar_path(destination).exists()


def test_a_link_where_the_lock_goes_is_named_not_followed(
    downloader: Downloader, url: str, models_dir: Path, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"the user's notes\n")
    lock_path(models_dir / FILE).symlink_to(notes)

    with pytest.raises(DownloadFailed, match="symbolic link"):
        downloader.download(request_for(url, models_dir), DownloadState())

    assert notes.read_bytes() == b"the user's notes\n"
