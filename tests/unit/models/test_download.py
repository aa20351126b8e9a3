"""The model downloader against a local Hub (tests/hub_server.py) on 127.0.0.1.

Real sockets, real files: interrupted and resumed downloads, servers that
ignore ranges or change the file, pause, cancel, a full disk, an unreachable
server, retries and refusals, and the checks before a file is put in place.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import logging
import os
import random
import socket
import struct
import threading
from pathlib import Path

import httpx
import pytest

from models import part_writer
from models.download import (
    Downloader,
    DownloadProgress,
    DownloadRequest,
    DownloadState,
    hub_file_url,
    part_path,
    rejected_path,
    sidecar_path,
)
from models.errors import (
    DiskFull,
    DownloadCancelled,
    DownloadPaused,
    FileRejected,
    Offline,
    ServerError,
    ServerRefused,
)
from tests.fakes import RecordedSleep
from tests.hub_server import HubServer

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

REPO = "reverie/tiny-model"
FILE = "tiny.Q4_0.gguf"
SIZE = 3 * 1024 * 1024 + 123  # several reads and write buffers, not a multiple of either
CUT = 1_000_000
JOIN_S = 10.0  # far below the read timeout of the stalling tests: only an abort ends them that fast
STALLING_TIMEOUT_S = 120.0


def gguf_bytes(size: int = SIZE, seed: int = 1) -> bytes:
    """A file that passes the GGUF header check: magic, version 3, no tensors, no metadata."""
    header = b"GGUF" + struct.pack("<IQQ", 3, 0, 0)
    return header + random.Random(seed).randbytes(size - len(header))


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


class SteppingClock:
    """A clock that moves on by *step* seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


class Running:
    """A download running on its own thread, as the app runs it."""

    def __init__(
        self, downloader: Downloader, request: DownloadRequest, state: DownloadState
    ) -> None:
        self.outcome: Path | BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(downloader, request, state), name="download"
        )
        self._thread.start()

    def _run(self, downloader: Downloader, request: DownloadRequest, state: DownloadState) -> None:
        try:
            self.outcome = downloader.download(request, state)
        except BaseException as error:  # handed to the test thread, which asserts on it
            self.outcome = error

    def result(self, timeout: float = JOIN_S) -> Path | BaseException | None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), f"the download did not stop within {timeout} s"
        return self.outcome


@pytest.fixture
def models_dir(models_dir: Path) -> Path:
    """The models folder, already holding a model no download may touch."""
    (models_dir / "other.gguf").write_bytes(gguf_bytes(1000, seed=99))
    return models_dir


def request_for(
    url: str,
    models_dir: Path,
    *,
    expected_size: int | None = None,
    expected_sha256: str | None = None,
    token: str | None = None,
) -> DownloadRequest:
    return DownloadRequest(url, models_dir / FILE, expected_size, expected_sha256, token)


def leftovers(models_dir: Path) -> list[str]:
    """What a download left in the folder besides the untouched model."""
    return sorted(p.name for p in models_dir.iterdir() if p.name != "other.gguf")


def assert_other_model_untouched(models_dir: Path) -> None:
    assert (models_dir / "other.gguf").read_bytes() == gguf_bytes(1000, seed=99)


def leave_part(hub: HubServer, url: str, models_dir: Path, cut: int = CUT) -> Path:
    """A download that stopped after *cut* bytes (its only attempt was cut off), as after a quit."""
    hub.cut_after = cut
    once = Downloader(max_attempts=1, disk_margin=0)
    try:
        with pytest.raises(ServerError):
            once.download(request_for(url, models_dir), DownloadState())
    finally:
        once.close()
    part = part_path(models_dir / FILE)
    assert part.stat().st_size == cut
    assert sidecar_path(models_dir / FILE).is_file()
    return part


# -- the fake Hub is the Hub ------------------------------------------------------
@pytest.mark.allow_hosts(["127.0.0.1", "localhost"])  # the Hub by name, its CDN by address
def test_hf_hub_download_gets_the_file_intact_from_the_local_hub(
    hub: HubServer, content: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    huggingface_hub = pytest.importorskip("huggingface_hub")
    tqdm = pytest.importorskip("tqdm")
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # read once, at import
    monkeypatch.setattr(tqdm.tqdm, "monitor_interval", 0)  # no progress-bar monitor thread
    hub.add(REPO, FILE, content)
    try:
        # Reached as localhost, the Hub's CDN (127.0.0.1) is another host, as on huggingface.co.
        path = huggingface_hub.hf_hub_download(
            REPO, FILE, endpoint=hub.endpoint_named, cache_dir=tmp_path / "hf", token=False
        )
    finally:
        huggingface_hub.close_session()
    assert Path(path).read_bytes() == content
    assert [(r.method, r.path.split("/")[1]) for r in hub.requests] == [
        ("HEAD", REPO.split("/")[0]),  # the metadata, read off the 302
        ("GET", "cdn-lfs"),
    ]


def test_hub_file_url_is_the_hubs_resolve_url(hub: HubServer, content: bytes) -> None:
    hub.add(REPO, "sub dir/model.gguf", content)
    url = hub_file_url(hub.endpoint + "/", REPO, "refs/pr/1", "sub dir/model.gguf")
    assert url == f"{hub.endpoint}/{REPO}/resolve/refs%2Fpr%2F1/sub%20dir/model.gguf"


# -- a plain download -------------------------------------------------------------
def test_download_puts_the_checked_file_in_place(
    downloader: Downloader, url: str, content: bytes, models_dir: Path
) -> None:
    path = downloader.download(request_for(url, models_dir), DownloadState())
    assert path == models_dir / FILE
    assert path.read_bytes() == content
    assert leftovers(models_dir) == [FILE]  # no .part, no sidecar
    assert_other_model_untouched(models_dir)


def test_progress_is_paced_and_ends_at_the_whole_file(
    hub: HubServer, url: str, models_dir: Path
) -> None:
    clock = SteppingClock(0.05)  # each read of the clock (one per read) is 50 ms later
    reports: list[tuple[float, DownloadProgress]] = []
    loader = Downloader(clock=clock, disk_margin=0)
    try:
        loader.download(
            request_for(url, models_dir), DownloadState(lambda p: reports.append((clock.now, p)))
        )
    finally:
        loader.close()
    progress = [p for _, p in reports]
    assert all(p.total == SIZE for p in progress)
    assert progress[0].received == 0
    assert progress[-1].received == SIZE and progress[-1].fraction == 1.0
    assert progress[-1].seconds_left == 0.0
    received = [p.received for p in progress]
    assert received == sorted(received)
    times = [t for t, _ in reports[1:-1]]  # between the first and the final report
    assert len(times) >= 2
    assert all(later - earlier >= 0.25 - 1e-9 for earlier, later in itertools.pairwise(times))
    most_per_read = 64 * 1024  # httpcore reads at most this much at a time
    for p in progress[1:-1]:
        assert 0 < p.bytes_per_second <= most_per_read / clock.step
        assert p.seconds_left == pytest.approx((SIZE - p.received) / p.bytes_per_second)


# -- interrupted and resumed --------------------------------------------------------
def test_a_cut_connection_resumes_where_it_stopped(
    downloader: Downloader, hub: HubServer, url: str, content: bytes, models_dir: Path
) -> None:
    hub.cut_after = CUT
    path = downloader.download(request_for(url, models_dir), DownloadState())
    assert path.read_bytes() == content
    assert hub.ranges() == [None, f"bytes={CUT}-"]
    assert hub.body_bytes_sent == SIZE  # nothing sent twice
    resumed = [r for r in hub.requests if r.range is not None]
    assert {r.if_range for r in resumed} == {f'"{sha256(content)}"'}


def test_a_download_resumes_after_the_app_quit(
    downloader: Downloader, hub: HubServer, url: str, content: bytes, models_dir: Path
) -> None:
    leave_part(hub, url, models_dir)
    path = downloader.download(request_for(url, models_dir), DownloadState())
    assert path.read_bytes() == content
    assert hub.ranges() == [None, f"bytes={CUT}-"]
    assert hub.body_bytes_sent == SIZE


def test_a_server_ignoring_range_restarts_from_zero(
    downloader: Downloader, hub: HubServer, url: str, content: bytes, models_dir: Path
) -> None:
    leave_part(hub, url, models_dir)
    hub.ignore_range = True
    path = downloader.download(request_for(url, models_dir), DownloadState())
    assert hub.ranges()[-1] == f"bytes={CUT}-"
    assert path.read_bytes() == content  # truncated, not appended
    assert hub.body_bytes_sent == CUT + SIZE


def test_a_file_changed_on_the_server_restarts_from_zero(
    downloader: Downloader, hub: HubServer, url: str, content: bytes, models_dir: Path
) -> None:
    leave_part(hub, url, models_dir)
    changed = gguf_bytes(CUT // 2, seed=2)  # shorter than the part: it must be truncated
    hub.add(REPO, FILE, changed)
    path = downloader.download(request_for(url, models_dir), DownloadState())
    resumed = hub.requests[-1]
    assert (resumed.range, resumed.if_range) == (f"bytes={CUT}-", f'"{sha256(content)}"')
    assert path.read_bytes() == changed  # the new file whole, checked against its new sha256


@pytest.mark.parametrize("other", ["url", "sha256"])
def test_a_part_left_for_another_request_is_not_resumed(
    downloader: Downloader,
    hub: HubServer,
    url: str,
    content: bytes,
    models_dir: Path,
    other: str,
) -> None:
    leave_part(hub, url, models_dir)
    if other == "url":
        url = hub.add("someone/else", FILE, content)
        request = request_for(url, models_dir)
    else:
        request = request_for(url, models_dir, expected_sha256=sha256(content))
    path = downloader.download(request, DownloadState())
    assert hub.ranges()[-1] is None
    assert path.read_bytes() == content


# -- the checks before a file is put in place -----------------------------------------
def test_a_corrupted_download_is_kept_aside_never_put_in_place(
    downloader: Downloader, hub: HubServer, url: str, models_dir: Path
) -> None:
    hub.corrupt = True
    with pytest.raises(FileRejected, match="sha256") as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert caught.value.check == "sha256"
    assert caught.value.kept_at == rejected_path(models_dir / FILE)
    assert leftovers(models_dir) == [f"{FILE}.rejected"]
    assert caught.value.hint


def test_a_file_not_matching_the_callers_checksum_is_rejected(
    downloader: Downloader, url: str, models_dir: Path
) -> None:
    request = request_for(url, models_dir, expected_sha256="0" * 64)
    with pytest.raises(FileRejected) as caught:
        downloader.download(request, DownloadState())
    assert caught.value.check == "sha256"
    assert leftovers(models_dir) == [f"{FILE}.rejected"]


@pytest.mark.parametrize("difference", [-1, 1000])
def test_a_file_of_the_wrong_size_is_rejected(
    downloader: Downloader, url: str, models_dir: Path, difference: int
) -> None:
    request = request_for(url, models_dir, expected_size=SIZE + difference)
    with pytest.raises(FileRejected, match="bytes instead of") as caught:
        downloader.download(request, DownloadState())
    assert caught.value.check == "size"
    assert leftovers(models_dir) == [f"{FILE}.rejected"]


def test_a_file_that_is_not_gguf_is_rejected(
    downloader: Downloader, hub: HubServer, models_dir: Path
) -> None:
    url = hub.add(REPO, FILE, b"<html>Sign in to continue</html>" * 1000)
    with pytest.raises(FileRejected, match="not a GGUF") as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert caught.value.check == "gguf"
    assert leftovers(models_dir) == [f"{FILE}.rejected"]


def test_an_existing_model_is_untouched_by_a_failed_download(
    downloader: Downloader, hub: HubServer, url: str, models_dir: Path
) -> None:
    destination = models_dir / FILE
    old = gguf_bytes(5000, seed=7)
    destination.write_bytes(old)
    hub.corrupt = True
    with pytest.raises(FileRejected):
        downloader.download(request_for(url, models_dir), DownloadState())
    assert destination.read_bytes() == old
    assert_other_model_untouched(models_dir)


# -- pause and cancel ------------------------------------------------------------------
def stalling_downloader() -> Downloader:
    """A downloader whose reads would wait two minutes on a silent server; it reports
    progress after every read (each read of its clock is a second later)."""
    return Downloader(
        timeout=httpx.Timeout(STALLING_TIMEOUT_S), disk_margin=0, clock=SteppingClock(1.0)
    )


def test_cancel_stops_a_stalled_download_and_leaves_nothing_behind(
    hub: HubServer, url: str, models_dir: Path
) -> None:
    hub.stall_after = CUT
    got_all_sent = threading.Event()
    state = DownloadState(lambda p: got_all_sent.set() if p.received >= CUT else None)
    loader = stalling_downloader()
    try:
        running = Running(loader, request_for(url, models_dir), state)
        assert got_all_sent.wait(JOIN_S)  # it read all there is: now it waits on the socket
        state.cancel()
        outcome = running.result()
    finally:
        loader.close()
    assert isinstance(outcome, DownloadCancelled)
    assert leftovers(models_dir) == []
    assert_other_model_untouched(models_dir)


def test_pause_keeps_the_part_and_a_later_call_resumes_it(
    hub: HubServer, url: str, content: bytes, models_dir: Path
) -> None:
    hub.stall_after = CUT
    got_all_sent = threading.Event()
    state = DownloadState(lambda p: got_all_sent.set() if p.received >= CUT else None)
    loader = stalling_downloader()
    try:
        running = Running(loader, request_for(url, models_dir), state)
        assert got_all_sent.wait(JOIN_S)
        state.pause()
        outcome = running.result()
        assert isinstance(outcome, DownloadPaused)
        assert (outcome.received, outcome.total) == (CUT, SIZE)
        assert leftovers(models_dir) == [f"{FILE}.part", f"{FILE}.part.json"]
        assert part_path(models_dir / FILE).stat().st_size == CUT

        path = loader.download(request_for(url, models_dir), DownloadState())
    finally:
        loader.close()
    assert path.read_bytes() == content
    assert hub.ranges() == [None, f"bytes={CUT}-"]


def test_cancel_during_a_back_off_does_not_wait_for_it(
    hub: HubServer, url: str, models_dir: Path
) -> None:
    hub.fail_next(1)
    loader = Downloader(first_backoff_s=STALLING_TIMEOUT_S, disk_margin=0)  # sleeps on the state
    state = DownloadState()
    try:
        running = Running(loader, request_for(url, models_dir), state)
        assert hub.wait_for_requests(1, JOIN_S)
        state.cancel()
        outcome = running.result()
    finally:
        loader.close()
    assert isinstance(outcome, DownloadCancelled)
    assert len(hub.requests) == 1
    assert leftovers(models_dir) == []


# -- a full disk -------------------------------------------------------------------------
def test_too_little_free_space_fails_before_the_first_byte(
    hub: HubServer, url: str, models_dir: Path
) -> None:
    asked: list[Path] = []

    def free_space(folder: Path) -> int:
        asked.append(folder)
        return SIZE // 2

    loader = Downloader(free_space=free_space, disk_margin=0)
    try:
        with pytest.raises(DiskFull, match="Not enough disk space") as caught:
            loader.download(request_for(url, models_dir), DownloadState())
    finally:
        loader.close()
    assert asked == [models_dir]
    assert caught.value.hint
    assert leftovers(models_dir) == []  # not even an empty .part
    assert_other_model_untouched(models_dir)


def test_the_margin_counts_against_the_free_space(
    hub: HubServer, url: str, models_dir: Path
) -> None:
    loader = Downloader(free_space=lambda _: SIZE + 10, disk_margin=100)
    try:
        with pytest.raises(DiskFull):
            loader.download(request_for(url, models_dir), DownloadState())
    finally:
        loader.close()


def test_a_disk_filling_up_mid_download_keeps_the_part_and_existing_files(
    downloader: Downloader, url: str, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    destination = models_dir / FILE
    old = gguf_bytes(5000, seed=7)
    destination.write_bytes(old)
    write_all = part_writer.write_all
    written = 0

    def fills_up(fd: int, chunks: list[bytes]) -> None:
        """Writes like the real one until CUT bytes are on the disk, then the disk is full."""
        nonlocal written
        if written >= CUT:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write_all(fd, chunks)
        written += sum(map(len, chunks))

    monkeypatch.setattr(part_writer, "write_all", fills_up)
    with pytest.raises(DiskFull, match="disk filled up") as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert caught.value.hint
    assert destination.read_bytes() == old
    assert part_path(destination).stat().st_size == written  # kept, to resume once there is space
    assert_other_model_untouched(models_dir)


# -- unreachable, failing and refusing servers --------------------------------------------
def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_server_is_retried_with_back_off_then_offline(
    downloader: Downloader, sleep: RecordedSleep, models_dir: Path
) -> None:
    url = hub_file_url(f"http://127.0.0.1:{unused_port()}", REPO, "main", FILE)
    with pytest.raises(Offline, match=r"Cannot reach 127\.0\.0\.1") as caught:
        downloader.download(request_for(url, models_dir), DownloadState())
    assert "internet connection" in caught.value.hint
    assert sleep.delays == [1.0, 2.0, 4.0, 8.0, 16.0]
    assert leftovers(models_dir) == []
    assert_other_model_untouched(models_dir)


def test_a_503_is_retried_and_the_download_succeeds(
    downloader: Downloader,
    hub: HubServer,
    sleep: RecordedSleep,
    url: str,
    content: bytes,
    models_dir: Path,
) -> None:
    hub.fail_next(2)
    path = downloader.download(request_for(url, models_dir), DownloadState())
    assert path.read_bytes() == content
    assert sleep.delays == [1.0, 2.0]
    assert len(hub.requests) == 2 + 2  # two failures, then the redirect and the file


def test_a_server_failing_every_retry_is_a_server_error(
    downloader: Downloader, hub: HubServer, url: str, models_dir: Path
) -> None:
    hub.fail_next(100, status=500)
    with pytest.raises(ServerError, match="HTTP 500"):
        downloader.download(request_for(url, models_dir), DownloadState())
    assert len(hub.requests) == 6
    assert leftovers(models_dir) == []


def test_a_missing_file_fails_at_once(
    downloader: Downloader, hub: HubServer, sleep: RecordedSleep, url: str, models_dir: Path
) -> None:
    missing = hub_file_url(hub.endpoint, REPO, "main", "nope.gguf")
    with pytest.raises(ServerRefused, match="not found on the server") as caught:
        downloader.download(request_for(missing, models_dir), DownloadState())
    assert caught.value.status == 404
    assert (len(hub.requests), sleep.delays) == (1, [])
    assert leftovers(models_dir) == []


def test_a_gated_model_needs_its_token_which_never_shows(
    downloader: Downloader,
    hub: HubServer,
    content: bytes,
    models_dir: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    url = hub.add("meta/gated", FILE, content, token="hf_right")
    for token in (None, "hf_wrong_secret"):
        request = request_for(url, models_dir, token=token)
        with pytest.raises(ServerRefused, match="refused access") as caught:
            downloader.download(request, DownloadState())
        assert caught.value.status == 401
        assert "licence" in caught.value.hint
        assert "hf_wrong_secret" not in f"{caught.value} {caught.value.hint} {request!r}"
    path = downloader.download(request_for(url, models_dir, token="hf_right"), DownloadState())
    assert path.read_bytes() == content
    assert [r.authorized for r in hub.requests] == [False, True, True, True]
    assert "hf_" not in caplog.text
