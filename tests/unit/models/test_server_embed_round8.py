"""Round 8: an embedding server's numbers were read loosely (``"0.5"``,
``true`` and an ``index`` of ``true`` taken as numbers) and a number too
large for a float raised a bare ``OverflowError``.  Each is an answer that
is not the API's, read as strictly as a local model's."""

from __future__ import annotations

import json

import httpx
import pytest

from models.server_embed import ServerEmbedder
from models.server_http import ServerAnswerInvalid

URL = "http://127.0.0.1:9/v1"
MODELS = {"data": [{"id": "m", "owned_by": "llamacpp"}]}
ANSWERS = {
    "400-digit integer": '{"data": [{"index": 0, "embedding": [1%s, 1]}]}' % ("0" * 400),
    "past a float32": '{"data": [{"index": 0, "embedding": [1e39, 1]}]}',
    "strings": json.dumps({"data": [{"index": 0, "embedding": ["0.5", "0.5"]}]}),
    "booleans": json.dumps({"data": [{"index": 0, "embedding": [True, False]}]}),
    "index true": json.dumps({"data": [{"index": False, "embedding": [0.5, 0.5]}]}),
}


@pytest.mark.parametrize("body", ANSWERS.values(), ids=ANSWERS.keys())
def test_an_embedding_that_is_not_numbers_is_an_invalid_answer(body: str) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json=MODELS)
        return httpx.Response(200, text=body, headers={"content-type": "application/json"})

    embedder = ServerEmbedder(URL, "m", transport=httpx.MockTransport(answer))
    try:
        with pytest.raises(ServerAnswerInvalid):
            embedder.embed(["hello"])
    finally:
        embedder.close()
