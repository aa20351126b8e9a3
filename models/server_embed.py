"""An ``Embedder`` on an OpenAI-compatible server (``POST /v1/embeddings``).

Texts go in batches of a bounded size; each answer's vectors are put back in
the order of their ``index`` (the API does not promise the order of
``data``) and L2-normalised here, since not every server normalises.  The
dimension is learned from the first answer, or from a one-text probe when
asked for before any, and again from any answer of another length: the
server now runs another model under the name (swapped, or reloaded), whose
vectors are what it gives from now on; the stored ones of the old length
are embedded again (see ``Embeddings.vector_length``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt

from models.errors import ModelError
from models.server_http import (
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_READ_TIMEOUT_S,
    ServerConnection,
    model_entries,
    resolve_model,
)

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 64
"""Texts per request: big enough to amortise the round trip, small enough
that one request never meets a server's body or batch limits."""
_PROBE_TEXT = "dimension probe"


class ServerEmbedder:
    """Embeds batches of texts on a server.  Not thread-safe: one owner (the
    broker) embeds; ``close`` may come from any thread.

    The server is looked at on first use, or by ``connect``: whether it
    serves *model*, and the dimension (0 until then, unless given).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        dimension: int | None = None,
        query_prefix: str = "",
        document_prefix: str = "",
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT_S,
        read_timeout: float = DEFAULT_READ_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._connection = ServerConnection(
            base_url,
            api_key,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            transport=transport,
        )
        self.name = model
        self.batch_size = batch_size
        self.dimension = dimension or 0
        """The vectors' length: given, or learned from the server's first answer."""
        self.query_prefix = query_prefix
        """What the model card asks to put before a query ("search_query: "), or ""."""
        self.document_prefix = document_prefix
        """What it asks to put before a text to be found, or ""."""
        self._checked = False
        self._closed = threading.Event()

    def __repr__(self) -> str:
        return f"ServerEmbedder({self.base_url!r}, model={self.name!r})"

    @property
    def base_url(self) -> str:
        return self._connection.base_url

    def connect(self) -> ServerEmbedder:
        """Look at the server now, learning the dimension with a one-text probe
        if need be (done on first use anyway); raises its typed errors."""
        self._check_model()
        if not self.dimension:
            self._learn(self._embed_batch([_PROBE_TEXT]).shape[1])
        return self

    def interrupt(self) -> bool:
        """Cut the request under way (it raises ``ServerUnavailable``), from
        any thread; False while there is none to cut (yet)."""
        return self._connection.interrupt()

    def close(self) -> None:
        self._closed.set()
        self._connection.close()

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embeddings of *texts*, shape ``(len(texts), dimension)``, rows L2-normalised."""
        if not texts:
            return np.empty((0, self.connect().dimension), dtype=np.float32)
        self._check_model()
        parts = [
            self._embed_batch(texts[start : start + self.batch_size])
            for start in range(0, len(texts), self.batch_size)
        ]
        if len({part.shape[1] for part in parts}) > 1:  # changed model between batches
            raise self._connection.invalid("embeddings of different lengths")
        vectors = np.concatenate(parts)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if not (np.isfinite(norms).all() and (norms > 0).all()):
            raise self._connection.invalid("an empty or non-finite embedding")
        self._learn(vectors.shape[1])
        vectors /= norms
        return vectors

    def _check_model(self) -> None:
        if self._closed.is_set():
            raise ModelError(f"{self!r} is closed")
        if not self._checked:
            # Some servers (llama-cpp-python's) answer for an unknown model
            # with their default one: vectors of the wrong model must not be stored.
            served = tuple(str(entry["id"]) for entry in model_entries(self._connection))
            self.name = resolve_model(self._connection, self.name, served)
            self._checked = True

    def _embed_batch(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        answer = self._connection.post_json(
            "/embeddings", {"model": self.name, "input": list(texts)}, model=self.name
        )
        rows = _rows_by_index(answer, len(texts))
        if rows is None:
            raise self._connection.invalid(
                f"an embedding answer that is not {len(texts)} vectors indexed 0..{len(texts) - 1}"
            )
        lengths = {len(row) for row in rows}
        if len(lengths) > 1:
            raise self._connection.invalid("embeddings of different lengths")
        if lengths == {0}:
            raise self._connection.invalid("empty embeddings")
        try:
            with np.errstate(over="ignore"):  # past a float32: found just below
                vectors = np.asarray(rows, dtype=np.float32)
        except OverflowError as error:  # an integer past any float
            raise self._connection.invalid("embeddings holding numbers out of range") from error
        if not np.isfinite(vectors).all():
            raise self._connection.invalid("embeddings holding numbers out of range")
        return vectors

    def _learn(self, dimension: int) -> None:
        """Take *dimension* as the vectors' length from now on."""
        if self.dimension and dimension != self.dimension:
            log.warning(
                "%s at %s now gives %d-dimensional vectors, not %d: another model answers"
                " under its name, and what it embedded before is embedded again",
                self.name,
                self.base_url,
                dimension,
                self.dimension,
            )
        elif not self.dimension:
            log.debug("%s at %s: %d dimensions", self.name, self.base_url, dimension)
        self.dimension = dimension


def _rows_by_index(answer: Any, count: int) -> list[list[float]] | None:
    """The ``data[].embedding`` lists of *answer* in ``index`` order, or None
    unless there is exactly one list of numbers for each index 0..count-1."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != count:
        return None
    rows: dict[int, list[float]] = {}
    for item in data:
        index = item.get("index") if isinstance(item, dict) else None
        vector = item.get("embedding") if isinstance(item, dict) else None
        if type(index) is not int or not isinstance(vector, list) or index in rows:
            return None
        # Read as strictly as a local model's answer: true is no 1, "0.5" no number.
        if not all(type(number) in (int, float) for number in vector):
            return None
        rows[index] = vector
    if sorted(rows) != list(range(count)):
        return None
    return [rows[i] for i in range(count)]
