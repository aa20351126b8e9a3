"""Round 23 of issue 15 against chat replies from a server that does not
stream them, and token counts a server never answers.

A server that answered a chat request with 200 and anything but a stream
of events gave an empty reply, as if the model had said nothing: a web page
(a proxy's or a login portal's), an empty body, or the whole reply as one
JSON object from a server that ignores ``"stream": true``.  The chat stored
nothing and said nothing; a dream read the empty answer as the model's
unusable JSON.  Now a reply sent whole as JSON is taken as the reply it is,
and anything else without a single event is an invalid answer naming what
came instead.

A token count on a server (llama-cpp-python, llama-server, vLLM) had the
time limit of an embedding batch, ten minutes, and nothing stops it: a chat
turn counting its prompt on a server that took the request and said
nothing could not be stopped, and quitting Reverie waited behind it.  A
count is answered at once by every server: it now takes a probe's time.
"""

from __future__ import annotations

import json
import socket
import threading

import pytest

from models.interfaces import Chunk, GenerationOptions
from models.server_chat import ServerChatModel
from models.server_http import ServerAnswerInvalid, ServerRequestRejected, ServerTimedOut
from tests.unit.models.test_server_chat_round8 import HELLO
from tests.unit.models.test_server_chat_round12 import (
    Answer,
    ScriptedServer,
    _models,
    _not_found,
    _silent,
)
from tests.unit.models.test_server_http_round23 import _answer

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

JOIN_S = 10.0
PORTAL = b"<!doctype html><html><body><h1>Sign in to the network</h1></body></html>"


def _whole(content: str | None, finish: str | None = "stop") -> bytes:
    message = {"role": "assistant", "content": content}
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return json.dumps({"object": "chat.completion", "choices": [choice]}).encode()


def _reply_from(chat_answer: bytes, kind: str) -> list[Chunk]:
    routes = {"/models": _models, "/chat/completions": _answer("200 OK", chat_answer, kind)}
    with ScriptedServer(routes) as server:
        model = ServerChatModel(server.url, "m", dialect="openai")
        try:
            return list(model.stream(HELLO, GenerationOptions(max_tokens=16)))
        finally:
            model.close()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("body", "kind", "named"),
    [
        (PORTAL, "text/html; charset=utf-8", "text/html"),
        (b"Service temporarily overloaded", "", "no type"),
    ],
)
def test_a_reply_that_is_no_stream_of_events_is_an_invalid_answer_naming_what_came(
    body: bytes, kind: str, named: str
) -> None:
    with pytest.raises(ServerAnswerInvalid, match="not a stream of events") as caught:
        _reply_from(body, kind)

    assert f"({named})" in str(caught.value)


@pytest.mark.timeout(60)
def test_a_reply_sent_whole_as_json_is_the_reply() -> None:
    chunks = _reply_from(_whole("Hello there \ud83d\ude00"), "application/json")

    assert "".join(chunk.text for chunk in chunks) == "Hello there \U0001f600"
    assert chunks[-1].finish_reason == "stop"


@pytest.mark.timeout(60)
def test_a_reply_sent_whole_keeps_its_finish_length() -> None:
    chunks = _reply_from(_whole("cut sho", "length"), "application/json; charset=utf-8")

    assert chunks == [Chunk("cut sho", "length")]


@pytest.mark.timeout(60)
def test_an_error_sent_whole_as_json_with_200_is_the_servers_refusal() -> None:
    body = json.dumps({"error": {"message": "context length exceeded"}}).encode()

    with pytest.raises(ServerRequestRejected, match="context length exceeded"):
        _reply_from(body, "application/json")


@pytest.mark.timeout(60)
def test_a_whole_reply_that_is_not_a_chat_completion_is_an_invalid_answer() -> None:
    with pytest.raises(ServerAnswerInvalid, match="without a message"):
        _reply_from(json.dumps({"choices": [{"text": "legacy"}]}).encode(), "application/json")


@pytest.mark.timeout(60)
def test_stop_ends_a_whole_reply_the_server_is_still_sending() -> None:
    asked = threading.Event()

    def held(connection: socket.socket, closing: threading.Event) -> None:
        connection.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 999\r\n\r\n{"
        )
        asked.set()
        closing.wait(JOIN_S)  # the rest never comes

    stopped = threading.Event()
    with ScriptedServer({"/models": _models, "/chat/completions": held}) as server:
        model = ServerChatModel(server.url, "m", dialect="openai")
        outcome: list[Chunk] = []
        thread = threading.Thread(
            target=lambda: outcome.extend(
                model.stream(HELLO, GenerationOptions(max_tokens=16), stopped.is_set)
            )
        )
        thread.start()
        assert asked.wait(JOIN_S)
        stopped.set()
        thread.join(JOIN_S)
        model.close()

    assert not thread.is_alive()
    assert outcome == [Chunk("", "cancelled")]


# -- a token count never answered ----------------------------------------------
def _listing(owner: str) -> Answer:
    listing = json.dumps({"data": [{"id": "m", "owned_by": owner}]}).encode()
    return _answer("200 OK", listing)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("owner", "count_path"),
    [("me", "/extras/tokenize/count"), ("llamacpp", "/tokenize"), ("vllm", "/tokenize")],
)
def test_a_token_count_never_answered_times_out_in_a_probes_time(
    owner: str, count_path: str
) -> None:
    routes = {"/models": _listing(owner), "/props": _not_found, count_path: _silent}
    with ScriptedServer(routes) as server:
        model = ServerChatModel(server.url, "m", context_length=2048).connect()
        model._connection.probe_timeout = 0.5  # the default is 10 s
        try:
            with pytest.raises(ServerTimedOut, match="did not answer in time"):
                model.count_tokens("How many tokens is this?")
        finally:
            model.close()
        assert server.asked[-1].endswith(count_path)
        # Not the answer's 600 s (here: until the server gave up): a chat
        # turn counting its prompt waits on it, and Reverie quitting behind it.
        assert not server.gave_up.is_set()
