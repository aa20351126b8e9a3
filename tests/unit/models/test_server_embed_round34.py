"""Round 34: an embedding server's malformed vectors are named as what they
are.  Vectors of two lengths in one answer were called "not lists of
numbers", and empty ones "of different lengths": the user checking the
server was sent looking for the wrong fault."""

from __future__ import annotations

import json

import httpx
import pytest

from models.server_embed import ServerEmbedder
from models.server_http import ServerAnswerInvalid

URL = "http://127.0.0.1:9/v1"
MODELS = {"data": [{"id": "m", "owned_by": "llamacpp"}]}
VECTORS = {
    "embeddings of different lengths": [[0.5, 0.5], [0.5]],
    "empty embeddings": [[], []],
}


@pytest.mark.parametrize(("said", "vectors"), VECTORS.items(), ids=VECTORS.keys())
def test_malformed_vectors_are_named_as_they_are(said: str, vectors: list[list[float]]) -> None:
    data = [{"index": i, "embedding": vector} for i, vector in enumerate(vectors)]

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json=MODELS)
        return httpx.Response(200, text=json.dumps({"data": data}))

    embedder = ServerEmbedder(URL, "m", transport=httpx.MockTransport(answer))
    try:
        with pytest.raises(ServerAnswerInvalid) as refused:
            embedder.embed(["hello", "world"])
    finally:
        embedder.close()
    assert str(refused.value).startswith(f"The server at {URL} sent {said}.")
