"""Round 30 of issue 15 against streamed replies that end without a finish,
or end at their length having said nothing but a thinking model's thoughts.

A stream that ended with neither a finish reason nor ``[DONE]`` (a server
killed mid-reply, answering with the connection's end as the body's end,
or a proxy cutting it) was taken as a whole reply, finish "stop": stored as
complete, the user never told it was cut.  Now it is told as a server that
stopped in the middle of a reply (the chat keeps what came, and says so);
a stream closed by ``[DONE]`` is whole, with or without a finish reason.

A thinking model on a server that puts its thoughts in ``reasoning_content``
(llama-server, vLLM) or ``reasoning`` (Ollama) and spends the whole reply
thinking gave an empty reply, as if it had nothing to say; now that is an
error saying so, and what to raise.

A server that redirects (never followed) was told as one that "sends
requests elsewhere", with the advice to enter the address it redirects to,
which nothing said; the message names it now, and the base to enter.
"""

from __future__ import annotations

import json
import socket
import threading

import pytest

from models.errors import ModelError
from models.interfaces import Chunk, GenerationOptions
from models.server_chat import ServerChatModel
from models.server_http import ServerUnavailable
from tests.unit.models.test_server_chat_round8 import HELLO
from tests.unit.models.test_server_chat_round12 import Answer, ScriptedServer, _event, _models

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
"""No length and no chunks: the connection's end is the body's end, as a
server killed mid-reply (or an HTTP/1.0 one) leaves it."""


def _cut(connection: socket.socket, closing: threading.Event) -> None:
    connection.sendall(HEAD + _event("The capital of France is"))


def _done_without_finish(connection: socket.socket, closing: threading.Event) -> None:
    connection.sendall(HEAD + _event("Paris.") + b"data: [DONE]\n\n")


def _stream(answer: Answer) -> tuple[list[Chunk], ModelError | None]:
    routes = {"/models": _models, "/chat/completions": answer}
    chunks: list[Chunk] = []
    with ScriptedServer(routes) as server:
        model = ServerChatModel(server.url, "m", dialect="openai", context_length=2048)
        try:
            chunks.extend(model.stream(HELLO, GenerationOptions(max_tokens=16)))
        except ModelError as error:
            return chunks, error
        finally:
            model.close()
    return chunks, None


def test_a_stream_ending_without_a_finish_or_done_is_told_as_cut() -> None:
    chunks, error = _stream(_cut)

    assert [chunk.text for chunk in chunks] == ["The capital of France is"]
    assert all(chunk.finish_reason is None for chunk in chunks)  # never "stop": not whole
    assert isinstance(error, ServerUnavailable)
    assert "stopped answering in the middle of a reply" in str(error)


def test_a_stream_closed_by_done_is_whole_without_a_finish_reason() -> None:
    chunks, error = _stream(_done_without_finish)

    assert error is None
    assert "".join(chunk.text for chunk in chunks) == "Paris."
    assert chunks[-1].finish_reason == "stop"


def _thinking_to_the_end(connection: socket.socket, closing: threading.Event) -> None:
    """A thinking model (llama-server's reasoning_content) cut at its length
    before it said a word of its answer."""
    thought = "".join(_reasoning(f"step {n} ") for n in range(8))
    connection.sendall(HEAD + thought.encode() + _event("", "length") + b"data: [DONE]\n\n")


def _reasoning(text: str) -> str:
    choice = {"delta": {"reasoning_content": text}, "finish_reason": None}
    return f"data: {json.dumps({'choices': [choice]})}\n\n"


def test_a_reply_that_is_all_thinking_cut_at_its_length_says_so() -> None:
    chunks, error = _stream(_thinking_to_the_end)

    assert not any(chunk.text for chunk in chunks)
    assert error is not None, "an empty reply, as if the model had nothing to say"
    assert "thinking" in str(error) and "models.max_reply_tokens" in str(error)


@pytest.mark.parametrize("reason", ["content_filter", "abort", "error"])
def test_a_reply_the_server_cut_for_its_own_reason_is_told_as_cut(reason: str) -> None:
    def cut_by_the_server(connection: socket.socket, closing: threading.Event) -> None:
        connection.sendall(HEAD + _event("Step one: take the") + _event("", reason))

    chunks, error = _stream(cut_by_the_server)

    assert [chunk.text for chunk in chunks] == ["Step one: take the"]  # never finished "stop"
    assert error is not None and f"cut the reply short ({reason})" in str(error)


def _moved(connection: socket.socket, closing: threading.Event) -> None:
    connection.sendall(
        b"HTTP/1.1 301 Moved Permanently\r\nLocation: https://box.example:8443/v1/models\r\n"
        b"Content-Length: 0\r\n\r\n"
    )


def test_a_server_that_redirects_says_where_to() -> None:
    with ScriptedServer({"/models": _moved}) as server:
        model = ServerChatModel(server.url, "m", dialect="openai", context_length=2048)
        try:
            with pytest.raises(ServerUnavailable) as raised:
                model.connect()
        finally:
            model.close()

    said = str(raised.value)
    assert "sends requests elsewhere (301, to https://box.example:8443/v1/models)" in said
    assert "Enter https://box.example:8443/v1 as its address instead" in said
