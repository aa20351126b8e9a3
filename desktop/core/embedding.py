"""Texts to vectors through the inference broker, for storing and searching memories.

Search by meaning is optional: without an embedder (not loaded yet, or
failed to load) memories are still stored and found by their words, and get
their vectors later.  That is said once in the log, not on every call.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from desktop.core.jobs import active_control
from models.broker import InferenceBroker, Priority
from models.errors import GenerationCancelled, ModelError

log = logging.getLogger(__name__)

Vectors = npt.NDArray[np.float32]


class Embeddings:
    def __init__(self, broker: InferenceBroker) -> None:
        self._broker = broker
        self._said_unavailable = False

    @property
    def model_name(self) -> str | None:
        return self._broker.embedder_name

    def __call__(
        self, texts: Sequence[str], priority: Priority = Priority.USER, *, query: bool = False
    ) -> Vectors | None:
        """One unit vector per text (to be found, or to search with if
        *query*), or None when no embedder can make them."""
        job = self._broker.embed(texts, priority, query=query)
        if (control := active_control()) is not None:
            control.run(job)  # stopping the work stops this embedding too
        try:
            vectors: Vectors = job.result()
        except GenerationCancelled:
            raise  # stopped, not unavailable: the work it was for ends
        except ModelError as error:
            if not self._said_unavailable:
                log.warning("memory search by meaning is unavailable: %s", error)
                self._said_unavailable = True
            return None
        return vectors

    def queries(self, texts: Sequence[str]) -> Vectors | None:
        """Vectors to search with, for the chat (ahead of background work)."""
        return self(texts, Priority.USER, query=True)
