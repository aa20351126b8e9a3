"""Hybrid memory retrieval: full text and meaning, fused, in one function.

Each query text is searched two ways in the same SQLite file: by its
telling words (FTS5, bm25) and by meaning (cosine over the embedding), with
the status and category filters inside both searches so that K results come
back.  The rankings are fused by reciprocal rank fusion (a memory's score is
the sum of ``weight / (RRF_K + rank)`` over the lists that found it); the
current user message weighs more than the last assistant reply.  Importance,
pinning and recency add small boosts that mostly break ties.  The searches
hand back ids; only the memories that can still make the top k after the
boosts are read whole.  A message that says when ("last week", "on 13
October 2023": ``named_time``) ranks the candidates seen then as one more
list (``TIMED``); all candidates are read whole then.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop.core.base.time_zones import local_zone
from desktop.core.db import Memory, MemoryStatus, MemoryStore
from desktop.core.memory.named_time import Period, named_period

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
TIMED = True
"""Whether a period the message names ranks what was seen or said then
(``with_period``).  No constant: the list counts as much as any other.
Past conversations (``tests/bench/retrieval.py --store conversations``),
LoCoMo recall@10 over categories 1-4 at the neighbours' share of 0.5:
0.741 without, 0.769 with (cross-validated over the shares: 0.717
without, 0.745 with), better at every share measured; on the 39 of 383
questions that name a date, 0.628 without and 0.910 with.  Memories (the
default ``--store``): 0.717 without, 0.725 with; a memory's text there
already holds its date."""

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
        zone: Callable[[], tzinfo] = local_zone,
        timed: bool = TIMED,
    ) -> None:
        self._store = store
        self._embed = embed
        self._clock = clock
        self._zone = zone
        self._timed = timed

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
        queries = weighted_queries(message, last_reply)
        if not queries or k < 1:
            return []
        candidates = max(CANDIDATES, k)
        store = self._store
        rankings = [
            (weight, store.rank_by_words(text, candidates, statuses, category))
            for text, weight in queries
        ]
        vectors = None if self._embed is None else self._embed([text for text, _ in queries])
        if vectors is not None:
            rankings += [
                (weight, store.rank_by_meaning(vector, candidates, statuses, category))
                for (_, weight), vector in zip(queries, vectors, strict=True)
            ]
        scores = fused(rankings)
        now = self._clock()
        period = self._period(message, now)
        found = store.get_many(list(scores) if period else _contenders(scores, k))
        if period is not None:
            seen = {i: (m.created_at, m.last_seen_at) for i, m in found.items()}
            scores = with_period(scores, seen, period)
        ranked = [
            Retrieved(memory, scores[memory.id] + self._boost(memory, now))
            for memory in found.values()
            # Read again after the searches: a change may have landed between.
            if (not statuses or memory.status in statuses)
            and (category is None or memory.category == category)
        ]
        ranked.sort(key=lambda r: (-r.score, -r.memory.id))
        return ranked[:k]

    def _period(self, message: str, now: float) -> Period | None:
        if not self._timed:
            return None
        return named_period(message, datetime.fromtimestamp(now, self._zone()))

    @staticmethod
    def _boost(memory: Memory, now: float) -> float:
        age = max(0.0, now - memory.last_seen_at)
        recency = math.exp(-math.log(2) * age / RECENCY_HALF_LIFE_S)
        importance = 1.0 if memory.pinned else memory.current_importance
        return BOOST * (importance + recency) / 2


def weighted_queries(message: str, last_reply: str) -> list[tuple[str, float]]:
    """The texts to search with and their weights: the user's message, and
    the last reply at ``REPLY_WEIGHT``; those with no words left out."""
    queries = ((message, 1.0), (last_reply, REPLY_WEIGHT))
    return [(text, weight) for text, weight in queries if text.strip()]


def fused(rankings: Iterable[tuple[float, Sequence[tuple[int, float]]]]) -> dict[int, float]:
    """Reciprocal rank fusion of weighted rankings (best first): each id's
    sum of ``weight / (RRF_K + rank)`` over the rankings that hold it."""
    scores: dict[int, float] = defaultdict(float)
    for weight, ranking in rankings:
        for rank, item_id in with_ranks(ranking):
            scores[item_id] += weight / (RRF_K + rank)
    return scores


def with_period(
    scores: dict[int, float], seen: dict[int, tuple[float, float]], period: Period
) -> dict[int, float]:
    """*scores* with the ids of *seen* (first and last time seen or said)
    whose time meets *period* ranked by score as one more list of the fusion."""
    start, end = (moment.timestamp() for moment in period)
    said_then = sorted(
        (i for i, (first, last) in seen.items() if first < end and last >= start),
        key=lambda i: (-scores[i], i),
    )
    timed = dict(scores)
    for rank, item_id in enumerate(said_then, start=1):
        timed[item_id] += 1 / (RRF_K + rank)
    return timed


def _contenders(scores: dict[int, float], k: int) -> list[int]:
    """The ids that can still make the top *k*: a boost adds at most
    ``BOOST``, so nothing further below the k-th score can catch up."""
    if len(scores) <= k:
        return list(scores)
    floor = sorted(scores.values(), reverse=True)[k - 1] - BOOST
    return [memory_id for memory_id, score in scores.items() if score >= floor]


def with_ranks(ranking: Sequence[tuple[int, float]]) -> list[tuple[int, int]]:
    """Ids with their rank, equal scores sharing one (1, 2, 2, 4): the order
    among equals says nothing, so it must not decide the fusion."""
    ranks: list[tuple[int, int]] = []
    previous: float | None = None
    for position, (memory_id, score) in enumerate(ranking, start=1):
        tied = previous is not None and math.isclose(previous, score, rel_tol=1e-9)
        ranks.append((ranks[-1][0] if tied else position, memory_id))
        previous = score
    return ranks
