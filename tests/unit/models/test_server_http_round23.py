"""Round 23 of issue 15 against the HTTP side of server backends: an API key
a server quotes back as JSON or a web page does, or whose quote an error
body's bound cuts.

The key was scrubbed from a server's words only as it is and as a repr
shows it.  A key holding a double quote (printable ASCII, so allowed) came
back escaped from every error put back into JSON (``{"error": {...}}``, a
streamed error event) or from a web page, ``adm\\"in...`` or
``adm&quot;in...``: not found, so shown in the banner, logged and kept in a
dream's report.  And an error body is read only up to its bound (64 kB) or
time limit, of which its start and its end are shown: a key cut there was
left as its first characters, which no scrub of the whole key finds.

An answer that is not streamed and stops partway (a Content-Length the
server did not keep, then the connection closed) was told as "Cannot reach
the server ... check the address": the server had been reached and had
answered; it stopped in the middle, as a reply cut short is told.
"""

from __future__ import annotations

import json
import socket
import threading

import pytest

from models.interfaces import GenerationOptions
from models.server_chat import ServerChatModel
from models.server_embed import ServerEmbedder
from models.server_http import (
    MAX_ERROR_BODY_BYTES,
    ServerConnection,
    ServerRequestRejected,
    ServerUnavailable,
)
from tests.unit.models.test_server_chat_round8 import HELLO
from tests.unit.models.test_server_chat_round12 import Answer, ScriptedServer, _models

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

KEY = 'rv"7Qz9-Xk2W&mB4<pL8>nT'
"""A key an administrator chose: printable ASCII, quotes and all."""
KEY_START = KEY[:10]


def _answer(status: str, body: bytes, kind: str = "application/json") -> Answer:
    def answer(connection: socket.socket, closing: threading.Event) -> None:
        head = f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}"
        connection.sendall(head.encode() + b"\r\n\r\n" + body)

    return answer


def _embedding_error(body: bytes, kind: str = "application/json") -> str:
    routes = {"/models": _models, "/embeddings": _answer("500 Internal Server Error", body, kind)}
    with ScriptedServer(routes) as server:
        embedder = ServerEmbedder(server.url, "m", api_key=KEY)
        try:
            with pytest.raises(ServerUnavailable, match=r"failed \(500\)") as caught:
                embedder.embed(["hello"])
        finally:
            embedder.close()
    return str(caught.value)


def _headers_echoed(key: str) -> dict[str, object]:
    return {"error": {"request": {"headers": {"authorization": f"Bearer {key}"}}}}


@pytest.mark.timeout(60)
def test_a_key_echoed_in_an_error_put_back_into_json_is_scrubbed() -> None:
    said = _embedding_error(json.dumps(_headers_echoed(KEY)).encode())

    assert KEY_START not in said and json.dumps(KEY)[1:11] not in said
    assert "Bearer [api key]" in said


@pytest.mark.timeout(60)
def test_a_key_echoed_in_a_web_page_is_scrubbed() -> None:
    page = "<html><body><pre>Authorization: Bearer rv&quot;7Qz9-Xk2W&amp;mB4&lt;pL8&gt;nT</pre>"
    said = _embedding_error(page.encode(), "text/html")

    assert "rv&quot;7Qz9" not in said
    assert "Bearer [api key]" in said


@pytest.mark.timeout(60)
def test_a_key_echoed_in_a_streamed_error_event_is_scrubbed() -> None:
    event = f"data: {json.dumps({'error': f'no such key: {KEY}'})}\n\n".encode()
    routes = {
        "/models": _models,
        "/chat/completions": _answer("200 OK", event, "text/event-stream"),
    }
    with ScriptedServer(routes) as server:
        model = ServerChatModel(server.url, "m", api_key=KEY, dialect="openai")
        try:
            with pytest.raises(ServerRequestRejected, match="broke off") as caught:
                list(model.stream(HELLO, GenerationOptions(max_tokens=8)))
        finally:
            model.close()

    assert "rv" + '\\"' + "7Qz9" not in str(caught.value) and KEY_START not in str(caught.value)
    assert "[api key]" in str(caught.value)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("cut_after", [1, 4, 9, len(KEY) - 1])
def test_a_key_cut_by_the_error_bodys_bound_leaves_none_of_its_start(cut_after: int) -> None:
    echo = f"Authorization: Bearer {KEY}".encode()
    padding = b"." * (MAX_ERROR_BODY_BYTES - len(echo) + len(KEY) - cut_after)
    said = _embedding_error(padding + echo + b" and more" * 100, "text/plain")

    # The reason ends where the key began; the hint follows.
    assert said.split("Authorization: Bearer", 1)[1] == " Check the server's own log."


def test_a_body_ending_in_what_only_looks_like_a_keys_start_keeps_it_when_whole() -> None:
    connection = ServerConnection("http://127.0.0.1:9/v1", KEY)
    try:
        assert connection.scrub("unknown model rv") == "unknown model rv"
    finally:
        connection.close()


# -- an answer cut short ---------------------------------------------------------
def _cut_short(connection: socket.socket, closing: threading.Event) -> None:
    """An answer promising more than it sends, then the connection closed."""
    body = b'{"data": [{"index": 0, "embedding": [0.1, '
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body) + 64}"
    connection.sendall(head.encode() + b"\r\n\r\n" + body)
    raise OSError("gone")  # ends the connection


@pytest.mark.timeout(60)
def test_an_answer_cut_short_says_the_server_stopped_not_that_it_cannot_be_reached() -> None:
    with ScriptedServer({"/models": _models, "/embeddings": _cut_short}) as server:
        embedder = ServerEmbedder(server.url, "m")
        try:
            with pytest.raises(ServerUnavailable) as caught:
                embedder.embed(["hello"])
        finally:
            embedder.close()

    said = str(caught.value)
    assert "stopped answering in the middle of a reply" in said
    assert "Cannot reach" not in said and "address is right" not in said
