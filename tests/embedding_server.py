"""A tiny deterministic embedding server on 127.0.0.1, for what a real one
cannot be made to do on cue: change its vectors' length under the same
model name and address (another model swapped in), or answer with poison
(NaN, infinities, zeros).

It answers ``GET /v1/models`` with one model, ``MODEL``, and
``POST /v1/embeddings`` with ``HashingEmbedder``'s vectors of ``dimension``
numbers, or with every number ``poison`` when set.  Set the knobs between
requests.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

from tests.fakes import HashingEmbedder

MODEL = "embed"
HOST = "127.0.0.1"


class EmbeddingServer:
    """Serves ``MODEL`` on a free port until closed (a context manager)."""

    def __init__(self, dimension: int, port: int = 0) -> None:
        """*port* 0: one the system chooses; another: a server down until now coming up there."""
        self.dimension = dimension
        self.poison: float | None = None
        """Every number of every vector, when set (nan, inf, 0.0)."""
        self.requests = 0
        self._httpd = ThreadingHTTPServer((HOST, port), _Handler)
        self._httpd.daemon_threads = False
        self._httpd.embedding_server = self  # type: ignore[attr-defined]  # read by _Handler
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="embedding-server")

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> EmbeddingServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def answer(self, texts: list[str]) -> dict[str, object]:
        self.requests += 1
        vectors = HashingEmbedder(self.dimension).embed(texts).tolist()
        if self.poison is not None:
            vectors = [[self.poison] * self.dimension for _ in texts]
        data = [{"index": i, "embedding": vector} for i, vector in enumerate(vectors)]
        return {"data": data, "model": MODEL}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request a connection: nothing held open at close

    def do_GET(self) -> None:
        self._send({"data": [{"id": MODEL, "object": "model"}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server: EmbeddingServer = self.server.embedding_server  # type: ignore[attr-defined]
        self._send(server.answer(list(body["input"])))

    def _send(self, answer: dict[str, object]) -> None:
        # allow_nan: a poisoned answer is written as NaN or Infinity, as some servers do.
        payload = json.dumps(answer, allow_nan=True).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet
