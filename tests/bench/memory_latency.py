"""Memory retrieval latency as the store grows: the database side of a chat turn.

    python -m tests.bench.memory_latency [--sizes 10000 100000 1000000]
        [--queries 200] [--budget 120] [--json RESULTS.json]

One synthetic store in a temporary database grows through
``MemoryStore.add_many`` (chunks of 5,000) to each size in turn.  A memory is
a sentence drawn from a seeded Zipf-distributed vocabulary, so full-text
search meets realistic term statistics (a few words in most rows, most words
in few), with a random unit vector of the store's dimension from a seeded
numpy Generator: the real embedder would take hours at these sizes, and the
vectors' meaning does not change what a search costs (the first pass over
sign bits looks at every memory; the re-scoring reads a fixed number).

At each size the product's ``MemoryRetriever.retrieve(message, last_reply,
k=10)`` is timed, with an embed callable handing back precomputed random
query vectors, so what is measured is the text search (FTS5) and the search
by meaning (sign bits in memory, then exact re-scoring) for the message and
the reply before it, and their fusion.  The first searches of a size (the
first loads the sign bits) are a warm-up and not timed.  To explain how that
grows, one ``search_vector`` and one ``search_text`` (as many candidates as
retrieval asks each list for) are timed alone as well.  Each of the three stops early,
after at least 20 queries, once it has spent --budget seconds (a slow size
would otherwise take hours).  Reported: p50/p95 per size, the growth of p95
from the previous size, the number of queries, build time (cumulative) and
rate, database size.  The product's target: retrieval p95 < 30 ms at 100k
memories on 2 cores.  Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import numpy as np
import numpy.typing as npt

from desktop.core.db import Database, MemoryStore, NewMemory, open_database
from desktop.core.memory.retrieval import CANDIDATES, MemoryRetriever

DIMENSION = 384  # the default embedder's (all-MiniLM-L6-v2)

CHUNK = 5_000
VOCABULARY = 20_000
ZIPF_EXPONENT = 1.0  # word frequencies in English follow roughly 1/rank
MEMORY_WORDS = (6, 24)
MESSAGE_WORDS = (5, 20)
REPLY_WORDS = (15, 40)
WARM_UP = 3
MIN_QUERIES = 20
SEED = 20240601
_SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]

Vectors = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Latency:
    p50_ms: float
    p95_ms: float
    queries: int

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        ordered = sorted(seconds)
        p95 = ordered[round(0.95 * (len(ordered) - 1))]
        return cls(1000 * statistics.median(ordered), 1000 * p95, len(ordered))


@dataclass(frozen=True)
class SizeResult:
    size: int
    build_seconds: float
    """Cumulative: the time to grow the store from empty to this size."""
    database_mb: float
    retrieve: Latency
    vector: Latency
    text: Latency


class Corpus:
    """Seeded synthetic text and vectors: the same run gives the same store."""

    def __init__(self, dimension: int, seed: int = SEED) -> None:
        self._rng = np.random.default_rng(seed)
        self.dimension = dimension
        self.words = self._vocabulary()
        weights = 1.0 / np.arange(1, VOCABULARY + 1) ** ZIPF_EXPONENT
        self._cumulative = np.cumsum(weights / weights.sum())

    def _vocabulary(self) -> list[str]:
        words: dict[str, None] = {}
        while len(words) < VOCABULARY:
            count = int(self._rng.integers(1, 4))
            picks = self._rng.integers(0, len(_SYLLABLES), count)
            words["".join(_SYLLABLES[i] for i in picks)] = None
        return list(words)

    def sentences(self, count: int, lengths: tuple[int, int]) -> list[str]:
        sizes = self._rng.integers(lengths[0], lengths[1] + 1, count)
        ranks = np.searchsorted(self._cumulative, self._rng.random(int(sizes.sum())))
        ranks = np.minimum(ranks, VOCABULARY - 1)
        words = self.words
        sentences: list[str] = []
        start = 0
        for size in sizes:
            sentences.append(" ".join(words[r] for r in ranks[start : start + size]))
            start += size
        return sentences

    def unit_vectors(self, count: int) -> Vectors:
        vectors = self._rng.standard_normal((count, self.dimension), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors


class QueuedEmbed:
    """Stands in for the embedder: hands out the next precomputed vectors."""

    def __init__(self, vectors: Vectors) -> None:
        self._vectors = vectors
        self._next = 0

    def __call__(self, texts: Sequence[str]) -> Vectors:
        start, self._next = self._next, self._next + len(texts)
        return self._vectors[start : self._next]

    def rewind(self) -> None:
        self._next = 0


def grow(store: MemoryStore, corpus: Corpus, current: int, target: int) -> None:
    """Add memories until the store holds *target* of them."""
    while current < target:
        count = min(CHUNK, target - current)
        texts = corpus.sentences(count, MEMORY_WORDS)
        vectors = corpus.unit_vectors(count)
        items = [
            NewMemory(text, vector, "imported", embedding_model="random")
            for text, vector in zip(texts, vectors, strict=True)
        ]
        store.add_many(items, actor="system")
        current += count


def database_megabytes(database: Database) -> float:
    database.set_pragma("wal_checkpoint", "truncate")
    files = [database.path, database.path.with_name(database.path.name + "-wal")]
    return sum(f.stat().st_size for f in files if f.exists()) / 1e6


def timed(calls: Iterator[Callable[[], object]], budget: float) -> Latency:
    """Time *calls* after a warm-up, stopping early once *budget* seconds are spent."""
    seconds: list[float] = []
    for call in calls:
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
        if len(seconds) >= WARM_UP + MIN_QUERIES and sum(seconds) > budget:
            break
    return Latency.of(seconds[WARM_UP:])


def measure(store: MemoryStore, corpus: Corpus, queries: int, budget: float) -> tuple[Latency, ...]:
    """Retrieval, KNN alone and FTS alone over the same *queries* (plus a warm-up)."""
    count = queries + WARM_UP
    messages = corpus.sentences(count, MESSAGE_WORDS)
    replies = corpus.sentences(count, REPLY_WORDS)
    vectors = corpus.unit_vectors(2 * count)  # message and reply, in retrieve's order
    embed = QueuedEmbed(vectors)
    retriever = MemoryRetriever(store, embed)
    retrieve = timed(
        (partial(retriever.retrieve, m, r, k=10) for m, r in zip(messages, replies, strict=True)),
        budget,
    )
    vector = timed((partial(store.search_vector, v, CANDIDATES) for v in vectors[::2]), budget)
    text = timed((partial(store.search_text, m, CANDIDATES) for m in messages), budget)
    return retrieve, vector, text


def run(sizes: Sequence[int], queries: int, budget: float, folder: Path) -> Iterator[SizeResult]:
    database = open_database(folder / "latency.sqlite3")
    try:
        store = MemoryStore(database)
        corpus = Corpus(DIMENSION)
        built, build_seconds = 0, 0.0
        for size in sorted(sizes):
            started = time.perf_counter()
            grow(store, corpus, built, size)
            build_seconds += time.perf_counter() - started
            built = size
            retrieve, vector, text = measure(store, corpus, queries, budget)
            megabytes = database_megabytes(database)
            yield SizeResult(size, build_seconds, megabytes, retrieve, vector, text)
    finally:
        database.close()


def _growth(latency: Latency, before: Latency | None) -> str:
    return "-" if before is None else f"{latency.p95_ms / before.p95_ms:.1f}"


def table(results: Sequence[SizeResult]) -> str:
    """One row per size; "x p95" is the p95 over the p95 at the size before."""
    header = (
        f"{'memories':>9} {'build s':>8} {'rows/s':>7} {'db MB':>7} {'n':>4}"
        f" | {'retrieve p50':>12} {'p95':>6} {'x p95':>5}"
        f" | {'knn p50':>7} {'p95':>6} {'x p95':>5}"
        f" | {'fts p50':>7} {'p95':>6} {'x p95':>5}"
    )
    lines = [header, "-" * len(header)]
    for index, result in enumerate(results):
        previous = results[index - 1] if index else None
        line = (
            f"{result.size:>9,} {result.build_seconds:>8.1f}"
            f" {result.size / result.build_seconds:>7.0f} {result.database_mb:>7.0f}"
            f" {min(result.retrieve.queries, result.vector.queries, result.text.queries):>4}"
        )
        for name, width in (("retrieve", 12), ("vector", 7), ("text", 7)):
            latency: Latency = getattr(result, name)
            before: Latency | None = getattr(previous, name) if previous else None
            line += (
                f" | {latency.p50_ms:>{width}.1f} {latency.p95_ms:>6.1f}"
                f" {_growth(latency, before):>5}"
            )
        lines.append(line)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--budget", type=float, default=120.0, help="seconds per measurement and size, at most"
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    results: list[SizeResult] = []
    with tempfile.TemporaryDirectory() as folder:
        for result in run(args.sizes, args.queries, args.budget, Path(folder)):
            results.append(result)  # a size at a time: the large ones take a while
            print(table(results).splitlines()[-1], flush=True)
    print(
        "\nretrieve: top 10 for a message and the reply before it; knn: one search_vector;"
        f" fts: one search_text (k={CANDIDATES} each);\nn: queries timed (the fewest of the"
        " three); build s: cumulative; x p95: p95 / p95 at the size before"
    )
    print(table(results))
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
