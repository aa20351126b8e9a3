"""Tests of the server backends against the real llama-cpp-python server on 127.0.0.1.

The session's server (``llama_server``) serves SmolLM2 and MiniLM and
demands an API key; a test that kills its server gets one of its own
(``killable_llama_server``).  The fixtures live in ``tests/llama_server.py``.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
import numpy as np
import pytest
from pydantic import BaseModel

from models.errors import ModelError
from models.interfaces import ChatMessage, ChatModel, Chunk, Embedder, GenerationOptions
from models.llama_chat import LlamaChatModel
from models.llama_embedder import LlamaEmbedder
from models.sampling import grammar_for_schema
from models.server_chat import ServerChatModel
from models.server_embed import ServerEmbedder
from models.server_http import (
    ServerAuthRejected,
    ServerModelNotFound,
    ServerUnavailable,
    probe,
)
from models.structured import generate_structured
from tests.llama_server import API_KEY, CHAT_ALIAS, EMBED_ALIAS, LlamaServer, free_port

pytestmark = [pytest.mark.model, pytest.mark.slow, pytest.mark.allow_hosts(["127.0.0.1"])]

STORY = [ChatMessage("user", "Tell me a story about a lighthouse keeper.")]
GREEDY = GenerationOptions(max_tokens=16, temperature=0.0)
LONG = GenerationOptions(max_tokens=300, temperature=0.0)
"""How soon after should_stop says stop the reply must have ended."""


class Person(BaseModel):
    name: str
    age: int


class RecordingTransport(httpx.HTTPTransport):
    """The real transport, keeping the JSON body of every request it sends."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[tuple[str, dict[str, object]]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.content:
            self.bodies.append((request.url.path, json.loads(request.content)))
        return super().handle_request(request)


class CountingTransport(httpx.HTTPTransport):
    """An ordinary transport that counts the events of chat replies read from it."""

    def __init__(self) -> None:
        super().__init__()
        self.events = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.url.path.endswith("/chat/completions"):
            assert isinstance(response.stream, httpx.SyncByteStream)
            response.stream = _Counted(response.stream, self)
        return response


class _Counted(httpx.SyncByteStream):
    def __init__(self, stream: httpx.SyncByteStream, transport: CountingTransport) -> None:
        self._stream = stream
        self._transport = transport

    def __iter__(self) -> Iterator[bytes]:
        for piece in self._stream:
            self._transport.events += piece.count(b"data:")
            yield piece

    def close(self) -> None:
        self._stream.close()


def _chat(server: LlamaServer, transport: httpx.BaseTransport | None = None) -> ServerChatModel:
    return ServerChatModel(server.base_url, CHAT_ALIAS, api_key=server.api_key, transport=transport)


def _text(chunks: Sequence[Chunk]) -> str:
    return "".join(chunk.text for chunk in chunks)


# -- streaming -----------------------------------------------------------------------


def test_a_reply_streams_in_chunks_and_ends_with_its_finish_reason(
    llama_server: LlamaServer,
) -> None:
    chat = _chat(llama_server)
    try:
        assert isinstance(chat, ChatModel)
        cut = list(chat.stream(STORY, GREEDY))
        whole = list(
            chat.stream(
                [ChatMessage("user", "Say hi.")], GenerationOptions(max_tokens=64, temperature=0.0)
            )
        )
    finally:
        chat.close()

    assert len([chunk for chunk in cut if chunk.text]) >= 3
    assert [chunk.finish_reason for chunk in cut] == [None] * (len(cut) - 1) + ["length"]
    assert [chunk.finish_reason for chunk in whole] == [None] * (len(whole) - 1) + ["stop"]
    assert _text(whole).strip()


def test_stop_after_the_first_chunk_ends_the_reply_at_once(llama_server: LlamaServer) -> None:
    stop = threading.Event()
    counted = CountingTransport()
    chat = _chat(llama_server, counted)
    chunks: list[Chunk] = []
    read_at_stop = 0
    try:
        for chunk in chat.stream(STORY, LONG, stop.is_set):
            chunks.append(chunk)
            if not stop.is_set():
                stop.set()
                read_at_stop = counted.events
    finally:
        chat.close()

    assert [chunk.finish_reason for chunk in chunks] == [None, "cancelled"]
    # Not the rest of the 300 tokens' events: read on to the end, they were lost anyway.
    assert counted.events - read_at_stop <= 2, (counted.events, read_at_stop)


def test_close_from_another_thread_ends_a_reply_as_cancelled(llama_server: LlamaServer) -> None:
    chat = _chat(llama_server)
    closer = threading.Thread(target=chat.close)
    chunks: list[Chunk] = []
    for chunk in chat.stream(STORY, LONG):
        chunks.append(chunk)
        if len(chunks) == 1:
            closer.start()
            closer.join()

    assert [chunk.finish_reason for chunk in chunks] == [None, "cancelled"]
    with pytest.raises(ModelError, match="closed"):
        chat.count_tokens("hello")


def test_stop_while_the_server_reads_the_prompt_ends_the_reply_at_once(
    llama_server: LlamaServer,
) -> None:
    # A new text each run: the server would otherwise reuse the prompt it cached.
    filler = "The keeper counted the ships that passed the rocks at night. " * 50
    messages = [ChatMessage("user", f"{uuid.uuid4()} {filler} How many ships were there?")]
    counted = CountingTransport()
    chat = _chat(llama_server, counted).connect()
    stop_at = time.monotonic() + 0.1  # the request is on its way by then

    def should_stop() -> bool:
        return time.monotonic() >= stop_at

    try:
        chunks = list(chat.stream(messages, GREEDY, should_stop))
    finally:
        chat.close()

    # Nothing arrived before the stop: the server was still reading the prompt,
    # and the reply was not waited for (its first event read, then cancelled).
    assert chunks == [Chunk("", "cancelled")]
    assert counted.events == 0


def test_a_server_killed_mid_reply_keeps_what_came_then_raises(
    killable_llama_server: LlamaServer,
) -> None:
    chat = _chat(killable_llama_server)
    received: list[Chunk] = []
    try:
        with pytest.raises(ServerUnavailable, match="in the middle of a reply") as lost:
            for chunk in chat.stream(STORY, LONG):
                received.append(chunk)
                if len(received) == 1:
                    killable_llama_server.kill()
    finally:
        chat.close()

    assert received[0].text
    assert all(chunk.finish_reason is None for chunk in received)
    assert killable_llama_server.base_url in str(lost.value)


# -- structured output and dialects --------------------------------------------------


def test_a_schema_reply_validates_and_is_asked_for_as_llama_cpp_python_wants(
    llama_server: LlamaServer,
) -> None:
    transport = RecordingTransport()
    chat = _chat(llama_server, transport=transport)

    def generate(messages: Sequence[ChatMessage], options: GenerationOptions) -> str:
        return _text(list(chat.stream(messages, options)))

    try:
        person = generate_structured(
            generate,
            [ChatMessage("user", "Alice is 30 years old. Answer with her name and age.")],
            Person,
            GenerationOptions(temperature=0.0, max_tokens=96),
        )
    finally:
        chat.close()

    assert isinstance(person, Person)
    assert chat.dialect == "llama-cpp-python"  # found by itself ("auto")
    (body,) = [body for path, body in transport.bodies if path == "/v1/chat/completions"]
    assert body["stream"] is True
    assert body["grammar"] == grammar_for_schema(Person.model_json_schema())
    assert "response_format" not in body  # it would take the server's converter instead


def test_a_fixed_text_past_u_ffff_comes_back_whole_from_llama_cpp_python(
    llama_server: LlamaServer,
) -> None:
    """Its own converter wrote the emoji of an enum (a worker profile's
    name) as two surrogates, bytes no text has: the answer held U+FFFD."""
    word = "qzxvjjkw \U0001f431\U0001f436"
    schema = {
        "type": "object",
        "properties": {"word": {"enum": [word]}},
        "required": ["word"],
        "additionalProperties": False,
    }
    chat = _chat(llama_server)
    try:
        options = GenerationOptions(temperature=0.0, max_tokens=40, json_schema=schema)
        answer = _text(list(chat.stream([ChatMessage("user", "Answer in JSON.")], options)))
    finally:
        chat.close()

    assert json.loads(answer) == {"word": word}


def test_probe_identifies_llama_cpp_python_and_its_models(llama_server: LlamaServer) -> None:
    info = probe(llama_server.base_url, API_KEY)

    assert info.dialect == "llama-cpp-python"
    assert info.models == (CHAT_ALIAS, EMBED_ALIAS)
    assert info.base_url == llama_server.base_url


def test_count_tokens_is_the_servers_tokenizer(
    llama_server: LlamaServer, smollm2: LlamaChatModel
) -> None:
    texts = ["Hello there!", "Ünïcödé, 東京 and 😊", "def twice(x):\n    return 2 * x\n", ""]
    chat = _chat(llama_server)
    try:
        counts = [chat.count_tokens(text) for text in texts]
    finally:
        chat.close()

    assert counts == [smollm2.count_tokens(text) for text in texts]


# -- embeddings ----------------------------------------------------------------------


def test_server_embeddings_match_the_local_embedder(
    llama_server: LlamaServer, minilm_path: Path
) -> None:
    texts = [
        "I love climbing",
        "The invoice is due on Friday",
        "My sister lives in Lisbon and works as a nurse.",
        "Quantum computers use qubits.",
        "Remind me to water the plants tomorrow morning.",
    ]
    embedder = ServerEmbedder(llama_server.base_url, EMBED_ALIAS, api_key=API_KEY, batch_size=2)
    try:
        assert isinstance(embedder, Embedder)
        remote = embedder.embed(texts)  # three requests: 2 + 2 + 1
    finally:
        embedder.close()
    with LlamaEmbedder(minilm_path) as local:
        expected = local.embed(texts)

    assert remote.dtype == np.float32
    assert remote.shape == expected.shape == (5, embedder.dimension) == (5, 384)
    np.testing.assert_allclose(np.linalg.norm(remote, axis=1), 1.0, atol=1e-5)
    assert (np.sum(remote * expected, axis=1) > 0.99).all()


# -- errors --------------------------------------------------------------------------


def test_a_server_that_is_down_is_unavailable_naming_its_address() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    chat = ServerChatModel(url, CHAT_ALIAS, connect_timeout=1.0)
    embedder = ServerEmbedder(url, EMBED_ALIAS, connect_timeout=1.0)
    try:
        with pytest.raises(ServerUnavailable, match=re.escape(url)) as replying:
            list(chat.stream(STORY, GREEDY))
        with pytest.raises(ServerUnavailable, match=re.escape(url)):
            embedder.embed(["hello"])
        with pytest.raises(ServerUnavailable, match=re.escape(url)):
            probe(url)
    finally:
        chat.close()
        embedder.close()

    assert "running" in replying.value.hint


def test_an_unknown_model_name_says_what_the_server_has(llama_server: LlamaServer) -> None:
    # llama-cpp-python's server would silently answer with its default model.
    chat = ServerChatModel(llama_server.base_url, "no-such-model", api_key=API_KEY)
    try:
        with pytest.raises(ServerModelNotFound, match="no model named 'no-such-model'") as caught:
            list(chat.stream(STORY, GREEDY))
    finally:
        chat.close()

    assert CHAT_ALIAS in caught.value.hint


def test_the_api_key_is_never_shown(
    llama_server: LlamaServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # httpx and httpcore log every request at DEBUG
    wrong_key = f"sk-wrong-{uuid.uuid4().hex}"
    chat = _chat(llama_server)
    embedder = ServerEmbedder(llama_server.base_url, EMBED_ALIAS, api_key=API_KEY)
    refused = ServerChatModel(llama_server.base_url, CHAT_ALIAS, api_key=wrong_key)
    try:
        chat.count_tokens("hello")
        embedder.embed(["hello"])
        with pytest.raises(ServerAuthRejected, match="refused the API key") as rejected:
            list(refused.stream(STORY, GREEDY))
        with pytest.raises(ServerAuthRejected):
            probe(llama_server.base_url, wrong_key)
    finally:
        for model in (chat, embedder, refused):
            model.close()

    shown = [
        *(text for model in (chat, embedder, refused) for text in (repr(model), str(model))),
        repr(vars(chat)),
        repr(vars(refused)),
        str(rejected.value),
        rejected.value.hint,
        *(record.getMessage() for record in caplog.records),
    ]
    assert any(record.name.startswith("httpcore") for record in caplog.records)
    assert not [text for text in shown if API_KEY in text or wrong_key in text]
