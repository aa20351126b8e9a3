"""Round 11 of issue 15 against the HTTP side of server backends: a probe
stopped while it is still connecting, and server text with control characters.

``ServerProbe.stop()`` (Reverie quitting) while the probe's TCP connect was
still under way cut nothing: ``close()`` found no socket yet and gave up, so
the probe waited out its whole time limit (10 s) once the connection was
made, and quitting waited with it.  And a server's model ids and error words
reached messages (and through ``reverie --check``, the terminal) with their
ESC and BEL sequences live: now they pass through ``shown_text``.
"""

from __future__ import annotations

import json
import socket
import threading

import httpx
import pytest

from models.server_http import (
    ServerConnection,
    ServerInfo,
    ServerModelNotFound,
    ServerProbe,
    ServerRequestRejected,
    ServerUnavailable,
    probe,
    resolve_model,
    shown_model,
)
from tests.unit.models.test_server_http_round9 import JOIN_S, SlowServer

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

TERMINAL_TRICKS = "\x1b]0;PWNED\x07\x1b[2J\x1b[31mFAKE: all is well\x1b[0m\u202e"
"""Retitles a terminal, clears it, prints in red, and reverses what follows."""


class HeldConnect(httpx.HTTPTransport):
    """An ordinary transport whose first request waits, before it connects,
    until the test lets it go: a connect that takes its time (a busy or
    filtered server), held at a known moment."""

    def __init__(self) -> None:
        super().__init__()
        self.connecting = threading.Event()
        self.go = threading.Event()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if not self.connecting.is_set():
            self.connecting.set()
            self.go.wait(JOIN_S)
        return super().handle_request(request)


# -- stopped while connecting --------------------------------------------------
@pytest.mark.timeout(60)
def test_a_probe_stopped_while_it_connects_ends_once_connected_not_at_its_time_limit() -> None:
    with SlowServer(hold=True) as server:  # once connected, it never finishes its answer
        transport = HeldConnect()
        asking = ServerProbe(server.url, timeout=8.0, transport=transport)
        outcome: list[object] = []

        def run() -> None:
            try:
                outcome.append(asking.run())
            except ServerUnavailable as error:
                outcome.append(error)

        thread = threading.Thread(target=run, name="probe")
        thread.start()
        assert transport.connecting.wait(JOIN_S)
        asking.stop()  # Reverie quits: no socket to cut yet
        transport.go.set()  # the connect goes on, and completes
        thread.join()
        assert not server.gave_up.is_set()  # ended while the server held, not at 8 s
    assert len(outcome) == 1 and isinstance(outcome[0], ServerUnavailable)
    assert "was closed" in str(outcome[0])  # not "did not answer in time"


@pytest.mark.timeout(60)
def test_a_connection_closed_while_connecting_ends_its_request_once_connected() -> None:
    with SlowServer(hold=True) as server:
        transport = HeldConnect()
        connection = ServerConnection(server.url, answer_timeout=8.0, transport=transport)
        outcome: list[object] = []

        def ask() -> None:
            try:
                outcome.append(connection.get_json("/models"))
            except ServerUnavailable as error:
                outcome.append(error)

        thread = threading.Thread(target=ask, name="asking")
        thread.start()
        assert transport.connecting.wait(JOIN_S)
        connection.close()
        transport.go.set()
        thread.join()
        assert not server.gave_up.is_set()
    assert len(outcome) == 1 and "was closed" in str(outcome[0])


# -- what a server says is shown, not run --------------------------------------
def _answering(status: int, body: object) -> httpx.MockTransport:
    content = json.dumps(body).encode()
    return httpx.MockTransport(lambda request: httpx.Response(status, content=content))


def _shows_no_controls(text: str) -> None:
    assert not any(c in text for c in "\x1b\x07\u202e"), repr(text)


def test_a_model_id_with_terminal_sequences_is_shown_with_them_visible() -> None:
    shown = shown_model(TERMINAL_TRICKS)
    _shows_no_controls(shown)
    assert "\\x1b]0;PWNED\\x07" in shown and shown.endswith("\\u202e")


def test_a_listing_and_the_hint_naming_what_a_server_serves_show_no_controls() -> None:
    info = ServerInfo("http://box:8080/v1", "openai", (TERMINAL_TRICKS, "other"))
    _shows_no_controls(info.listing)
    assert info.models[0] == TERMINAL_TRICKS  # the name the server knows it by, whole
    connection = ServerConnection("http://box:8080/v1")
    try:
        with pytest.raises(ServerModelNotFound) as raised:
            resolve_model(connection, "nope", info.models)
    finally:
        connection.close()
    _shows_no_controls(str(raised.value))
    assert "\\x1b" in str(raised.value)


@pytest.mark.parametrize(
    ("status", "error"),
    [(500, ServerUnavailable), (422, ServerRequestRejected), (404, ServerModelNotFound)],
)
def test_a_servers_own_words_about_an_error_show_no_controls(
    status: int, error: type[Exception]
) -> None:
    said = {"error": {"message": f"model not found {TERMINAL_TRICKS}"}}
    connection = ServerConnection("http://box:8080/v1", transport=_answering(status, said))
    try:
        with pytest.raises(error) as raised:
            connection.post_json("/chat/completions", {}, model="m")
    finally:
        connection.close()
    _shows_no_controls(str(raised.value))
    assert "FAKE: all is well" in str(raised.value)  # still said, as text


def test_a_probe_of_a_server_listing_such_ids_shows_none_of_its_controls() -> None:
    listing = {"data": [{"id": TERMINAL_TRICKS, "owned_by": "llamacpp"}]}
    info = probe("http://box:8080/v1", transport=_answering(200, listing))
    _shows_no_controls(info.listing)


def test_a_server_that_is_down_is_named_in_words_not_an_error_number() -> None:
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]

    with pytest.raises(ServerUnavailable) as raised:
        probe(f"http://127.0.0.1:{port}/v1")

    assert "connection refused" in str(raised.value).lower()
    assert "Errno" not in str(raised.value)
