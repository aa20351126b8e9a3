"""Round 8: what stands where a download writes, and servers that answer oddly.

A folder where the model or its ``.rejected`` copy goes was a bare
``IsADirectoryError`` after the whole download; a symbolic link (or a second
name) at the ``.part`` or its sidecar was written through, overwriting the
file it led to; a named pipe there hung the download for good.  A server
redirecting in a loop raised a bare ``httpx.TooManyRedirects``; a
``Retry-After`` or ``Content-Range`` holding a superscript digit a bare
``ValueError``; a non-ASCII ``ETag`` a ``UnicodeEncodeError`` on resuming; a
damaged sidecar a ``RecursionError`` or ``AttributeError``.  Each is now a
typed ``DownloadFailed`` naming the server or the path, or is ignored so the
download goes on.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from models import part_writer
from models.download import (
    Downloader,
    DownloadProgress,
    DownloadState,
    part_path,
    rejected_path,
    sidecar_path,
)
from models.errors import DownloadFailed, FileRejected, Offline, ServerError
from tests.fakes import RecordedSleep
from tests.hub_server import HubServer
from tests.unit.models.test_download import (
    CUT,
    FILE,
    SIZE,
    leave_part,
    request_for,
    sha256,
    unused_port,
)

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

NOTES = b"the user's notes\n"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    """A file of the user's, outside the models folder, that no download may touch."""
    path = tmp_path / "notes.txt"
    path.write_bytes(NOTES)
    return path


def on_the_wire(text: str) -> str:
    """*text* as the hub must be given it to send it in UTF-8 (it sends headers as latin-1);
    httpx reads it back as *text*, or as latin-1 if it is not UTF-8 (a lone byte)."""
    return text if all(ord(c) < 256 for c in text) else text.encode().decode("latin-1")


def on_first_progress(action: object) -> DownloadState:
    """A state that runs *action* once, when the download reports its start."""
    done: list[bool] = []

    def report(_progress: DownloadProgress) -> None:
        if not done:
            done.append(True)
            action()  # type: ignore[operator]  # a test's lambda

    return DownloadState(report)


# -- a folder in the way ----------------------------------------------------------------
@pytest.mark.parametrize("in_the_way", [FILE, f"{FILE}.rejected", f"{FILE}.part"])
def test_a_folder_in_the_way_is_named_before_a_byte_is_downloaded(
    downloader: Downloader, hub: HubServer, url: str, models_dir: Path, in_the_way: str
) -> None:
    folder = models_dir / in_the_way
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    with pytest.raises(DownloadFailed, match="is a folder") as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert str(folder) in str(caught.value)
    assert "Move or rename" in caught.value.hint
    assert hub.requests == []  # nothing downloaded for nothing
    assert (folder / "keep.txt").read_text() == "mine"


def test_a_folder_appearing_where_the_model_goes_mid_download_is_named(
    downloader: Downloader, url: str, models_dir: Path
) -> None:
    destination = models_dir / FILE
    state = on_first_progress(destination.mkdir)
    with pytest.raises(DownloadFailed, match="is a folder") as caught:
        downloader.download(request_for(url, models_dir), state)
    assert str(destination) in str(caught.value)
    assert destination.is_dir()
    assert part_path(destination).stat().st_size == SIZE  # kept: the next try only checks it


def test_a_folder_appearing_where_a_rejected_copy_goes_is_named(
    downloader: Downloader, hub: HubServer, url: str, models_dir: Path
) -> None:
    hub.corrupt = True
    rejected = rejected_path(models_dir / FILE)
    state = on_first_progress(rejected.mkdir)
    with pytest.raises(DownloadFailed, match="sha256") as caught:
        downloader.download(request_for(url, models_dir), state)
    assert not isinstance(caught.value, FileRejected)  # it could not be kept aside
    assert str(rejected) in str(caught.value)
    assert sorted(p.name for p in models_dir.iterdir()) == [rejected.name]  # no damaged part


def test_a_models_folder_that_is_a_file_is_named(
    downloader: Downloader, hub: HubServer, url: str, tmp_path: Path
) -> None:
    not_a_folder = tmp_path / "models"
    not_a_folder.write_text("a file")
    with pytest.raises(DownloadFailed, match="Cannot make the folder") as caught:
        downloader.download(request_for(url, not_a_folder), DownloadState())
    assert str(not_a_folder) in str(caught.value)
    assert hub.requests == []


# -- links and other names -----------------------------------------------------------
@pytest.mark.parametrize("suffix", [".part", ".part.json"])
def test_a_link_where_the_download_writes_is_never_written_through(
    downloader: Downloader,
    hub: HubServer,
    url: str,
    models_dir: Path,
    notes: Path,
    suffix: str,
) -> None:
    link = models_dir / f"{FILE}{suffix}"
    link.symlink_to(notes)
    with pytest.raises(DownloadFailed, match="symbolic link") as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert str(link) in str(caught.value)
    assert "Remove" in caught.value.hint
    assert notes.read_bytes() == NOTES
    assert link.is_symlink()  # the user's to remove: it may be theirs
    assert hub.requests == []


def test_a_second_name_of_a_file_at_the_part_is_never_written_through(
    downloader: Downloader, url: str, models_dir: Path, notes: Path
) -> None:
    os.link(notes, part_path(models_dir / FILE))
    with pytest.raises(DownloadFailed, match="another name") as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert str(part_path(models_dir / FILE)) in str(caught.value)
    assert notes.read_bytes() == NOTES


@pytest.mark.timeout(60)  # before the fix, opening the pipe to write waited for a reader forever
@pytest.mark.parametrize("suffix", [".part", ".part.json"])
def test_a_named_pipe_where_the_download_writes_is_named_not_waited_on(
    downloader: Downloader, url: str, models_dir: Path, suffix: str
) -> None:
    pipe = models_dir / f"{FILE}{suffix}"
    os.mkfifo(pipe)
    with pytest.raises(DownloadFailed, match="named pipe") as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert str(pipe) in str(caught.value)


@pytest.mark.parametrize("suffix", ["", ".rejected"])
def test_a_link_where_a_finished_file_goes_is_replaced_not_followed(
    downloader: Downloader, hub: HubServer, url: str, models_dir: Path, notes: Path, suffix: str
) -> None:
    """Not a defect before round 8 (a rename replaces a link): kept so it stays so."""
    link = models_dir / f"{FILE}{suffix}"
    link.symlink_to(notes)
    if suffix == ".rejected":
        hub.corrupt = True
        with pytest.raises(FileRejected):
            downloader.download(request_for(url, models_dir), DownloadState())
    else:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert notes.read_bytes() == NOTES
    assert not link.is_symlink()
    assert link.stat().st_size == SIZE


# -- odd servers ----------------------------------------------------------------------
def test_a_server_redirecting_in_a_loop_is_named_at_once(
    downloader: Downloader, hub: HubServer, sleep: RecordedSleep, url: str, models_dir: Path
) -> None:
    hub.redirect_to = url
    with pytest.raises(ServerError, match="in a loop") as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert f"The server at 127.0.0.1:{hub.port} kept redirecting the download of {FILE}" in str(
        caught.value
    )
    assert "models.hub_endpoint" in caught.value.hint
    assert sleep.delays == []  # the same loop again would not help
    assert list(models_dir.iterdir()) == []


def test_a_redirect_to_an_address_that_is_not_http_fails_at_once(
    downloader: Downloader, hub: HubServer, sleep: RecordedSleep, url: str, models_dir: Path
) -> None:
    hub.redirect_to = "ftp://127.0.0.1/tiny.gguf"
    with pytest.raises(ServerError, match="not http or https") as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert "127.0.0.1" in str(caught.value)
    assert sleep.delays == []


def test_an_unreachable_server_redirected_to_is_the_one_named_in_words(
    downloader: Downloader, hub: HubServer, url: str, models_dir: Path
) -> None:
    cdn = f"127.0.0.1:{unused_port()}"
    hub.redirect_to = f"http://{cdn}/cdn-lfs/tiny?signature=secret"
    with pytest.raises(Offline) as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert str(caught.value).startswith(f"Cannot reach {cdn}: connection refused.")
    assert "Errno" not in str(caught.value)
    assert "secret" not in str(caught.value)


def test_a_connection_that_keeps_breaking_is_said_in_words(
    hub: HubServer, url: str, models_dir: Path
) -> None:
    hub.cut_after = CUT
    once = Downloader(max_attempts=1, disk_margin=0)
    try:
        with pytest.raises(ServerError) as caught:
            once.download(request_for(url, models_dir), DownloadState())
    finally:
        once.close()
    assert str(caught.value).startswith(
        f"The connection to 127.0.0.1:{hub.port} kept failing: it broke off or garbled its answer."
    )


@pytest.mark.parametrize("retry_after", ["\xb2", "\xb9\xb2", "\u0663", "-1", "1.5", "soon", ""])
def test_a_retry_after_that_is_not_a_number_of_seconds_is_ignored(
    downloader: Downloader,
    hub: HubServer,
    sleep: RecordedSleep,
    url: str,
    content: bytes,
    models_dir: Path,
    retry_after: str,
) -> None:
    hub.retry_after = on_the_wire(retry_after)
    hub.fail_next(1)
    path = downloader.download(request_for(url, models_dir), DownloadState())
    assert path.read_bytes() == content
    assert sleep.delays == [1.0]  # the back-off alone


def test_a_retry_after_of_ages_waits_no_longer_than_the_longest_back_off(
    downloader: Downloader, hub: HubServer, sleep: RecordedSleep, url: str, models_dir: Path
) -> None:
    hub.retry_after = "9" * 400
    hub.fail_next(1)
    downloader.download(request_for(url, models_dir), DownloadState())
    assert sleep.delays == [30.0]


@pytest.mark.parametrize("content_range", ["bytes 0-9/\xb2", "bytes */\u0663", "bytes 0-1/x"])
def test_a_content_range_without_plain_digits_is_ignored(
    downloader: Downloader,
    hub: HubServer,
    url: str,
    content: bytes,
    models_dir: Path,
    content_range: str,
) -> None:
    hub.cdn_headers = {"Content-Range": on_the_wire(content_range)}
    path = downloader.download(request_for(url, models_dir), DownloadState())  # size unknown
    assert path.read_bytes() == content


@pytest.mark.parametrize("etag", ['"caf\xe9"', 'W/"abc"'], ids=["not-ascii", "weak"])
def test_an_etag_that_cannot_vouch_for_the_bytes_restarts_instead_of_resuming(
    downloader: Downloader,
    hub: HubServer,
    url: str,
    content: bytes,
    models_dir: Path,
    etag: str,
) -> None:
    hub.cdn_headers = {"ETag": etag}
    hub.cut_after = CUT
    request = request_for(url, models_dir, expected_sha256=sha256(content))
    path = downloader.download(request, DownloadState())
    assert path.read_bytes() == content
    assert hub.ranges() == [None, None]  # no If-Range it cannot vouch for
    assert {r.if_range for r in hub.requests} == {None}


@pytest.mark.parametrize(
    "sidecar",
    ["[" * 100_000, '{"etag": 5}', "[1, 2]", "\udcff"],
    ids=["deep", "etag-a-number", "a-list", "not-utf8"],
)
def test_a_damaged_sidecar_restarts_the_download(
    downloader: Downloader,
    hub: HubServer,
    url: str,
    content: bytes,
    models_dir: Path,
    sidecar: str,
) -> None:
    leave_part(hub, url, models_dir)
    kept = json.loads(sidecar_path(models_dir / FILE).read_text())
    if sidecar.startswith("{"):  # the right request, one field damaged
        sidecar = json.dumps({**kept, **json.loads(sidecar)})
    sidecar_path(models_dir / FILE).write_bytes(sidecar.encode("utf-8", "surrogateescape"))
    path = downloader.download(request_for(url, models_dir), DownloadState())
    assert path.read_bytes() == content
    assert hub.ranges()[-1] is None  # from the start


def test_a_file_too_large_for_the_file_system_says_so(
    downloader: Downloader, url: str, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def on_fat32(fd: int, chunks: list[bytes]) -> None:
        """A write past the largest file the file system holds (4 GB on FAT32)."""
        raise OSError(errno.EFBIG, os.strerror(errno.EFBIG))

    monkeypatch.setattr(part_writer, "write_all", on_fat32)
    with pytest.raises(DownloadFailed, match="too large for the file system") as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert "FAT32" in caught.value.hint
