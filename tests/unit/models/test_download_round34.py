"""Round 34: a download whose server announces more bytes than it sends
ends, with a clear message, instead of fetching the whole file again for
ever.

Each attempt read the whole file, then waited for the rest the server had
announced until the read timed out; the resume past the end was refused
(416), the part dropped and the file fetched again from its first byte.
That fetch counted as progress, so the failures never added up: the file
was downloaded again every few seconds until the user cancelled.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from models.download import Downloader, DownloadState
from models.errors import ServerError
from tests.fakes import RecordedSleep
from tests.hub_server import HubServer
from tests.unit.models.test_download import FILE, SIZE, Running, request_for

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])
ATTEMPTS = 4


def test_a_server_announcing_more_than_it_sends_fails_after_its_attempts(
    hub: HubServer, url: str, models_dir: Path, sleep: RecordedSleep
) -> None:
    hub.cdn_headers = {"Content-Length": str(SIZE + 1000)}
    loader = Downloader(
        timeout=httpx.Timeout(2.0), sleep=sleep, disk_margin=0, max_attempts=ATTEMPTS
    )
    try:
        outcome = Running(loader, request_for(url, models_dir), DownloadState()).result(60.0)
    finally:
        loader.close()

    assert isinstance(outcome, ServerError), outcome
    assert "Try again later" in str(outcome)
    # ATTEMPTS in all (the first made progress), a wait between each two.
    assert len(sleep.delays) == ATTEMPTS - 1
    assert not (models_dir / FILE).exists()  # nothing unchecked put in place
