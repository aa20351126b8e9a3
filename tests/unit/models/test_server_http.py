"""Tests of the server HTTP client's answers in content codings: every
answer is asked for uncompressed and a compressed one is refused unread, so
a few kilobytes of gzip never inflate to gigabytes."""

from __future__ import annotations

import gzip
import threading
import tracemalloc
import zlib
from collections.abc import Iterator
from contextlib import closing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from models.server_http import (
    MAX_ANSWER_BYTES,
    ServerAnswerInvalid,
    ServerConnection,
    ServerUnavailable,
    probe,
)

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

FAST_S = 10
MODELS = b'{"object": "list", "data": [{"id": "tiny", "owned_by": "llamacpp"}]}'


def _bomb(size: int) -> bytes:
    """*size* zero bytes gzipped twice (the second time squeezes the first's repeats)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: gzip framing
    block = bytes(1 << 20)
    inner = b"".join(packer.compress(block) for _ in range(size >> 20)) + packer.flush()
    return gzip.compress(inner, 9)


class EncodedServer:
    """A server on 127.0.0.1 that answers every request with *body* sent as
    *encoding* says (its ``Content-Encoding``), with *status*; it keeps the
    ``Accept-Encoding`` each request asked for."""

    def __init__(self, body: bytes, encoding: str, status: int = 200) -> None:
        self.asked_for: list[str | None] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                server.asked_for.append(self.headers.get("Accept-Encoding"))
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Encoding", encoding)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

            def log_message(self, *args: object) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._http.serve_forever, name="encoded-server")

    def __enter__(self) -> EncodedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join()


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return _bomb(2 * MAX_ANSWER_BYTES)  # 128 MB in under 400 bytes


@pytest.fixture
def allocations() -> Iterator[None]:
    tracemalloc.start()
    yield
    tracemalloc.stop()


@pytest.mark.timeout(FAST_S)
def test_a_gzip_bomb_is_refused_unread_within_bounded_memory(
    bomb: bytes, allocations: None
) -> None:
    with EncodedServer(bomb, "gzip, gzip") as server:
        with pytest.raises(ServerAnswerInvalid) as raised:
            probe(server.url)  # the settings window's Test; every survey of a server
        _, peak = tracemalloc.get_traced_memory()

    assert server.asked_for == ["identity"]
    assert "sent its answer to /models compressed (gzip, gzip)" in str(raised.value)
    assert raised.value.hint
    assert peak < 16 << 20  # not the 128 MB it inflates to (3 GB from a 2.6 kB one)


@pytest.mark.timeout(FAST_S)
@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "zstd", "x-unknown"])
def test_an_answer_in_any_content_coding_is_refused(encoding: str) -> None:
    with (
        EncodedServer(MODELS, encoding) as server,
        closing(ServerConnection(server.url)) as asking,
        pytest.raises(ServerAnswerInvalid, match=f"compressed \\({encoding}\\)"),
    ):
        asking.get_json("/models")


@pytest.mark.timeout(FAST_S)
def test_an_answer_sent_as_is_is_read() -> None:
    with EncodedServer(MODELS, "identity") as server:
        info = probe(server.url)

    assert info.models == ("tiny",)
    assert info.dialect == "llama-server"


@pytest.mark.timeout(FAST_S)
def test_a_streamed_reply_that_comes_compressed_is_refused_unread(bomb: bytes) -> None:
    with (
        EncodedServer(bomb, "gzip, gzip") as server,
        closing(ServerConnection(server.url)) as asking,
        pytest.raises(ServerAnswerInvalid, match="/chat/completions compressed"),
        asking.stream("/chat/completions", {"stream": True}, model="tiny"),
    ):
        pytest.fail("the stream was handed over")

    assert server.asked_for == ["identity"]


@pytest.mark.timeout(FAST_S)
def test_a_compressed_error_answer_is_told_by_its_status(bomb: bytes) -> None:
    with (
        EncodedServer(bomb, "gzip, gzip", status=500) as server,
        pytest.raises(ServerUnavailable, match=r"failed \(500\): Internal Server Error"),
    ):
        probe(server.url)
