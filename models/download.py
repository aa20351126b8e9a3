"""Downloading model files over HTTP: resumable, pausable, checked before use.

``huggingface_hub`` resumes but cannot pause or cancel, so Reverie downloads
the Hub's file URLs (``{endpoint}/{repo}/resolve/{revision}/{file}``) itself
over one kept ``httpx.Client``.  A download is a plain call,
``Downloader.download(request, state)``, that reports progress and obeys
pause and cancel through a small ``DownloadState``, as long jobs do here.

On disk, beside the final file: ``<name>.part`` (the bytes so far) and
``<name>.part.json`` (the URL, the server's ETag and the expected size and
checksum), so that a download resumes after the app quits with ``Range`` and
``If-Range``; and ``<name>.part.lock`` while it runs, so that a second
download of the same file is told at once that one is under way.  The
finished file is checked (size, sha256, GGUF magic) before one atomic
``os.replace`` puts it in place; a file that fails is kept aside as
``<name>.rejected``.  A failed download never touches the destination, and
nothing is written through a link (``models.download_files``); headers are
read, and failures told, in ``models.download_answers``.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Literal
from urllib.parse import quote

import httpx

from models.download_answers import (
    display_url,
    next_download,
    resumes_at,
    retry_after,
    retry_hint,
    server_sha256,
    total_size,
    transport_failure,
    unfollowable,
    usable_etag,
)
from models.download_files import (
    check_renamed_onto,
    check_written_in_place,
    downloading_alone,
    in_the_way,
    make_folder,
    open_to_read,
    open_to_write,
)
from models.errors import (
    Check,
    DiskFull,
    DownloadCancelled,
    DownloadFailed,
    DownloadPaused,
    FileRejected,
    ModelFileInvalid,
    ServerError,
    ServerRefused,
)
from models.gguf_file import check_gguf_file
from models.part_writer import PartWriter

log = logging.getLogger(__name__)

PART_SUFFIX = ".part"
SIDECAR_SUFFIX = ".part.json"
LOCK_SUFFIX = ".part.lock"
REJECTED_SUFFIX = ".rejected"
DISK_MARGIN = 100 * 1024 * 1024
"""Free space left over after a download; a disk filled to the last byte breaks other programs."""
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=15.0)
"""A stalled server is retried after the read timeout; pause and cancel do not wait for it."""
PROGRESS_INTERVAL_S = 0.25
SPEED_SMOOTHING = 0.3  # weight of the newest interval in the speed's moving average
HASH_READ = 1024 * 1024
PART_CHECK_BYTES = 64 * 1024 * 1024
"""How often (in bytes written) a download looks that its ``.part`` is still
where it writes it: a folder deleted meanwhile (a clean-up, a drive
unmounted) is told within this much, not after the whole model came."""
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})

StopKind = Literal["pause", "cancel"]
FreeSpace = Callable[[Path], int]
Sleep = Callable[[float], None]
Clock = Callable[[], float]


# -- requests, progress and the state a caller controls ---------------------------
def hub_file_url(endpoint: str, repo: str, revision: str, file: str) -> str:
    """The Hub's download URL of *file* in *repo* at *revision* (as ``hf_hub_url`` builds it)."""
    return f"{endpoint.rstrip('/')}/{repo}/resolve/{quote(revision, safe='')}/{quote(file)}"


@dataclass(frozen=True)
class DownloadRequest:
    url: str
    destination: Path
    expected_size: int | None = None
    expected_sha256: str | None = None
    """Lower-case hex; when None, the server's sha256 (the Hub's LFS ETag) is checked."""
    token: str | None = field(default=None, repr=False)  # never shown, even in a traceback
    """A bearer token for gated repositories; httpx sends it only to the URL's own origin."""


@dataclass(frozen=True)
class DownloadProgress:
    received: int
    total: int | None
    bytes_per_second: float
    """Smoothed over the last few seconds; 0.0 until it can be measured."""
    seconds_left: float | None

    @property
    def fraction(self) -> float | None:
        return self.received / self.total if self.total else None


class DownloadState:
    """What a caller uses to watch and steer one download, from any thread.

    ``report`` receives progress a few times a second (override it, or pass
    *on_progress*; a Qt state emits a signal).  ``pause`` and ``cancel`` take
    effect within one read: the downloader registers an abort that wakes a
    read blocked on a stalled server.  Cancel wins over pause.
    """

    def __init__(self, on_progress: Callable[[DownloadProgress], None] | None = None) -> None:
        self._on_progress = on_progress
        self._lock = threading.Lock()
        self._stop: StopKind | None = None
        self._woken = threading.Event()
        self._abort: Callable[[], None] | None = None

    def pause(self) -> None:
        self._request_stop("pause")

    def cancel(self) -> None:
        self._request_stop("cancel")

    @property
    def stop_requested(self) -> StopKind | None:
        return self._stop

    def report(self, progress: DownloadProgress) -> None:
        if self._on_progress is not None:
            self._on_progress(progress)

    def wait(self, seconds: float) -> None:
        """Sleep up to *seconds*; a pause or cancel ends the wait at once."""
        self._woken.wait(seconds)

    @contextmanager
    def aborting_with(self, abort: Callable[[], None]) -> Iterator[None]:
        """While the block runs, a pause or cancel also calls *abort* (on the caller's thread)."""
        with self._lock:
            self._abort = abort
            stopped = self._stop is not None
        if stopped:
            abort()
        try:
            yield
        finally:
            with self._lock:
                self._abort = None

    def _request_stop(self, kind: StopKind) -> None:
        # The abort runs under the lock so that it never reaches a connection
        # the download has already handed back to the pool.
        with self._lock:
            if self._stop != "cancel":
                self._stop = kind
            self._woken.set()
            if self._abort is not None:
                self._abort()


# -- the downloader -----------------------------------------------------------------
def part_path(destination: Path) -> Path:
    return destination.with_name(destination.name + PART_SUFFIX)


def sidecar_path(destination: Path) -> Path:
    return destination.with_name(destination.name + SIDECAR_SUFFIX)


def lock_path(destination: Path) -> Path:
    return destination.with_name(destination.name + LOCK_SUFFIX)


def rejected_path(destination: Path) -> Path:
    return destination.with_name(destination.name + REJECTED_SUFFIX)


def disk_free_bytes(folder: Path) -> int:
    return shutil.disk_usage(folder).free


class _Retry(Exception):
    """One attempt failed in a way another attempt may not; carries the final error."""

    def __init__(self, final: DownloadFailed, wait_hint: float | None = None) -> None:
        super().__init__(str(final))
        self.final = final
        self.wait_hint = wait_hint


class Downloader:
    """Downloads files over one kept ``httpx.Client``; thread-safe, one call per download."""

    def __init__(
        self,
        client: httpx.Client | None = None,
        *,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
        free_space: FreeSpace = disk_free_bytes,
        disk_margin: int = DISK_MARGIN,
        max_attempts: int = 6,
        first_backoff_s: float = 1.0,
        max_backoff_s: float = 30.0,
        sleep: Sleep | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        """*sleep* waits between retries (default: ``state.wait``, cut short by pause
        or cancel); *clock* paces progress reports.  Both are for tests."""
        self._owns_client = client is None
        self._client = client if client is not None else httpx.Client()
        self._timeout = timeout
        self._free_space = free_space
        self._disk_margin = disk_margin
        self._max_attempts = max_attempts
        self._first_backoff_s = first_backoff_s
        self._max_backoff_s = max_backoff_s
        self._sleep = sleep
        self._clock = clock

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def download(self, request: DownloadRequest, state: DownloadState) -> Path:
        """Download *request* into place and return its destination.

        Raises a ``DownloadFailed`` subclass, or ``DownloadPaused`` /
        ``DownloadCancelled`` when *state* asked to stop.  What stands in the
        way of its files is named before anything is asked of the server, and
        so is another download of the same file under way (``DownloadFailed``).
        """
        destination = request.destination
        make_folder(destination.parent)
        with downloading_alone(lock_path(destination), destination.name):
            _clear_the_way(destination)
            part = _PartFile(request)
            try:
                self._fetch(request, state, part)
            except DownloadCancelled:
                part.remove()
                raise
            return self._put_in_place(request, part)

    # -- fetching, with retries ---------------------------------------------------
    def _fetch(self, request: DownloadRequest, state: DownloadState, part: _PartFile) -> None:
        meter = _ProgressMeter(state, self._clock)
        failures = most_held = 0
        while not part.complete():
            _check_stop(state, part)
            try:
                self._attempt(request, state, part, meter)
                break  # the server sent all it had; the checks judge it
            except _Retry as retry:
                _check_stop(state, part)  # our own abort looks like a dropped connection
                # Progress is bytes never held before: fetching again what a
                # dropped part held is none, or a server that never finishes
                # the file (announcing more than it sends) is asked for ever.
                failures = 1 if part.received > most_held else failures + 1
                most_held = max(most_held, part.received)
                if failures >= self._max_attempts:
                    raise retry.final from retry.__cause__
                delay = self._backoff(failures, retry.wait_hint)
                log.info("Download of %s: %s; retrying in %.1f s", part.name, retry, delay)
                (self._sleep or state.wait)(delay)
        meter.finish(part.received, part.total)

    def _backoff(self, failures: int, wait_hint: float | None) -> float:
        delay = self._first_backoff_s * 2.0 ** (failures - 1)
        return min(self._max_backoff_s, max(delay, wait_hint or 0.0))  # Retry-After is a minimum

    def _attempt(
        self, request: DownloadRequest, state: DownloadState, part: _PartFile, meter: _ProgressMeter
    ) -> None:
        try:
            with self._client.stream(
                "GET",
                request.url,
                headers=_request_headers(request, part),
                timeout=self._timeout,
                follow_redirects=True,
            ) as response:
                _raise_for_status(request, response, part)
                part.take(response)
                self._check_disk(request, part)
                part.open()
                meter.start(part.received, part.total)
                with state.aborting_with(lambda: _abort(response)):
                    for chunk in response.iter_raw():  # at most 64 KiB a read (httpcore)
                        part.write(chunk)
                        meter.add(part.received, part.total)
                        _check_stop(state, part)
                        if part.total is not None and part.received > part.total:
                            break  # more than the file's size: the size check rejects it
        except httpx.TransportError as error:
            _check_stop(state, part)
            if isinstance(error, httpx.UnsupportedProtocol):  # the same address again
                raise unfollowable(request.url, request.destination.name, error) from error
            raise _Retry(transport_failure(request.url, error, part.resumable)) from error
        except httpx.RequestError as error:  # a redirect loop: the next attempt goes round it too
            raise unfollowable(request.url, request.destination.name, error) from error
        finally:
            part.close()

    def _check_disk(self, request: DownloadRequest, part: _PartFile) -> None:
        if part.total is None:
            return  # nothing to compare; a full disk still becomes DiskFull on write
        folder = request.destination.parent
        remaining = part.total - part.received
        free = self._free_space(folder)
        if free < remaining + self._disk_margin:
            raise DiskFull(
                f"Not enough disk space for {request.destination.name}: it needs "
                f"{_size(remaining + self._disk_margin)} and {folder} has {_size(free)} free.",
                "Free some space or choose another folder for models, then download again.",
            )

    # -- checking and placing the finished file ---------------------------------------
    def _put_in_place(self, request: DownloadRequest, part: _PartFile) -> Path:
        expected_size = request.expected_size if request.expected_size is not None else part.total
        part.check_still_there()
        size = part.path.stat().st_size  # the file itself, not what we believe we wrote
        if expected_size is not None and size != expected_size:
            raise _reject(request, part, "size", f"has {size} bytes instead of {expected_size}")
        expected_sha256 = (request.expected_sha256 or part.server_sha256 or "").lower()
        if expected_sha256 and part.sha256() != expected_sha256:
            raise _reject(request, part, "sha256", "does not match its sha256 checksum")
        try:
            check_gguf_file(part.path)
        except ModelFileInvalid as error:
            raise _reject(request, part, "gguf", "is not a GGUF model file") from error
        part.sync()
        try:
            os.replace(part.path, request.destination)
        except OSError as error:  # what is in the way came after the download started
            raise _cannot_put(request.destination, error) from error
        part.forget()
        return request.destination


def _clear_the_way(destination: Path) -> None:
    """Check the download's files can go where they go (a copy rejected
    before only takes room: this download replaces it)."""
    for path in (destination, rejected_path(destination)):
        check_renamed_onto(path)
    for path in (part_path(destination), sidecar_path(destination)):
        check_written_in_place(path)
    try:
        rejected_path(destination).unlink(missing_ok=True)  # a link itself, never its file
    except OSError as error:
        raise _cannot_put(rejected_path(destination), error) from error


def _cannot_put(path: Path, error: OSError) -> DownloadFailed:
    if error.errno in (errno.EISDIR, errno.ENOTEMPTY, errno.EEXIST):
        return in_the_way(path, "a folder")
    return DownloadFailed(
        f"Cannot write {path}: {error.strerror}.",
        "Check that the models folder is writable, then download again.",
    )


def _check_stop(state: DownloadState, part: _PartFile) -> None:
    kind = state.stop_requested
    if kind == "pause":
        part.close()
        raise DownloadPaused(f"Download of {part.name} paused.", part.received, part.total)
    if kind == "cancel":
        part.close()
        raise DownloadCancelled(f"Download of {part.name} cancelled.", part.received, part.total)


def _abort(response: httpx.Response) -> None:
    """Wake a read blocked on this response's socket (called from another thread).

    Closing a socket does not wake a thread blocked reading it; shutting it down does.
    """
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is not None:
        with suppress(OSError):  # already closed: nothing is blocked on it
            sock.shutdown(socket.SHUT_RDWR)


def _request_headers(request: DownloadRequest, part: _PartFile) -> dict[str, str]:
    # identity: Content-Length must be the file's size, and the bytes the file's bytes.
    headers = {"Accept-Encoding": "identity", "User-Agent": "Reverie"}
    if request.token:
        headers["Authorization"] = f"Bearer {request.token}"
    if part.received and part.etag:
        headers["Range"] = f"bytes={part.received}-"
        headers["If-Range"] = part.etag
    return headers


def _raise_for_status(request: DownloadRequest, response: httpx.Response, part: _PartFile) -> None:
    status = response.status_code
    where = display_url(request.url)
    if status == httpx.codes.OK or resumes_at(response, part.received):
        return
    if status == httpx.codes.PARTIAL_CONTENT:
        part.discard()  # a range we did not ask for: start over
        raise _Retry(ServerError(f"The server sent the wrong part of {where}.", retry_hint(False)))
    if status == httpx.codes.REQUESTED_RANGE_NOT_SATISFIABLE:
        part.discard()  # the part no longer fits the file on the server: start over
        raise _Retry(ServerError(f"The server rejected resuming {where}.", retry_hint(False)))
    if status in RETRY_STATUSES:
        raise _Retry(
            ServerError(
                f"The server kept failing for {where} (HTTP {status}).",
                retry_hint(part.resumable),
            ),
            retry_after(response),
        )
    if status == httpx.codes.NOT_FOUND:
        raise ServerRefused(
            f"{request.destination.name} was not found on the server ({where}).",
            "Check the repository and file name.",
            status,
        )
    if status in (httpx.codes.UNAUTHORIZED, httpx.codes.FORBIDDEN):
        raise ServerRefused(
            f"The server refused access to {where} (HTTP {status}).",
            "This model may need you to accept its licence on the Hub and to set an access token.",
            status,
        )
    raise ServerRefused(
        f"The server refused {where} (HTTP {status}).", retry_hint(part.resumable), status
    )


def _reject(request: DownloadRequest, part: _PartFile, check: Check, problem: str) -> FileRejected:
    """Move the part aside as ``<name>.rejected``; the error to raise."""
    kept_at = rejected_path(request.destination)
    try:
        os.replace(part.path, kept_at)
    except OSError as error:  # a folder came in the way during the download
        part.remove()  # it is damaged: nothing to resume
        cannot = _cannot_put(kept_at, error)
        raise DownloadFailed(
            f"The downloaded {request.destination.name} {problem}, and it could not be "
            f"kept aside: {cannot.args[0]}",
            cannot.hint,
        ) from error
    part.forget()
    return FileRejected(
        f"The downloaded {request.destination.name} {problem}; "
        f"it was kept aside as {kept_at.name}.",
        "The download was damaged or the server has another file; download it again "
        "(the damaged copy is replaced).",
        check,
        kept_at,
    )


def _size(count: int) -> str:
    return f"{count / 1e9:.2f} GB" if count >= 1e8 else f"{count / 1e6:.1f} MB"


# -- the .part file and its sidecar -------------------------------------------------
@dataclass(frozen=True)
class _Sidecar:
    url: str
    expected_size: int | None
    expected_sha256: str | None
    etag: str | None
    server_sha256: str | None
    total: int | None

    @classmethod
    def of(cls, data: object) -> _Sidecar | None:
        """The sidecar *data* (parsed JSON) describes; None if it is not one."""
        if not isinstance(data, dict) or set(data) != {f.name for f in fields(cls)}:
            return None
        sidecar = cls(**data)
        texts = (sidecar.expected_sha256, sidecar.etag, sidecar.server_sha256)
        sizes = (sidecar.expected_size, sidecar.total)
        valid = (
            isinstance(sidecar.url, str)
            and all(value is None or isinstance(value, str) for value in texts)
            and all(value is None or (type(value) is int and value >= 0) for value in sizes)
        )
        return sidecar if valid else None


class _PartFile:
    """The bytes downloaded so far, their running sha256 and what the server said of them."""

    def __init__(self, request: DownloadRequest) -> None:
        self.name = request.destination.name
        self.path = part_path(request.destination)
        self._sidecar_path = sidecar_path(request.destination)
        self._request = request
        self._writer: PartWriter | None = None
        self._hash = hashlib.sha256()
        self.received = 0
        self.etag: str | None = None
        self.server_sha256: str | None = None
        self.total = request.expected_size
        self._written: os.stat_result | None = None
        """The part as opened to write (once opened)."""
        self._checked_at = 0
        self._resume_from_disk()

    def _resume_from_disk(self) -> None:
        """Take over a part left by an earlier run, if its sidecar matches this request."""
        sidecar = self._read_sidecar()
        if sidecar is None:
            return
        request = self._request
        same = (sidecar.url, sidecar.expected_size, sidecar.expected_sha256) == (
            request.url,
            request.expected_size,
            request.expected_sha256,
        )
        if not same or usable_etag(sidecar.etag) is None:
            return
        try:
            handle = open_to_read(self.path)
        except FileNotFoundError:
            return
        self.etag, self.server_sha256, self.total = (
            sidecar.etag,
            sidecar.server_sha256,
            sidecar.total,
        )
        with _disk_errors(self), handle:
            while block := handle.read(HASH_READ):
                self._hash.update(block)
                self.received += len(block)

    def _read_sidecar(self) -> _Sidecar | None:
        try:
            with open_to_read(self._sidecar_path) as handle:
                data = json.loads(handle.read().decode("utf-8"))
            return _Sidecar.of(data)
        except (OSError, ValueError, RecursionError):
            return None  # missing or unreadable (too deep, too): the part cannot be trusted

    def complete(self) -> bool:
        """Whether an earlier run left the whole file here (it only needs its checks)."""
        return self.received > 0 and self.received == self.total

    def take(self, response: httpx.Response) -> None:
        """Learn the file from *response*; forget the bytes so far unless it resumes them."""
        if not resumes_at(response, self.received):
            self.discard()
        self.etag = usable_etag(response.headers.get("ETag"))
        self.server_sha256 = server_sha256(response)
        expected = self._request.expected_size
        self.total = expected if expected is not None else total_size(response)

    def open(self) -> None:
        """Record the sidecar and open the part where the answer continues it."""
        self._write_sidecar()
        with _disk_errors(self):
            fd = open_to_write(self.path, keep=self.received > 0)
            os.lseek(fd, self.received, os.SEEK_SET)
            self._written = os.fstat(fd)
            self._writer = PartWriter(fd, self._hash.update)
        self._checked_at = self.received

    def write(self, chunk: bytes) -> None:
        assert self._writer is not None, "open() comes first"
        with _disk_errors(self):
            self._writer.write(chunk)
        self.received += len(chunk)
        if self.received - self._checked_at >= PART_CHECK_BYTES:
            self.check_still_there()
            self._checked_at = self.received

    def check_still_there(self) -> None:
        """``DownloadFailed`` unless the file written is still at the part's
        path (its folder deleted or moved, the bytes go nowhere anyone sees)."""
        try:
            found = self.path.stat()
        except OSError as error:
            if error.errno not in (errno.ENOENT, errno.ENOTDIR):
                raise _cannot_put(self.path, error) from error
            found = None
        written = self._written  # None: whole from an earlier run, not opened now
        if found is None or (
            written is not None and (found.st_dev, found.st_ino) != (written.st_dev, written.st_ino)
        ):
            raise DownloadFailed(
                f"{self.path} was deleted while it downloaded (its folder removed or moved, "
                "say); what came is lost.",
                "Download it again, and leave the models folder in place meanwhile.",
            )

    def close(self) -> None:
        """Wait until every byte received is written (and hashed), and close the file."""
        writer, self._writer = self._writer, None
        if writer is not None:
            with _disk_errors(self):
                writer.close()

    def sync(self) -> None:
        """Flush the finished part to the disk before it replaces anything."""
        with _disk_errors(self), open_to_read(self.path) as handle:
            os.fsync(handle.fileno())

    def sha256(self) -> str:
        return self._hash.hexdigest()

    @property
    def resumable(self) -> bool:
        """Whether a later download would resume these bytes (an ETag vouches for them)."""
        return self.received > 0 and self.etag is not None

    def discard(self) -> None:
        """Forget the bytes so far (the next answer starts from zero), and their
        record, so that a later run does not ask the server for them again."""
        self.received = 0
        self.etag = None
        self._hash = hashlib.sha256()
        self.forget()

    def forget(self) -> None:
        """Drop the sidecar once the part has been moved away."""
        self._sidecar_path.unlink(missing_ok=True)

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)
        self.forget()

    def _write_sidecar(self) -> None:
        request = self._request
        sidecar = _Sidecar(
            request.url,
            request.expected_size,
            request.expected_sha256,
            self.etag,
            self.server_sha256,
            self.total,
        )
        with (
            _disk_errors(self),
            os.fdopen(open_to_write(self._sidecar_path, keep=False), "wb") as f,
        ):
            f.write(json.dumps(asdict(sidecar)).encode("utf-8"))


@contextmanager
def _disk_errors(part: _PartFile) -> Iterator[None]:
    try:
        yield
    except OSError as error:
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFull(
                f"The disk filled up while downloading {part.name}.",
                f"Free some space and download again: {next_download(part.resumable)}.",
            ) from error
        if error.errno == errno.EFBIG:  # FAT32, on many USB drives, holds at most 4 GB a file
            raise DownloadFailed(
                f"{part.name} is too large for the file system of {part.path.parent}.",
                "Keep Reverie's data on a drive formatted with another file system "
                "(not FAT32), or choose a smaller model.",
            ) from error
        raise DownloadFailed(
            f"Cannot write {part.path}: {error.strerror}.",
            "Check that the models folder is writable.",
        ) from error


class _ProgressMeter:
    """Reports progress at most every ``PROGRESS_INTERVAL_S``, with a smoothed speed."""

    def __init__(self, state: DownloadState, clock: Clock) -> None:
        self._state = state
        self._clock = clock
        self._last_time = clock()
        self._last_received = 0
        self._speed = 0.0
        self._started = False

    def start(self, received: int, total: int | None) -> None:
        self._last_time = self._clock()
        self._last_received = received
        if not self._started:
            self._started = True
            self._state.report(DownloadProgress(received, total, 0.0, None))

    def add(self, received: int, total: int | None) -> None:
        now = self._clock()
        elapsed = now - self._last_time
        if elapsed < PROGRESS_INTERVAL_S:
            return
        current = max(0, received - self._last_received) / elapsed
        self._speed = (
            current if not self._speed else self._speed + SPEED_SMOOTHING * (current - self._speed)
        )
        self._last_time, self._last_received = now, received
        left = (total - received) / self._speed if total is not None and self._speed > 0 else None
        self._state.report(DownloadProgress(received, total, self._speed, left))

    def finish(self, received: int, total: int | None) -> None:
        self._state.report(DownloadProgress(received, total, self._speed, 0.0))
