"""Hybrid memory retrieval: full text and meaning, fused, in one function.

Each query text is searched two ways in the same SQLite file: FTS5 (BM25
over the words) and sqlite-vec KNN (cosine over the embedding), with the
status and category filters inside the KNN so that K results come back.
The rankings are fused by reciprocal rank fusion (a memory's score is the
sum of ``weight / (RRF_K + rank)`` over the lists that found it); the
current user message weighs more than the last assistant reply.  Importance,
pinning and recency add small boosts that mostly break ties.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop.core.db import Memory, MemoryStore

RRF_K = 60
CANDIDATES = 50
"""How many hits each list contributes before fusion."""
REPLY_WEIGHT = 0.5
"""The last assistant reply's lists count half as much as the user's message."""
BOOST = 0.1 / RRF_K
"""Importance and recency together move a memory by at most a tenth of a top rank."""
RECENCY_HALF_LIFE_S = 30 * 86400.0

Embed = Callable[[Sequence[str]], npt.NDArray[np.floating[Any]]]
"""Embeds texts (unit vectors, one row each), e.g. through the inference broker."""


@dataclass(frozen=True)
class Retrieved:
    memory: Memory
    score: float
    """Higher is better."""


class MemoryRetriever:
    def __init__(
        self,
        store: MemoryStore,
        embed: Embed | None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._embed = embed
        self._clock = clock

    def retrieve(
        self,
        message: str,
        last_reply: str = "",
        *,
        k: int = 10,
        category: str | None = None,
    ) -> list[Retrieved]:
        """The *k* memories most relevant to *message* (and, less, *last_reply*)."""
        queries = [(text, weight) for text, weight in ((message, 1.0), (last_reply, REPLY_WEIGHT))]
        queries = [(text, weight) for text, weight in queries if text.strip()]
        if not queries or k < 1:
            return []
        scores: dict[int, float] = defaultdict(float)
        found: dict[int, Memory] = {}
        rankings = [
            (weight, [hit.memory for hit in self._store.search_text(text, CANDIDATES)])
            for text, weight in queries
        ]
        if self._embed is not None:
            vectors = self._embed([text for text, _ in queries])
            rankings += [
                (
                    weight,
                    [
                        m.memory
                        for m in self._store.search_vector(vector, CANDIDATES, category=category)
                    ],
                )
                for (_, weight), vector in zip(queries, vectors, strict=True)
            ]
        for weight, memories in rankings:
            for rank, memory in enumerate(memories, start=1):
                if category is not None and memory.category != category:
                    continue
                scores[memory.id] += weight / (RRF_K + rank)
                found[memory.id] = memory
        now = self._clock()
        ranked = [
            Retrieved(memory, scores[memory_id] + self._boost(memory, now))
            for memory_id, memory in found.items()
        ]
        ranked.sort(key=lambda r: (-r.score, -r.memory.id))
        return ranked[:k]

    @staticmethod
    def _boost(memory: Memory, now: float) -> float:
        age = max(0.0, now - memory.last_seen_at)
        recency = math.exp(-math.log(2) * age / RECENCY_HALF_LIFE_S)
        importance = 1.0 if memory.pinned else memory.importance
        return BOOST * (importance + recency) / 2
