"""Texts to vectors through the inference broker, for storing and searching memories.

Search by meaning is optional: without an embedder (not loaded yet, or
failed to load) memories are still stored and found by their words, and get
their vectors later.  That is said once in the log, not on every call.

What comes back is always storable: one finite, non-zero row per text, of a
multiple of 8 numbers.  The store's fast first pass compares sign bits a
byte at a time, so a model of another size (300 dimensions, as word2vec's)
gets zeros added to its rows, which changes neither cosines nor sign bits.
An answer that cannot be stored is the model failing: its memories are kept
and found by their words, as without an embedder.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from desktop.core.base.jobs import active_control
from models.broker import InferenceBroker, Priority, Role
from models.errors import GenerationCancelled, ModelError

log = logging.getLogger(__name__)

QUERY_WAIT_S = 15.0
"""How long a search waits for its query's vectors (one short text, which a
model embeds in well under a second) before it finds by words alone and the
query is stopped: a server that takes the request and never answers would
hold every chat turn for its whole read timeout (minutes) before the reply."""

Vectors = npt.NDArray[np.float32]
SIGN_BITS = 8
"""Dimensions per byte of sign bits: vectors are made a multiple of it long."""


class UnusableVectors(ModelError):
    """An embedding model answered with vectors that cannot be stored."""


@dataclass(frozen=True)
class Labelled:
    """Vectors and the name of the model that made them, which they are
    stored under: read from the answer, not from the model in use after it
    (the user may switch models while a vector waits to be stored)."""

    vectors: Vectors
    model: str | None


class Embeddings:
    def __init__(self, broker: InferenceBroker) -> None:
        self._broker = broker
        self._said_unavailable = False

    @property
    def model_name(self) -> str | None:
        return self._broker.embedder_name

    def vector_length(self) -> int:
        """The numbers in each vector of the model in use as stored (its
        dimension widened as ``storable`` widens it), 0 while not known (no
        model, or a server not asked yet): vectors of another length under
        its name are another model's that had the name before."""
        dimension = getattr(self._broker.model(Role.EMBEDDINGS), "dimension", 0)
        if not isinstance(dimension, int) or dimension <= 0:
            return 0
        return dimension + (-dimension % SIGN_BITS)

    def asked_length(self) -> int:
        """``vector_length``, the model in use asked for it if not known yet
        (a server not asked since it loaded answers one short text, in the
        background): vectors of another length under its name are found
        before a search misses them.  0 if it cannot answer now: a server
        that is down is not taken for another model."""
        if not self.vector_length():
            try:
                self._broker.embed([], Priority.BACKGROUND).result()
            except GenerationCancelled:
                raise  # stopped: the work it was for ends
            except ModelError as error:
                log.info("the embedding model could not say its vectors' length: %s", error)
        return self.vector_length()

    def __call__(
        self, texts: Sequence[str], priority: Priority = Priority.USER, *, query: bool = False
    ) -> Vectors | None:
        """One unit vector per text (to be found, or to search with if
        *query*), or None when no embedder can make them."""
        made = self.labelled(texts, priority, query=query)
        return None if made is None else made.vectors

    def labelled(
        self, texts: Sequence[str], priority: Priority = Priority.USER, *, query: bool = False
    ) -> Labelled | None:
        """The vectors of *texts* (as ``__call__``) with the model that made them."""
        job = self._broker.embed(texts, priority, query=query)
        if (control := active_control()) is not None:
            control.run(job)  # stopping the work stops this embedding too
        try:
            answer = job.result(QUERY_WAIT_S if query else None)
            return Labelled(storable(answer, len(texts), job.made_by), job.made_by)
        except GenerationCancelled:
            raise  # stopped, not unavailable: the work it was for ends
        except TimeoutError:
            job.cancel()  # a server's request is cut: its lane is free for the next
            log.warning("the embedding model did not embed a search in %g s", QUERY_WAIT_S)
            return None
        except ModelError as error:
            if not self._said_unavailable:
                log.warning("memory search by meaning is unavailable: %s", error)
                self._said_unavailable = True
            return None

    def queries(self, texts: Sequence[str]) -> Vectors | None:
        """Vectors to search with, for the chat (ahead of background work)."""
        return self(texts, Priority.USER, query=True)


def storable(answer: object, count: int, model: str | None) -> Vectors:
    """*answer*, an embedder's vectors of *count* texts, as the store keeps
    them: widened with zeros to a multiple of ``SIGN_BITS``; ``UnusableVectors``
    if it is not one finite, non-zero row per text."""
    said = f"The embedding model {model or 'in use'}"
    if not isinstance(answer, np.ndarray) or answer.ndim != 2 or answer.shape[0] != count:
        raise UnusableVectors(f"{said} did not give one vector per text.")
    vectors = answer.astype(np.float32, copy=False)
    if count and (vectors.shape[1] == 0 or not np.isfinite(vectors).all()):
        raise UnusableVectors(f"{said} gave empty vectors, or numbers out of range.")
    if not np.any(vectors, axis=1).all():
        raise UnusableVectors(f"{said} gave a vector of zeros.")
    if short := -vectors.shape[1] % SIGN_BITS:
        # Zeros: no weight in a cosine, and the same sign bit in every vector.
        vectors = np.pad(vectors, ((0, 0), (0, short)))
    return vectors
