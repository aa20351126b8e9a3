"""Round 8 of issue 15 against the HTTP side of server backends: API keys
that cannot travel in a header, and answers nested too deeply to parse.

Requests go to an ``httpx.MockTransport`` that records them, so a test can
tell that a server was never asked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import httpx
import pytest

from models.errors import ModelError
from models.server_chat import ServerChatModel
from models.server_embed import ServerEmbedder
from models.server_http import (
    MAX_ANSWER_BYTES,
    ServerAnswerInvalid,
    ServerConnection,
    ServerKeyInvalid,
    ServerUnavailable,
    api_key_problem,
    parse_json,
    probe,
)

URL = "http://box:8080/v1"
DEEP = "[" * 100_000 + "]" * 100_000
MODELS = {"data": [{"id": "m", "owned_by": "llamacpp"}]}
BAD_KEYS = {
    "typographic quotes": "\u201csk-abc123\u201d",
    "a line break": "sk-SECRET123\nX: 1",
    "a carriage return": "sk-SECRET123\r",
    "a tab": "sk-SECRET\t123",
    "an accented letter": "sk-s\u00e9cret123",
    "a NUL": "sk-SECRET\x00123",
}


class Recording(httpx.MockTransport):
    """Answers with *answer* and keeps every request it was asked."""

    def __init__(self, answer: Callable[[httpx.Request], httpx.Response]) -> None:
        self.requests: list[httpx.Request] = []

        def handle(request: httpx.Request) -> httpx.Response:
            self.requests.append(request)
            return answer(request)

        super().__init__(handle)


def _models(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json=MODELS)


def _secret_parts(key: str) -> list[str]:
    return [part for part in ("abc123", "SECRET", "123", "cret") if part in key]


# -- API keys ------------------------------------------------------------------
@pytest.mark.parametrize("key", list(BAD_KEYS.values()), ids=list(BAD_KEYS))
def test_a_key_that_cannot_be_a_header_is_a_typed_error_before_anything_is_asked(
    key: str,
) -> None:
    transport = Recording(_models)

    with pytest.raises(ServerKeyInvalid) as raised:
        probe(URL, key, transport=transport)

    assert transport.requests == []  # never called unreachable: never asked
    said = f"{raised.value} {raised.value.args!r} {raised.value.hint}"
    assert not [part for part in _secret_parts(key) if part in said]
    assert URL in str(raised.value)


def test_a_backend_made_with_a_stored_bad_key_fails_typed_without_the_key() -> None:
    transport = Recording(_models)

    for make in (ServerChatModel, ServerEmbedder):
        with pytest.raises(ServerKeyInvalid) as raised:
            make(URL, "m", api_key="sk-SECRET123\nX: 1", transport=transport)
        assert isinstance(raised.value, ModelError)
        assert "SECRET" not in str(raised.value)
    assert transport.requests == []


def test_the_problem_with_a_key_names_what_is_wrong_and_never_the_key() -> None:
    assert api_key_problem("sk-proj-AbC_123-xyz.~+/=") is None
    assert api_key_problem("my admin's key with spaces!") is None  # any header text goes
    for name, key in BAD_KEYS.items():
        problem = api_key_problem(key)
        assert problem is not None, name
        assert not [part for part in _secret_parts(key) if part in problem]
    assert "line break" in str(api_key_problem("a\nb"))
    assert "quote" in str(api_key_problem("\u201cab\u201d"))


def test_a_good_key_goes_as_a_bearer_header() -> None:
    transport = Recording(_models)

    probe(URL, "sk-proj-AbC_123", transport=transport)

    assert transport.requests[0].headers["Authorization"] == "Bearer sk-proj-AbC_123"


def test_a_key_with_a_backslash_is_scrubbed_also_where_an_error_quotes_its_repr() -> None:
    key = "sk-back\\slash-SECRET"
    connection = ServerConnection(URL, key, transport=Recording(_models))
    try:
        said = connection.scrub(f"Illegal header value {('Bearer ' + key).encode()!r}")
    finally:
        connection.close()

    assert "SECRET" not in said


# -- JSON nested too deeply ------------------------------------------------------
def _deep(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, content=DEEP.encode(), headers={"content-type": "application/json"})


def test_a_model_list_nested_too_deeply_is_an_invalid_answer() -> None:
    with pytest.raises(ServerAnswerInvalid, match="not JSON"):
        probe(URL, transport=Recording(_deep))


def test_dialect_probes_answered_too_deeply_count_as_no_answer() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "m", "owned_by": "someone"}]})
        return _deep(request)

    assert probe(URL, transport=Recording(answer)).dialect == "openai"


def test_an_error_body_nested_too_deeply_still_gives_the_typed_error() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(500, content=DEEP.encode())
        return _deep(request)

    with pytest.raises(ServerUnavailable, match=r"failed \(500\)"):
        probe(URL, transport=Recording(answer))


def test_embeddings_nested_too_deeply_are_an_invalid_answer() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return _models(request)
        return _deep(request)

    embedder = ServerEmbedder(URL, "m", transport=Recording(answer))
    try:
        with pytest.raises(ServerAnswerInvalid):
            embedder.embed(["hello"])
    finally:
        embedder.close()


def test_parse_json_refuses_depth_beyond_what_any_api_answer_has() -> None:
    shallow = {"data": [{"embedding": [0.5] * 4, "index": 0}]}
    assert parse_json(json.dumps(shallow)) == shallow
    assert parse_json(b"[[[[1]]]]") == [[[[1]]]]
    for text in (DEEP, "[" * 200 + "]" * 200, '{"a":' * 200 + "1" + "}" * 200):
        with pytest.raises(ValueError, match="nested"):
            parse_json(text)
    with pytest.raises(ValueError):
        parse_json("not json")


def test_an_answer_larger_than_any_the_api_sends_is_refused_not_held() -> None:
    sent = []

    def endless() -> Iterator[bytes]:
        while True:
            sent.append(1)
            yield b" " * (1 << 20)

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=endless())

    connection = ServerConnection(URL, transport=Recording(answer))
    try:
        with pytest.raises(ServerAnswerInvalid, match="larger than 64 MB"):
            connection.get_json("/models")
    finally:
        connection.close()
    assert len(sent) <= (MAX_ANSWER_BYTES >> 20) + 2
