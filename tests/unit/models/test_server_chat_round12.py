"""Round 12 of issue 15 against chat replies from a server that never ends
its answer.

A chat request answered with an error status and a body dripped a byte at a
time never ended (each byte reset the read timeout; a dream on that server
would hang), and a huge error body was read whole into memory (600 MB grew
the process by 2.4 GB) only to show 300 characters of it.  The dialect
checks (``/api/version``, ``/props``) ran with the chat's limits, so a server
that never answered them held the first reply for five to ten minutes.  A
reply whose finish came followed by keep-alive comments stayed open for the
whole read timeout.  Now an error body is read within the answer's time
limit and a size bound, a dialect check within a probe's time, and a reply
ends at its finish.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from types import TracebackType

import httpx
import pytest

from models.interfaces import Chunk, GenerationOptions
from models.server_chat import ServerChatModel
from models.server_http import (
    MAX_ERROR_BODY_BYTES,
    ServerConnection,
    ServerUnavailable,
    detect_dialect,
)
from tests.unit.models.test_server_chat_round8 import HELLO, URL

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

HOST = "127.0.0.1"
JOIN_S = 10.0
GIVE_UP_S = 20.0
"""How long the test's server drips or holds before it gives up (a guard
against a hang): far past every bound the client has, so a reply that ends
after the server gave up (``ScriptedServer.gave_up``) waited for the server,
not for its own limit."""
MODELS = json.dumps({"data": [{"id": "m"}]}).encode()

Answer = Callable[[socket.socket, threading.Event], None]


def _event(content: str, finish: str | None = None) -> bytes:
    choice = {"delta": {"content": content}, "finish_reason": finish}
    return f"data: {json.dumps({'choices': [choice]})}\n\n".encode()


def _chunked(connection: socket.socket, data: bytes) -> None:
    connection.sendall(b"%x\r\n" % len(data) + data + b"\r\n")


def _models(connection: socket.socket, closing: threading.Event) -> None:
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(MODELS)}"
    connection.sendall(head.encode() + b"\r\n\r\n" + MODELS)


def _not_found(connection: socket.socket, closing: threading.Event) -> None:
    connection.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}")


class _GaveUp(Exception):
    """The script held its answer until the server gave up (ends the connection)."""


def _silent(connection: socket.socket, closing: threading.Event) -> None:
    """Takes the request and never says a word (until the server gives up)."""
    if not closing.wait(GIVE_UP_S):
        raise _GaveUp
    raise OSError("closing")


def _failing_drip(connection: socket.socket, closing: threading.Event) -> None:
    """A 500 whose body comes a byte every 50 ms, until the server gives up."""
    connection.sendall(
        b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    _chunked(connection, b"overloaded ")
    given_up = time.monotonic() + GIVE_UP_S
    while time.monotonic() < given_up and not closing.wait(0.05):  # pacing the server
        _chunked(connection, b"x")
    raise OSError("closing") if closing.is_set() else _GaveUp


def _finish_then_pings(connection: socket.socket, closing: threading.Event) -> None:
    """The reply and its finish, then keep-alive comments only, until the server gives up."""
    connection.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    _chunked(connection, _event("hi"))
    _chunked(connection, _event("", "stop"))
    given_up = time.monotonic() + GIVE_UP_S
    while time.monotonic() < given_up and not closing.wait(0.1):  # pacing the server
        _chunked(connection, b": ping\n\n")
    raise OSError("closing") if closing.is_set() else _GaveUp


class ScriptedServer:
    """A server on 127.0.0.1 answering each request by the first of *routes*
    whose path ends its request line's path; requests on one connection are
    answered one after another.  ``gave_up`` is set once a script held its
    answer until it gave up."""

    def __init__(self, routes: Mapping[str, Answer]) -> None:
        self.asked: list[str] = []
        self.gave_up = threading.Event()
        self._routes = routes
        self._closing = threading.Event()
        self._listener = socket.create_server((HOST, 0))
        self._listener.settimeout(0.05)  # so that the accepting loop sees closing
        self.url = f"http://{HOST}:{self._listener.getsockname()[1]}/v1"
        self._threads: list[threading.Thread] = []
        self._thread = threading.Thread(target=self._serve, name="scripted-server")
        self._thread.start()

    def __enter__(self) -> ScriptedServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._closing.set()
        self._thread.join(JOIN_S)
        for thread in self._threads:
            thread.join(JOIN_S)
        self._listener.close()

    def _serve(self) -> None:
        while not self._closing.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            thread = threading.Thread(target=self._answer, args=(connection,), name="scripted")
            self._threads.append(thread)
            thread.start()

    def _answer(self, connection: socket.socket) -> None:
        try:
            self._answer_all(connection)
        except _GaveUp:
            self.gave_up.set()

    def _answer_all(self, connection: socket.socket) -> None:
        # OSError: the client cut the connection, or the server is closing.
        with connection, contextlib.suppress(OSError):
            connection.settimeout(JOIN_S)
            reader = connection.makefile("rb")
            while not self._closing.is_set():
                request_line = reader.readline()
                if not request_line:
                    return
                length = 0
                while (line := reader.readline()) not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                reader.read(length)
                path = request_line.split()[1].decode()
                self.asked.append(path)
                answer = next(a for end, a in self._routes.items() if path.endswith(end))
                answer(connection, self._closing)


def _reply(model: ServerChatModel) -> list[Chunk] | Exception:
    try:
        return list(model.stream(HELLO, GenerationOptions(max_tokens=16)))
    except ServerUnavailable as error:
        return error
    finally:
        model.close()


# -- an error body -------------------------------------------------------------
@pytest.mark.timeout(60)
def test_a_dripped_error_body_ends_the_reply_at_its_time_limit_saying_it_failed() -> None:
    with ScriptedServer({"/models": _models, "/chat/completions": _failing_drip}) as server:
        model = ServerChatModel(server.url, "m", dialect="openai", read_timeout=30.0)
        model._connection.answer_timeout = 0.5  # the default is 600 s
        outcome = _reply(model)
        assert not server.gave_up.is_set()  # ended at 0.5 s (it ran till GIVE_UP_S)

    assert isinstance(outcome, ServerUnavailable)
    assert "failed (500)" in str(outcome) and "overloaded" in str(outcome)


@pytest.mark.timeout(60)
def test_a_huge_error_body_is_read_only_up_to_its_bound() -> None:
    sent = 0

    def body() -> Iterator[bytes]:
        nonlocal sent
        for _ in range(32):  # 32 MB, unless the client stops reading first
            sent += 1 << 20
            yield b"e" * (1 << 20)

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, content=MODELS)
        return httpx.Response(500, content=body())

    model = ServerChatModel(URL, "m", dialect="openai", transport=httpx.MockTransport(handle))
    outcome = _reply(model)

    assert isinstance(outcome, ServerUnavailable) and "failed (500): eee" in str(outcome)
    assert sent <= MAX_ERROR_BODY_BYTES + (1 << 20)  # one piece past the bound at most


# -- dialect checks ------------------------------------------------------------
@pytest.mark.timeout(60)
def test_a_dialect_check_never_answered_means_not_that_dialect_within_a_probes_time() -> None:
    routes = {"/models": _models, "/api/version": _silent, "/props": _silent}
    with ScriptedServer(routes) as server:
        connection = ServerConnection(server.url)  # the chat's limits: 300 s, 600 s
        connection.probe_timeout = 1.0  # a probe's (10 s by default)
        try:
            found = detect_dialect(connection, ({"id": "m"},))
        finally:
            connection.close()
        assert not server.gave_up.is_set()  # within a probe's time (it ran till GIVE_UP_S)

    assert found == "openai"
    assert "/props" not in server.asked  # no time was left for it: not asked in vain


@pytest.mark.timeout(60)
def test_a_dialect_check_past_a_probes_own_time_limit_still_times_the_probe_out() -> None:
    routes = {"/models": _models, "/api/version": _silent, "/props": _silent}
    with ScriptedServer(routes) as server:
        connection = ServerConnection(server.url)
        connection.deadline = time.monotonic() + 0.3  # what a settings Test sets
        try:
            with pytest.raises(ServerUnavailable, match="did not answer in time"):
                detect_dialect(connection, ({"id": "m"},))
        finally:
            connection.close()


@pytest.mark.timeout(60)
def test_a_chat_reply_is_asked_once_the_dialect_checks_gave_up() -> None:
    routes = {
        "/models": _models,
        "/api/version": _silent,
        "/props": _not_found,
        "/chat/completions": _finish_then_pings,
    }
    with ScriptedServer(routes) as server:
        model = ServerChatModel(server.url, "m", read_timeout=30.0)
        model._connection.probe_timeout = 0.5
        outcome = _reply(model)
        assert not server.gave_up.is_set()

    assert outcome == [Chunk("hi"), Chunk("", "stop")]


# -- the finish ----------------------------------------------------------------
@pytest.mark.timeout(60)
def test_a_reply_ends_at_its_finish_though_keep_alive_comments_follow() -> None:
    with ScriptedServer({"/models": _models, "/chat/completions": _finish_then_pings}) as server:
        model = ServerChatModel(server.url, "m", dialect="openai", read_timeout=3.0)
        outcome = _reply(model)
        assert not server.gave_up.is_set()  # the pings went on: it ended at its finish

    assert outcome == [Chunk("hi"), Chunk("", "stop")]


@pytest.mark.timeout(60)
def test_the_next_reply_after_one_ended_at_its_finish_is_answered_too() -> None:
    with ScriptedServer({"/models": _models, "/chat/completions": _finish_then_pings}) as server:
        model = ServerChatModel(server.url, "m", dialect="openai", read_timeout=3.0)
        try:
            replies = [
                list(model.stream(HELLO, GenerationOptions(max_tokens=16))) for _ in range(3)
            ]
        finally:
            model.close()

    assert replies == [[Chunk("hi"), Chunk("", "stop")]] * 3
    assert server.asked.count("/v1/chat/completions") == 3


def test_events_after_the_finish_are_not_read_at_all() -> None:
    read = 0

    def tail() -> Iterator[bytes]:
        nonlocal read
        yield _event("done", "stop")
        for piece in itertools.repeat(_event("x"), 1000):
            read += 1
            yield piece

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, content=MODELS)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=tail())

    model = ServerChatModel(URL, "m", dialect="openai", transport=httpx.MockTransport(handle))
    outcome = _reply(model)

    assert outcome == [Chunk("done", "stop")]
    assert read <= 1  # the piece being read when the finish was seen, at most
