"""Round 8 of issue 15 against streamed replies from a server: every reply
ends, whatever the server sends.

An event nested too deeply or larger than any real one is an invalid answer
(read no further than the bound); a reply going on well past ``max_tokens``
is cut with finish "length"; keep-alive comments alone time out.  The
server is an ``httpx.MockTransport`` whose reply is a generator, so a test
sees how much of an endless reply the client read.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator

import httpx
import pytest

from models.interfaces import ChatMessage, Chunk, GenerationOptions
from models.server_chat import (
    MAX_EVENT_CHARS,
    ServerChatModel,
    reply_bounds,
    sse_data,
)
from models.server_http import ServerAnswerInvalid, ServerUnavailable

URL = "http://box:8080/v1"
HELLO = [ChatMessage("user", "hi")]
LIMIT_BYTES = 64 * MAX_EVENT_CHARS
"""What an endless reply offers before the test's server gives up: far more
than the client may read."""


def _event(content: str, finish: str | None = None) -> bytes:
    choice = {"delta": {"content": content}, "finish_reason": finish}
    return f"data: {json.dumps({'choices': [choice]})}\n\n".encode()


class Server:
    """A server whose chat replies are *reply*; counts the bytes it sent."""

    def __init__(self, reply: Iterable[bytes]) -> None:
        self.sent = 0
        self._reply = reply

    def _counted(self) -> Iterator[bytes]:
        for piece in self._reply:
            self.sent += len(piece)
            yield piece
            if self.sent > LIMIT_BYTES:
                return

    def handle(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "m"}]})
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=self._counted()
        )

    def model(self, read_timeout: float = 300.0) -> ServerChatModel:
        transport = httpx.MockTransport(self.handle)
        return ServerChatModel(
            URL, "m", dialect="openai", read_timeout=read_timeout, transport=transport
        )


def _reply(server: Server, max_tokens: int = 16, read_timeout: float = 300.0) -> list[Chunk]:
    model = server.model(read_timeout)
    try:
        return list(model.stream(HELLO, GenerationOptions(max_tokens=max_tokens)))
    finally:
        model.close()


def test_an_event_nested_too_deeply_is_an_invalid_answer() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    server = Server([f"data: {deep}\n\n".encode(), b"data: [DONE]\n\n"])

    with pytest.raises(ServerAnswerInvalid, match="not JSON"):
        _reply(server)


def test_data_lines_that_never_end_their_event_are_read_only_up_to_the_bound() -> None:
    line = b"data: " + b"x" * 65_536 + b"\n"
    server = Server(itertools.repeat(line))

    with pytest.raises(ServerAnswerInvalid, match="larger than"):
        _reply(server)

    assert server.sent < 2 * MAX_EVENT_CHARS


def test_a_line_that_never_ends_is_read_only_up_to_the_bound() -> None:
    server = Server(itertools.chain([b"data: "], itertools.repeat(b"y" * 65_536)))

    with pytest.raises(ServerAnswerInvalid, match="larger than"):
        _reply(server)

    assert server.sent < 2 * MAX_EVENT_CHARS


def test_a_reply_well_past_max_tokens_is_cut_with_finish_length() -> None:
    server = Server(itertools.repeat(_event("la ")))

    chunks = _reply(server, max_tokens=16)

    assert chunks[-1].finish_reason == "length"
    assert [chunk.finish_reason for chunk in chunks[:-1]] == [None] * (len(chunks) - 1)
    events, _ = reply_bounds(16)
    assert 16 <= len(chunks) - 1 <= events
    assert server.sent < 100 * len(_event("la "))


def test_a_reply_of_huge_events_is_cut_by_its_characters() -> None:
    server = Server(itertools.repeat(_event("z" * 50_000)))

    chunks = _reply(server, max_tokens=16)

    _, characters = reply_bounds(16)
    assert chunks[-1].finish_reason == "length"
    assert sum(len(chunk.text) for chunk in chunks) <= characters


def test_keep_alive_comments_alone_time_out_as_unavailable() -> None:
    server = Server(itertools.repeat(b": ping\n\n"))

    with pytest.raises(ServerUnavailable, match=r"did not answer within 0\.2 s"):
        _reply(server, read_timeout=0.2)


def test_a_slow_trickle_of_one_event_times_out_too() -> None:
    server = Server(itertools.chain([b"data: {"], itertools.repeat(b" ")))

    with pytest.raises(ServerUnavailable, match=r"did not answer within 0\.2 s"):
        _reply(server, read_timeout=0.2)


def test_comments_after_the_finish_end_the_reply_as_it_was() -> None:
    server = Server(itertools.chain([_event("done", "stop")], itertools.repeat(b": ping\n\n")))

    chunks = _reply(server, read_timeout=0.2)

    assert chunks == [Chunk("done", "stop")]


def test_events_after_the_finish_are_not_read_forever() -> None:
    server = Server(itertools.chain([_event("done", "stop")], itertools.repeat(_event("x"))))

    chunks = _reply(server)

    assert chunks == [Chunk("done", "stop")]
    assert server.sent < 100 * len(_event("x"))


def test_a_whole_reply_in_one_event_as_some_servers_send_it_is_kept() -> None:
    text = "\u6f22\u5b57 and \U0001f600 " * 6_000  # ~60 k characters, ~250 kB escaped
    server = Server([_event(text), _event("", "stop"), b"data: [DONE]\n\n"])

    chunks = _reply(server, max_tokens=4096)

    assert "".join(chunk.text for chunk in chunks) == text
    assert chunks[-1].finish_reason == "stop"


def test_a_line_separator_inside_the_content_is_not_a_line_break() -> None:
    content = "one\u2028two\u2029three\x85four"
    raw = 'data: {"choices":[{"delta":{"content":"' + content + '"},"finish_reason":null}]}\n\n'
    server = Server([raw.encode(), _event("", "stop")])

    chunks = _reply(server)

    assert "".join(chunk.text for chunk in chunks) == content


def test_events_split_anywhere_and_ended_by_any_line_break_are_read_alike() -> None:
    stream = "data: a\r\n\r\ndata: b\rdata: c\r\r: ping\n\nid: 1\ndata: d\n\n"
    events = ["a", "b\nc", "d"]

    for size in (1, 2, 3, 7, len(stream)):
        pieces = [stream[i : i + size] for i in range(0, len(stream), size)]
        assert list(sse_data(pieces)) == events, size
