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

from desktop.core.db import Memory, MemoryHit, MemoryStatus, MemoryStore

RRF_K = 10
"""Smaller than the customary 60: with 50 candidates a list, 60 lets a list's
deep tail outvote the other list's top hits (LoCoMo dev recall@10 over
categories 1-4: 0.605 at 60, 0.686 at 10; flat between 5 and 10)."""
CANDIDATES = 50
"""How many hits each list contributes before fusion."""
REPLY_WEIGHT = 0.5
"""The last assistant reply's lists count half as much as the user's message."""
BOOST = 0.1 / RRF_K
"""Importance and recency together move a memory by at most a tenth of a top rank."""
RECENCY_HALF_LIFE_S = 30 * 86400.0

Embed = Callable[[Sequence[str]], npt.NDArray[np.floating[Any]] | None]
"""Embeds texts (unit vectors, one row each), e.g. through the inference broker;
None when no embedder is available (text search alone then)."""


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
        statuses: Sequence[MemoryStatus] = ("active",),
    ) -> list[Retrieved]:
        """The *k* memories most relevant to *message* (and, less, *last_reply*),
        among those with one of *statuses* (any, if empty)."""
        queries = [(text, weight) for text, weight in ((message, 1.0), (last_reply, REPLY_WEIGHT))]
        queries = [(text, weight) for text, weight in queries if text.strip()]
        if not queries or k < 1:
            return []
        scores: dict[int, float] = defaultdict(float)
        found: dict[int, Memory] = {}
        # One status filters inside each search; several, after it.
        status = statuses[0] if len(statuses) == 1 else None
        candidates = max(CANDIDATES, k)
        rankings = [
            (weight, self._store.search_text(text, candidates, status=status))
            for text, weight in queries
        ]
        vectors = None if self._embed is None else self._embed([text for text, _ in queries])
        if vectors is not None:
            rankings += [
                (weight, self._store.search_vector(vector, candidates, status, category))
                for (_, weight), vector in zip(queries, vectors, strict=True)
            ]
        for weight, hits in rankings:
            for rank, hit in _ranked(hits):
                wrong_status = statuses and hit.memory.status not in statuses
                if wrong_status or (category is not None and hit.memory.category != category):
                    continue
                scores[hit.memory.id] += weight / (RRF_K + rank)
                found[hit.memory.id] = hit.memory
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


def _ranked(hits: Sequence[MemoryHit]) -> list[tuple[int, MemoryHit]]:
    """Hits with their rank, equal scores sharing one (1, 2, 2, 4): the order
    among equals says nothing, so it must not decide the fusion."""
    ranks: list[tuple[int, MemoryHit]] = []
    for position, hit in enumerate(hits, start=1):
        tied = bool(ranks) and math.isclose(ranks[-1][1].score, hit.score, rel_tol=1e-9)
        ranks.append((ranks[-1][0] if tied else position, hit))
    return ranks
