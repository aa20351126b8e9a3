"""Round 36 of issue 15 against a server's refusals and answers.

A 403 in JSON with no API key set was told as the server asking for one,
and without a word of what the server said: a server that forbids an
address or a model ('not allowed from this network') sent the user off to
look for a key that does not exist.  A 403 is about a key only where the
server says so (FastAPI's 'Not authenticated'); else it is a refusal in the
server's own words.

A 200 answer with an empty body was told as 'a reply that is not a stream
of events (text/event-stream)', or 'not JSON': it now says it was empty.
"""

from __future__ import annotations

import httpx
import pytest

from models.server_embed import ServerEmbedder
from models.server_http import (
    ServerAnswerInvalid,
    ServerAuthRejected,
    ServerConnection,
    ServerForbidden,
)
from tests.unit.models.test_server_chat_round23 import _reply_from

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

URL = "http://127.0.0.1:9/v1"


def _refused(status: int, body: dict[str, object], key: str | None = None) -> Exception:
    transport = httpx.MockTransport(lambda request: httpx.Response(status, json=body))
    connection = ServerConnection(URL, api_key=key, transport=transport)
    try:
        connection.get_json("/models")
    except Exception as error:  # the test judges what was raised
        return error
    finally:
        connection.close()
    raise AssertionError("the refusal was taken for an answer")


@pytest.mark.parametrize("key", [None, "sk-local-1234"])
def test_a_forbidden_request_not_about_a_key_says_what_the_server_said(key: str | None) -> None:
    words = "Requests from 10.1.2.3 are not allowed for this model"
    error = _refused(403, {"error": {"message": words}}, key)

    assert isinstance(error, ServerForbidden)
    said = str(error)
    assert words in said
    assert "API key" not in said  # was 'asks for an API key (403).', nothing of its words
    assert "key" not in error.hint


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (403, {"detail": "Not authenticated"}),  # FastAPI's HTTPBearer, llama-cpp-python's server
        (403, {"error": {"message": "Missing bearer token"}}),
        (401, {"error": {"message": "nope"}}),  # a 401 is about credentials by definition
    ],
)
def test_a_refusal_about_the_key_asks_for_one_and_quotes_the_server(
    status: int, body: dict[str, object]
) -> None:
    error = _refused(status, body)

    assert isinstance(error, ServerAuthRejected)
    assert "asks for an API key" in str(error)
    assert f"({status}: " in str(error)
    assert "key the server expects" in error.hint


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["text/event-stream", "application/json"])
def test_a_reply_with_an_empty_body_says_it_was_empty(kind: str) -> None:
    with pytest.raises(ServerAnswerInvalid) as caught:
        _reply_from(b"", kind)

    said = str(caught.value)
    assert "with nothing (an empty body)" in said  # was 'not a stream of events
    # (text/event-stream)' and 'a reply event that is not JSON'
    assert "server's own log" in caught.value.hint


def test_an_embedding_answer_with_an_empty_body_says_it_was_empty() -> None:
    transport = httpx.MockTransport(
        lambda request: (
            httpx.Response(200, json={"data": [{"id": "m"}]})
            if request.url.path.endswith("/models")
            else httpx.Response(200, content=b"")
        )
    )
    embedder = ServerEmbedder(URL, "m", transport=transport)
    try:
        with pytest.raises(ServerAnswerInvalid, match=r"embeddings with nothing \(an empty body\)"):
            embedder.embed(["hello"])
    finally:
        embedder.close()
