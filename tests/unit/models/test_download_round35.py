"""Round 35: a failed download says what the next one does with what it kept,
and a server's odd answers to a resume end in the file or a clear message.

The final message said "the download resumes where it stopped" whatever was
kept: after no byte at all, after a part the server no longer fitted (416,
or a range it did not ask for), and after a part no ETag vouched for, each
of which the next download fetches from its first byte.  A part the server
rejected also kept its record, so the next run asked the server for it again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from models.download import Downloader, DownloadState, hub_file_url, sidecar_path
from models.errors import DownloadFailed, Offline, ServerError
from tests.fakes import RecordedSleep
from tests.hub_server import HubServer
from tests.unit.models.test_download import (
    CUT,
    FILE,
    REPO,
    gguf_bytes,
    leave_part,
    leftovers,
    request_for,
    unused_port,
)

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])
RESUMES = "resumes where it stopped"
STARTS_OVER = "starts over"


def test_a_server_never_reached_says_the_download_starts_over(
    downloader: Downloader, models_dir: Path
) -> None:
    url = hub_file_url(f"http://127.0.0.1:{unused_port()}", REPO, "main", FILE)
    with pytest.raises(Offline) as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert RESUMES not in caught.value.hint
    assert STARTS_OVER in caught.value.hint


def test_a_part_the_server_rejected_is_not_resumed_and_not_said_to_be(
    downloader: Downloader, hub: HubServer, url: str, content: bytes, models_dir: Path
) -> None:
    leave_part(hub, url, models_dir)
    hub.fail_next(1, status=416)  # the resume: the part no longer fits the file
    hub.fail_next(5, status=503)  # then the server is down until the last attempt
    with pytest.raises(ServerError, match="HTTP 503") as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert RESUMES not in caught.value.hint
    assert STARTS_OVER in caught.value.hint
    assert not sidecar_path(models_dir / FILE).exists()

    asked = len(hub.ranges())
    path = downloader.download(request_for(url, models_dir), DownloadState())  # server back
    assert path.read_bytes() == content
    assert hub.ranges()[asked:] == [None]  # from the first byte, as it said


@pytest.mark.parametrize("etag", ['W/"weak"', "unquoted"])
def test_a_part_no_etag_vouches_for_is_said_to_start_over(
    hub: HubServer, url: str, models_dir: Path, etag: str
) -> None:
    hub.cdn_headers = {"ETag": etag}
    hub.cut_after = CUT
    hint = final_failure(url, models_dir, attempts=1).hint
    assert RESUMES not in hint
    assert STARTS_OVER in hint


def test_a_part_an_etag_vouches_for_is_said_to_resume(
    hub: HubServer, url: str, models_dir: Path
) -> None:
    leave_part(hub, url, models_dir)
    hub.fail_next(100, status=503)
    assert RESUMES in final_failure(url, models_dir, attempts=2).hint


def final_failure(url: str, models_dir: Path, attempts: int) -> ServerError:
    """The error a download of *url* that fails *attempts* times in a row ends with."""
    loader = Downloader(max_attempts=attempts, disk_margin=0, sleep=RecordedSleep())
    try:
        with pytest.raises(ServerError) as caught:
            loader.download(request_for(url, models_dir), DownloadState())
    finally:
        loader.close()
    return caught.value


class ChangingOnRetry(RecordedSleep):
    """The back-off during which the file on the server is replaced (a new upload)."""

    def __init__(self, hub: HubServer, changed: bytes) -> None:
        super().__init__()
        self._hub, self._changed = hub, changed

    def __call__(self, seconds: float) -> None:
        super().__call__(seconds)
        self._hub.add(REPO, FILE, self._changed)


def test_a_file_replaced_between_a_drop_and_the_resume_arrives_whole(
    hub: HubServer, url: str, models_dir: Path
) -> None:
    changed = gguf_bytes(CUT * 2, seed=35)
    hub.cut_after = CUT
    loader = Downloader(disk_margin=0, sleep=ChangingOnRetry(hub, changed))
    try:
        path = loader.download(request_for(url, models_dir), DownloadState())
    finally:
        loader.close()
    assert path.read_bytes() == changed  # not the old file's first bytes and the new one's rest
    assert hub.ranges() == [None, f"bytes={CUT}-"]


def test_an_empty_answer_to_a_download_is_refused_and_nothing_put_in_place(
    downloader: Downloader, hub: HubServer, url: str, models_dir: Path
) -> None:
    hub.cdn_headers = {"Content-Length": "0"}
    with pytest.raises(DownloadFailed) as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert FILE in str(caught.value)
    assert FILE not in leftovers(models_dir)
