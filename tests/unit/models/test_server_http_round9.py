"""Round 9 of issue 15 against the HTTP side of server backends: answers that
never end, and model lists no one could show.

A server that sent its ``/models`` answer a byte at a time, each within the
read timeout, kept ``probe`` going for hours (the settings window's Test
stayed on "Asking the server…" and quitting then hung); an embedding server
doing the same was unbounded too.  A model list of 2 MB ids froze the
settings window while it laid them out, and ``resolve_model``'s hint quoted
twenty of them.  Now every answer that is not streamed has a total time
limit, a probe can be stopped from another thread, and a model list is
bounded, its ids shown shortened.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from types import TracebackType

import httpx
import pytest

from models.server_http import (
    MAX_LISTED_MODELS,
    MAX_MODEL_ID_CHARS,
    SHOWN_MODEL_CHARS,
    ServerAnswerInvalid,
    ServerConnection,
    ServerInfo,
    ServerModelNotFound,
    ServerProbe,
    ServerUnavailable,
    probe,
    resolve_model,
)

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

HOST = "127.0.0.1"
JOIN_S = 10.0
GIVE_UP_S = 20.0
"""How long a holding server holds before it gives up (``SlowServer.gave_up``):
past every client limit these tests set, and short of the read timeouts,
so a client that ends before it gave up ended on its own limit."""
MODELS = json.dumps({"data": [{"id": "m"}]}).encode()


class SlowServer:
    """A server on 127.0.0.1 that answers every request with *body*, sent a
    piece at a time over *drip_for* seconds, then (if *hold*) holds the
    connection without a word until closed (or until it gives up, after
    ``GIVE_UP_S``): one that is never done answering.  ``sent_whole`` counts
    the answers dripped to their end.

    Requests are answered one after another, as a client of one connection asks them.
    """

    def __init__(self, body: bytes = MODELS, *, drip_for: float = 0.0, hold: bool = False) -> None:
        self.asked = threading.Event()
        self.requests = 0
        self.sent_whole = 0
        self.gave_up = threading.Event()
        self._body = body + b" " * 64  # JSON may end with spaces: pieces to drip
        self._drip_for = drip_for
        self._hold = hold
        self._closing = threading.Event()
        self._listener = socket.create_server((HOST, 0))
        self._listener.settimeout(0.05)  # so that the accepting loop sees closing
        self.url = f"http://{HOST}:{self._listener.getsockname()[1]}/v1"
        self._thread = threading.Thread(target=self._serve, name="slow-server")
        self._thread.start()

    def __enter__(self) -> SlowServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._closing.set()
        self._thread.join(JOIN_S)
        self._listener.close()

    def _serve(self) -> None:
        while not self._closing.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            # OSError: the client cut the connection; on to the next.
            with connection, contextlib.suppress(OSError):
                self._answer(connection)

    def _answer(self, connection: socket.socket) -> None:
        connection.settimeout(JOIN_S)
        while not self._closing.is_set():
            request = b""
            while b"\r\n\r\n" not in request:
                piece = connection.recv(65536)
                if not piece:
                    return
                request += piece
            self.requests += 1
            self.asked.set()
            head = (
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(self._body) + (1 if self._hold else 0)}\r\n\r\n"
            )
            connection.sendall(head.encode())
            pieces = [self._body[i : i + 8] for i in range(0, len(self._body), 8)]
            for piece in pieces:
                connection.sendall(piece)
                # Pacing the server, not waiting in a test.
                if self._closing.wait(self._drip_for / len(pieces)):
                    return
            self.sent_whole += 1
            if self._hold:  # one byte short of its length: the client waits for it
                if not self._closing.wait(GIVE_UP_S):
                    self.gave_up.set()
                return


# -- a total time limit --------------------------------------------------------
@pytest.mark.timeout(60)
def test_an_answer_dripped_within_the_read_timeout_times_out_in_all() -> None:
    with SlowServer(drip_for=3.0) as server:
        connection = ServerConnection(server.url, read_timeout=30.0, answer_timeout=0.5)
        try:
            with pytest.raises(ServerUnavailable, match="did not answer in time"):
                connection.get_json("/models")
        finally:
            connection.close()
        assert server.sent_whole == 0  # cut while it dripped (3 s)


@pytest.mark.timeout(60)
def test_a_server_silent_mid_answer_is_cut_at_the_time_limit_not_the_read_timeout() -> None:
    with SlowServer(hold=True) as server:
        connection = ServerConnection(server.url, read_timeout=30.0, answer_timeout=0.5)
        try:
            with pytest.raises(ServerUnavailable, match="did not answer in time"):
                connection.post_json("/embeddings", {"input": ["x"]})
        finally:
            connection.close()
        assert not server.gave_up.is_set()  # cut while it held, not at the read timeout


@pytest.mark.timeout(60)
def test_a_probe_ends_within_its_timeout_all_its_requests_together() -> None:
    # Each answer comes within the timeout; the three a probe asks do not.
    with SlowServer(drip_for=0.6) as server:
        with pytest.raises(ServerUnavailable, match="did not answer in time"):
            probe(server.url, timeout=1.0)
        assert server.requests >= 2
        assert server.sent_whole < server.requests  # the last cut while it dripped


@pytest.mark.timeout(60)
def test_a_probe_stopped_from_another_thread_ends_at_once() -> None:
    with SlowServer(hold=True) as server:
        asking = ServerProbe(server.url, timeout=30.0)
        outcome: list[object] = []

        def run() -> None:
            try:
                outcome.append(asking.run())
            except ServerUnavailable as error:
                outcome.append(error)

        thread = threading.Thread(target=run, name="probe")
        thread.start()
        assert server.asked.wait(JOIN_S)
        asking.stop()
        thread.join()
        assert not server.gave_up.is_set()  # ended while the server held, not at 30 s
    assert len(outcome) == 1 and isinstance(outcome[0], ServerUnavailable)


def test_a_probe_stopped_before_it_runs_sends_nothing() -> None:
    asked: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request)
        return httpx.Response(200, content=MODELS)

    asking = ServerProbe("http://box:8080/v1", transport=httpx.MockTransport(answer))
    asking.stop()
    with pytest.raises(ServerUnavailable, match="was closed"):
        asking.run()
    assert asked == []


# -- model lists ---------------------------------------------------------------
def _listing(ids: list[str]) -> httpx.MockTransport:
    body = json.dumps({"data": [{"id": name, "owned_by": "llamacpp"} for name in ids]})
    return httpx.MockTransport(lambda request: httpx.Response(200, content=body.encode()))


@pytest.mark.parametrize(
    "ids",
    [
        ["m" * 2_000_000 + str(n) for n in range(8)],
        ["m", "x" * (MAX_MODEL_ID_CHARS + 1)],
        [f"m{n}" for n in range(MAX_LISTED_MODELS + 1)],
    ],
    ids=["2 MB ids", "one id too long", "too many"],
)
def test_a_model_list_no_one_could_show_is_an_invalid_answer(ids: list[str]) -> None:
    with pytest.raises(ServerAnswerInvalid, match="model list"):
        probe("http://box:8080/v1", transport=_listing(ids))


def test_the_longest_allowed_ids_are_kept_whole_and_shown_shortened() -> None:
    path = "/home/someone/models/" + "q" * (MAX_MODEL_ID_CHARS - 30) + ".Q4_K_M.gguf"
    path = path[:MAX_MODEL_ID_CHARS]
    info = probe("http://box:8080/v1", transport=_listing([path, "small"]))

    assert info.models == (path, "small")  # the name the server knows it by, whole
    shown = info.listing
    assert shown.startswith("/home/someone/models/") and shown.endswith(", small")
    assert len(shown) <= SHOWN_MODEL_CHARS + len(", small")


def test_a_listing_shows_eight_models_at_most() -> None:
    info = ServerInfo("http://box:8080/v1", "openai", tuple(f"model-{n}" for n in range(20)))
    assert info.listing == ", ".join(f"model-{n}" for n in range(8)) + ", …"


def test_the_hint_naming_what_a_server_serves_is_short() -> None:
    served = tuple("m" * MAX_MODEL_ID_CHARS + str(n) for n in range(30))
    connection = ServerConnection("http://box:8080/v1")
    try:
        with pytest.raises(ServerModelNotFound) as raised:
            resolve_model(connection, "x" * MAX_MODEL_ID_CHARS, served)
    finally:
        connection.close()
    said = str(raised.value)  # the message and its hint, as the chat's banner shows it
    assert len(said) < 21 * (SHOWN_MODEL_CHARS + 2) + 200
    assert said.count("…") == 1 + 20 + 1  # the name asked for, twenty served, and more


def test_an_id_with_a_lone_surrogate_is_shown_as_text() -> None:
    info = ServerInfo("http://box:8080/v1", "openai", ("bad\ud800id",))
    assert info.models == ("bad\ud800id",)  # sent back as the server wrote it
    info.listing.encode("utf-8")
    assert info.listing == "bad\ufffdid"
