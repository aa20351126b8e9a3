"""A local stand-in for the Hugging Face Hub's file downloads, on 127.0.0.1.

It speaks the part of the protocol that ``huggingface_hub`` and Reverie's
downloader use, as the real Hub does for a file stored in LFS:

- ``GET``/``HEAD {endpoint}/{repo}/resolve/{revision}/{file}`` answers ``302``
  to a CDN path with ``X-Repo-Commit``, ``X-Linked-Etag: "<sha256>"``,
  ``X-Linked-Size`` and an ``ETag`` (the git object id of the LFS pointer);
  an unknown file is ``404`` with ``X-Error-Code: EntryNotFound``, a gated
  repository without its token ``401`` with ``X-Error-Code: GatedRepo``.
- The CDN path ``/cdn-lfs/<sha256>`` serves the bytes with ``Accept-Ranges``,
  ``ETag: "<sha256>"`` and ``Content-Length``, honouring ``Range`` and
  ``If-Range`` (``206`` with ``Content-Range``; the whole file as ``200`` when
  ``If-Range`` no longer matches; ``416`` past the end).

The CDN address is always ``127.0.0.1``; reaching the Hub as ``localhost``
(``endpoint_named``) makes the CDN another host, as on the real Hub, where
``huggingface_hub`` reads the file's metadata from the redirect itself.

Knobs for tests (set them between requests): ``corrupt``, ``ignore_range``,
``fail_next()``, ``retry_after``, ``cut_after``, ``stall_after``, ``throttle``,
``cdn_headers``, ``redirect_to``; every request is recorded in ``requests``
and the body bytes sent are counted.
"""

from __future__ import annotations

import hashlib
import socket
import threading
import time
from contextlib import suppress
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import quote, unquote, urlsplit

HOST = "127.0.0.1"
CDN_PREFIX = "/cdn-lfs/"
SEND_CHUNK = 64 * 1024
CONNECTION_TIMEOUT_S = 30.0  # a handler never waits longer for a silent client


@dataclass(frozen=True)
class RecordedRequest:
    """What the server saw of one request (never the token itself)."""

    method: str
    path: str
    range: str | None
    if_range: str | None
    authorized: bool


@dataclass
class _Blob:
    content: bytes
    sha256: str
    last_modified: str


@dataclass
class _Repo:
    files: dict[str, str] = field(default_factory=dict)  # path -> sha256
    commit: str = ""
    token: str | None = None  # a gated repository answers only with this bearer token


def sha256_hex(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def lfs_pointer_oid(content: bytes) -> str:
    """The git object id of the LFS pointer file, which the Hub sends as ``ETag``."""
    pointer = (
        "version https://git-lfs.github.com/spec/v1\n"
        f"oid sha256:{sha256_hex(content)}\nsize {len(content)}\n"
    ).encode()
    return hashlib.sha1(b"blob %d\0" % len(pointer) + pointer).hexdigest()


class HubServer:
    """A local Hub on 127.0.0.1, port chosen by the system; use it as a context manager."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requested = threading.Condition(self._lock)
        self._repos: dict[str, _Repo] = {}
        self._blobs: dict[str, _Blob] = {}
        self._failures: list[int] = []
        self._closing = threading.Event()
        self._open_connections: set[socket.socket] = set()
        self.requests: list[RecordedRequest] = []
        self.body_bytes_sent = 0
        self.corrupt = False
        """Serve the CDN bytes with one byte changed (the headers still name the original)."""
        self.ignore_range = False
        """Answer every CDN request with the whole file (``200``), as some proxies do."""
        self.cut_after: int | None = None
        """Close the connection after this many body bytes of the next CDN answer (once)."""
        self.stall_after: int | None = None
        """Stop sending after this many body bytes of the next CDN answer until the server
        closes (once); ``stalled`` is set when it does."""
        self.stalled = threading.Event()
        self.throttle: float | None = None
        """Send CDN bodies at about this many bytes per second."""
        self.retry_after = "1"
        """The ``Retry-After`` of the failures ``fail_next`` queues (latin-1 on the wire)."""
        self.cdn_headers: dict[str, str] = {}
        """Headers that replace or join those of every CDN answer (latin-1 on the wire)."""
        self.redirect_to: str | None = None
        """Answer every resolve request with a ``302`` to this address (a resolve URL
        itself: a loop, as a misconfigured mirror makes)."""
        self._httpd = _Httpd((HOST, 0), _Handler, self)
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="hub-server", kwargs={"poll_interval": 0.05}
        )

    # -- lifecycle -------------------------------------------------------------
    def __enter__(self) -> HubServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving, drop kept-alive connections and join every thread."""
        self._closing.set()
        if self._thread.is_alive():
            self._httpd.shutdown()
            self._thread.join()
        with self._lock:
            connections = list(self._open_connections)
        for connection in connections:  # a kept-alive client would hold its handler forever
            with suppress(OSError):  # already closed by its handler
                connection.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()  # joins the handler threads

    # -- content ---------------------------------------------------------------
    @property
    def endpoint(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def endpoint_named(self) -> str:
        """The same Hub reached as ``localhost``: its CDN (``127.0.0.1``) is then another host."""
        return f"http://localhost:{self.port}"

    def add(self, repo: str, file: str, content: bytes, *, token: str | None = None) -> str:
        """Publish (or replace) *file* in *repo*; returns its resolve URL on ``main``.

        A repository added with a *token* is gated: only that bearer token may read it.
        """
        digest = sha256_hex(content)
        with self._lock:
            entry = self._repos.setdefault(repo, _Repo())
            entry.files[file] = digest
            entry.token = token if token is not None else entry.token
            entry.commit = hashlib.sha1(
                f"{repo}:{sorted(entry.files.items())}".encode()
            ).hexdigest()
            modified = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime())
            self._blobs[digest] = _Blob(content, digest, modified)
        return self.resolve_url(repo, file)

    def resolve_url(self, repo: str, file: str, revision: str = "main") -> str:
        return f"{self.endpoint}/{repo}/resolve/{quote(revision, safe='')}/{quote(file)}"

    def cdn_url(self, content: bytes) -> str:
        return f"{self.endpoint}{CDN_PREFIX}{sha256_hex(content)}"

    def fail_next(self, count: int, status: int = HTTPStatus.SERVICE_UNAVAILABLE) -> None:
        """Answer the next *count* requests (of any kind) with *status*."""
        with self._lock:
            self._failures.extend([status] * count)

    def wait_for_requests(self, count: int, timeout: float) -> bool:
        """Wait until the server has seen *count* requests; False on timeout."""
        with self._requested:
            return self._requested.wait_for(lambda: len(self.requests) >= count, timeout)

    def ranges(self) -> list[str | None]:
        """The ``Range`` header of every CDN ``GET``, in order."""
        return [
            r.range for r in self.requests if r.method == "GET" and r.path.startswith(CDN_PREFIX)
        ]

    # -- used by the handler ---------------------------------------------------
    def _record(self, request: RecordedRequest) -> int | None:
        """Record *request*; the status it must fail with, if a failure is queued."""
        with self._requested:
            self.requests.append(request)
            self._requested.notify_all()
            return self._failures.pop(0) if self._failures else None

    def _lookup(self, repo: str, file: str) -> tuple[_Repo | None, _Blob | None]:
        with self._lock:
            entry = self._repos.get(repo)
            digest = entry.files.get(file) if entry else None
            return entry, self._blobs.get(digest) if digest else None

    def _blob(self, digest: str) -> _Blob | None:
        with self._lock:
            return self._blobs.get(digest)

    def _take_interruption(self) -> tuple[int | None, int | None]:
        """The one-shot (cut_after, stall_after) of this answer."""
        with self._lock:
            cut, stall = self.cut_after, self.stall_after
            self.cut_after = self.stall_after = None
            return cut, stall

    def _count_sent(self, size: int) -> None:
        with self._lock:
            self.body_bytes_sent += size

    def _track(self, connection: socket.socket, open_: bool) -> None:
        with self._lock:
            if open_:
                self._open_connections.add(connection)
            else:
                self._open_connections.discard(connection)


class _Httpd(ThreadingHTTPServer):
    # Not daemons: server_close() joins them, so no test leaves a thread behind.
    daemon_threads = False
    block_on_close = True

    def __init__(self, address: tuple[str, int], handler: type[_Handler], hub: HubServer) -> None:
        self.hub = hub
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up mid-answer (a cancelled download) is no error here


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the Hub and its CDN do
    server_version = "hub-test"
    timeout = CONNECTION_TIMEOUT_S
    server: _Httpd

    def setup(self) -> None:
        super().setup()
        self.server.hub._track(self.connection, True)

    def finish(self) -> None:
        self.server.hub._track(self.connection, False)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the tests read ``requests`` instead

    def do_HEAD(self) -> None:
        self._answer(with_body=False)

    def do_GET(self) -> None:
        self._answer(with_body=True)

    def _answer(self, *, with_body: bool) -> None:
        hub = self.server.hub
        path = urlsplit(self.path).path
        failure = hub._record(
            RecordedRequest(
                self.command,
                path,
                self.headers.get("Range"),
                self.headers.get("If-Range"),
                "Authorization" in self.headers,
            )
        )
        if failure is not None:
            self._send_empty(failure, {"Retry-After": hub.retry_after})
        elif path.startswith(CDN_PREFIX):
            self._serve_cdn(path.removeprefix(CDN_PREFIX), with_body)
        else:
            self._serve_resolve(path)

    # -- the Hub: /{repo}/resolve/{revision}/{file} ------------------------------
    def _serve_resolve(self, path: str) -> None:
        if self.server.hub.redirect_to is not None:
            self._send_empty(HTTPStatus.FOUND, {"Location": self.server.hub.redirect_to})
            return
        repo, sep, rest = unquote(path).lstrip("/").partition("/resolve/")
        _revision, _, file = rest.partition("/")
        entry, blob = self.server.hub._lookup(repo, file) if sep else (None, None)
        if entry is None:
            self._send_empty(
                HTTPStatus.UNAUTHORIZED,
                {"X-Error-Code": "RepoNotFound", "X-Error-Message": "Repository not found"},
            )
        elif (
            entry.token is not None and self.headers.get("Authorization") != f"Bearer {entry.token}"
        ):
            self._send_empty(
                HTTPStatus.UNAUTHORIZED,
                {
                    "X-Error-Code": "GatedRepo",
                    "X-Error-Message": f"Access to model {repo} is restricted.",
                    "X-Repo-Commit": entry.commit,
                },
            )
        elif blob is None:
            self._send_empty(
                HTTPStatus.NOT_FOUND,
                {
                    "X-Error-Code": "EntryNotFound",
                    "X-Error-Message": "Entry not found",
                    "X-Repo-Commit": entry.commit,
                },
            )
        else:
            name = file.rsplit("/", 1)[-1]
            location = f"http://{HOST}:{self.server.hub.port}{CDN_PREFIX}{blob.sha256}"
            self._send_empty(
                HTTPStatus.FOUND,
                {
                    "Location": f"{location}?response-content-disposition={quote(name)}",
                    "X-Repo-Commit": entry.commit,
                    "X-Linked-Etag": f'"{blob.sha256}"',
                    "X-Linked-Size": str(len(blob.content)),
                    "ETag": f'"{lfs_pointer_oid(blob.content)}"',
                    "Accept-Ranges": "bytes",
                },
            )

    # -- the CDN: /cdn-lfs/<sha256> ----------------------------------------------
    def _serve_cdn(self, digest: str, with_body: bool) -> None:
        hub = self.server.hub
        blob = hub._blob(digest)
        if blob is None:
            self._send_empty(HTTPStatus.NOT_FOUND, {})
            return
        size = len(blob.content)
        etag = f'"{blob.sha256}"'
        headers = {
            "Content-Type": "application/octet-stream",
            "Accept-Ranges": "bytes",
            "ETag": etag,
            "Last-Modified": blob.last_modified,
            "Content-Disposition": "inline",
        }
        try:
            wanted = None if hub.ignore_range else self._wanted_range(size, etag)
        except _Unsatisfiable:
            self._send_empty(
                HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE, {"Content-Range": f"bytes */{size}"}
            )
            return
        start, end = wanted if wanted is not None else (0, size - 1)
        if wanted is not None:
            headers["Content-Range"] = f"bytes {start}-{end}/{size}"
        status = HTTPStatus.PARTIAL_CONTENT if wanted is not None else HTTPStatus.OK
        self.send_response(status)
        length = {"Content-Length": str(end - start + 1)}
        for name, value in {**headers, **length, **hub.cdn_headers}.items():
            self.send_header(name, value)
        self.end_headers()
        if with_body:
            body = _corrupted(blob.content) if hub.corrupt else blob.content
            self._send_body(memoryview(body)[start : end + 1])

    def _wanted_range(self, size: int, etag: str) -> tuple[int, int] | None:
        """(first, last) byte asked for; None for the whole file."""
        header = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        if header is None or (if_range is not None and if_range != etag):
            return None
        unit, _, spec = header.partition("=")
        first, _, last = spec.partition("-")
        if unit.strip() != "bytes" or "," in spec:
            return None  # only single byte ranges, as the tests need
        if not first:  # a suffix: the last N bytes
            return (max(0, size - int(last)), size - 1)
        start = int(first)
        if start >= size:
            raise _Unsatisfiable
        return (start, min(int(last), size - 1) if last else size - 1)

    def _send_body(self, body: memoryview) -> None:
        hub = self.server.hub
        cut, stall = hub._take_interruption()
        limit = min(x for x in (cut, stall, len(body)) if x is not None)
        for offset in range(0, limit, SEND_CHUNK):
            piece = body[offset : min(offset + SEND_CHUNK, limit)]
            self.wfile.write(piece)
            hub._count_sent(len(piece))
            if hub.throttle:
                time.sleep(len(piece) / hub.throttle)  # pacing the server, not waiting in a test
        if stall is not None and stall < len(body):
            hub.stalled.set()
            hub._closing.wait()
        if limit < len(body):
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_WR)  # the body ends early: the client sees EOF

    def _send_empty(self, status: int, headers: dict[str, str]) -> None:
        text = f"{status} {HTTPStatus(status).phrase}".encode()
        self.send_response(status)
        for name, value in {**headers, "Content-Type": "text/plain; charset=utf-8"}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(text)


class _Unsatisfiable(Exception):
    """The range asked for starts past the end of the file."""


def _corrupted(content: bytes) -> bytes:
    middle = len(content) // 2
    return content[:middle] + bytes([content[middle] ^ 0xFF]) + content[middle + 1 :]
