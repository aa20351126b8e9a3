"""Retrieval benchmark on LoCoMo and LongMemEval, through the product's own parts.

    python -m tests.bench.retrieval locomo FILE --out RUN.json
    python -m tests.bench.retrieval longmemeval FILE [--limit N]
        [--granularity turn|session] [--with-assistant] --out RUN.json
    python -m tests.bench.retrieval locomo|longmemeval FILE --store conversations
        [--cache VECTORS.pickle] [--limit N] [--with-assistant] --out RUN.json

With ``--store memories`` (the default) every conversation (LoCoMo) or
question (LongMemEval) gets a fresh temporary database; its turns are
stored in one ``MemoryStore.add_many`` call with their vectors from the
default embedder, and each question is answered by ``MemoryRetriever``
with the question text only.  The system never sees evidence labels or
ids: a memory's text is the speaker or role, the words and the session
date; the benchmark keeps the mapping from memory ids to turn ids to
itself.  The run file is in the format of ``../shared/bench/score.py``,
which is called at the end when it is there.

With ``--store conversations`` the sessions are stored as conversations
and recalled as past messages (see ``tests.bench.conversation_recall``),
every variant of the tuned steps is scored in-sample and cross-validated
(``tests.bench.cross_validation``), and the run file is the ranking with
the product's constants.

Not a test: it asserts nothing, and the data sets are never copied into the
repository.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from typing import Any

from desktop.core.db import MemoryStore, NewMemory, open_database
from desktop.core.memory.excerpts import DIVERSE, NEIGHBOUR_SHARE, OWN_WORDS_WEIGHT
from desktop.core.memory.retrieval import TIMED, MemoryRetriever
from models.convert_bert import ensure_default_embedder_gguf
from models.embedded import default_embedding_source
from models.llama_embedder import LlamaEmbedder
from tests.bench import conversation_recall, cross_validation

Embed = Callable[[Sequence[str]], conversation_recall.Vectors]
TOP_K = 50
EMBEDDING_MODEL = "default"
EMBED_BATCH = 64
SCORER = Path(__file__).resolve().parents[2].parent / "shared" / "bench" / "score.py"


@dataclass
class Timings:
    indexed: int = 0
    index_seconds: float = 0.0
    store_seconds: float = 0.0
    query_seconds: list[float] = field(default_factory=list)

    def report(self) -> str:
        latencies = sorted(self.query_seconds)
        p95 = latencies[int(0.95 * (len(latencies) - 1))] if latencies else 0.0
        rate = self.indexed / self.index_seconds if self.index_seconds else 0.0
        store_rate = self.indexed / self.store_seconds if self.store_seconds else 0.0
        return (
            f"indexed {self.indexed} memories at {rate:.0f}/s (embedding and storing; "
            f"storing alone {store_rate:.0f}/s); "
            f"{len(latencies)} queries, latency p50 "
            f"{1000 * statistics.median(latencies or [0.0]):.1f} ms, p95 {1000 * p95:.1f} ms"
        )


def load(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as stream:
        data = json.load(stream)
    return data if isinstance(data, list) else [data]


def ranked(
    embed: Embed,
    documents: list[tuple[str, str, float]],
    questions: list[tuple[str, str, float]],
    timings: Timings,
    timed: bool = TIMED,
) -> Iterator[tuple[str, list[str]]]:
    """Index *documents* (outside id, text, when said) in a fresh database;
    rank them for each of *questions* (key, text, when asked).  Yields (key,
    outside ids best first)."""
    with tempfile.TemporaryDirectory() as folder:
        database = open_database(Path(folder) / "bench.sqlite3")
        try:
            store = MemoryStore(database)
            started = time.perf_counter()
            vectors = [
                vector
                for start in range(0, len(documents), EMBED_BATCH)
                for vector in embed([text for _, text, _ in documents[start : start + EMBED_BATCH]])
            ]
            embedded = time.perf_counter()
            items = [
                NewMemory(
                    text,
                    vector,
                    "imported",
                    embedding_model=EMBEDDING_MODEL,
                    first_seen_at=said,
                    last_seen_at=said,
                )
                for (_, text, said), vector in zip(documents, vectors, strict=True)
            ]
            ids = store.add_many(items, actor="system")
            timings.store_seconds += time.perf_counter() - embedded
            timings.index_seconds += time.perf_counter() - started
            outside = dict(zip(ids, (document[0] for document in documents), strict=True))
            timings.indexed += len(documents)
            asked_at = [0.0]
            retriever = MemoryRetriever(
                store, embed, clock=lambda: asked_at[0], zone=lambda: UTC, timed=timed
            )
            for key, question, asked_at[0] in questions:
                started = time.perf_counter()
                found = retriever.retrieve(question, k=TOP_K)
                timings.query_seconds.append(time.perf_counter() - started)
                yield key, [outside[r.memory.id] for r in found]
        finally:
            database.close()


def locomo_run(
    data: list[dict[str, Any]], embed: Embed, timings: Timings, timed: bool
) -> dict[str, list[str]]:
    run: dict[str, list[str]] = {}
    for sample in data:
        conversation = sample["conversation"]
        documents: list[tuple[str, str, float]] = []
        session = 1
        while f"session_{session}" in conversation:
            date = conversation.get(f"session_{session}_date_time", "")
            said = conversation_recall.locomo_time(date)
            for turn in conversation[f"session_{session}"]:
                caption = f" [{turn['blip_caption']}]" if turn.get("blip_caption") else ""
                text = f"{turn['speaker']}: {turn['text']}{caption} ({date})"
                documents.append((turn["dia_id"], text, said))
            session += 1
        asked_at = max(said for _, _, said in documents) + 86400.0  # LoCoMo has no question dates
        questions = [
            (f"{sample['sample_id']}#{index}", str(item["question"]), asked_at)
            for index, item in enumerate(sample["qa"])
        ]
        run.update(ranked(embed, documents, questions, timings, timed))
    return run


def longmemeval_run(
    data: list[dict[str, Any]],
    embed: Embed,
    timings: Timings,
    granularity: str,
    with_assistant: bool,
    timed: bool,
) -> dict[str, list[str]]:
    roles = {"user", "assistant"} if with_assistant else {"user"}
    run: dict[str, list[str]] = {}
    for item in data:
        documents: list[tuple[str, str, float]] = []
        sessions = zip(
            item["haystack_session_ids"],
            item["haystack_dates"],
            item["haystack_sessions"],
            strict=True,
        )
        for session_id, date, turns in sessions:
            said = conversation_recall.lme_time(date)
            kept = [
                (f"{session_id}#{number}", f"{turn['role']}: {turn['content']} ({date})", said)
                for number, turn in enumerate(turns, start=1)
                if turn["role"] in roles
            ]
            if granularity == "session":
                if kept:
                    documents.append((session_id, "\n".join(text for _, text, _ in kept), said))
            else:
                documents.extend(kept)
        question = (
            item["question_id"],
            item["question"],
            conversation_recall.lme_time(item["question_date"]),
        )
        run.update(ranked(embed, documents, [question], timings, timed))
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("benchmark", choices=["locomo", "longmemeval"])
    parser.add_argument("file", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="the run file to write")
    parser.add_argument("--limit", type=int, help="only the first N items")
    parser.add_argument(
        "--every", type=int, default=1, help="only every Nth item (LongMemEval: all types)"
    )
    parser.add_argument("--granularity", choices=["turn", "session"], default="turn")
    parser.add_argument("--with-assistant", action="store_true", help="index assistant turns too")
    parser.add_argument("--store", choices=["memories", "conversations"], default="memories")
    parser.add_argument(
        "--untimed", action="store_true", help="memories: without the time-aware step, to compare"
    )
    parser.add_argument("--cache", type=Path, help="vectors kept by text hash between runs")
    parser.add_argument(
        "--threads",
        type=int,
        help="embedding threads (1 on a busy machine: threads wait on each other)",
    )
    args = parser.parse_args(argv)
    data = load(args.file)[:: args.every][: args.limit]
    with tempfile.TemporaryDirectory() as models:
        embedder = LlamaEmbedder(
            ensure_default_embedder_gguf(default_embedding_source(), Path(models)),
            name=EMBEDDING_MODEL,
            n_threads=args.threads,
        )
        embed = conversation_recall.CachedEmbedder(embedder.embed, args.cache)
        timings = Timings()
        try:
            if args.store == "conversations":
                return conversations_main(args, data, embed)
            if args.benchmark == "locomo":
                run = locomo_run(data, embed, timings, not args.untimed)
            else:
                run = longmemeval_run(
                    data, embed, timings, args.granularity, args.with_assistant, not args.untimed
                )
        finally:
            embed.save()
            embedder.close()
    args.out.write_text(json.dumps(run))
    print(timings.report())
    if SCORER.exists():
        scored = args.file
        if args.limit is not None or args.every > 1:  # score only the items that were run
            scored = args.out.with_suffix(".items.json")
            scored.write_text(json.dumps(data))
        command = [
            sys.executable,
            str(SCORER),
            args.benchmark,
            str(scored),
            "--run",
            str(args.out),
        ]
        if args.benchmark == "longmemeval":
            command += ["--granularity", args.granularity]
            if args.with_assistant:  # scored against the corpus that was indexed
                command.append("--all-roles")
        subprocess.run(command, check=False)
    return 0


def conversations_main(
    args: argparse.Namespace, data: list[dict[str, Any]], embed: conversation_recall.CachedEmbedder
) -> int:
    """Store, index and ask through past conversations; write the run file
    of the product's constants and report every variant, cross-validated."""
    variants = conversation_recall.VARIANTS
    timings: dict[str, float] = defaultdict(float)
    runs: dict[str, dict[str, list[str]]] = defaultdict(dict)
    started = time.perf_counter()
    try:
        for sessions, questions in _benchmark_items(args.benchmark, data):
            for key, rankings in conversation_recall.ranked_by_variant(
                embed, sessions, questions, variants, timings
            ):
                for name, ranking in rankings.items():
                    runs[name][key] = ranking
    finally:
        embed.save()
    product = conversation_recall.Variant(NEIGHBOUR_SHARE, OWN_WORDS_WEIGHT, DIVERSE, TIMED).name
    args.out.write_text(json.dumps(runs[product]))
    args.out.with_suffix(".variants.json").write_text(json.dumps(runs))
    print(
        f"{timings['messages']:.0f} messages stored in {timings['store_seconds']:.1f} s,"
        f" indexed in {timings['index_seconds']:.1f} s ({embed.embedded} texts embedded in"
        f" {embed.seconds:.1f} s, the rest from the cache); {timings['queries']:.0f} queries,"
        f" mean {1000 * timings['query_seconds'] / max(timings['queries'], 1):.1f} ms;"
        f" {time.perf_counter() - started:.0f} s in all"
    )
    if not SCORER.exists():
        return 0
    scorer = cross_validation.load_scorer(SCORER)
    names = [v.name for v in variants]
    if args.benchmark == "locomo":
        items = cross_validation.scored_locomo(scorer, data, runs)
        one_to_four = [s for s in items if s.kind != "5"]
        for title, chosen in (("LoCoMo, categories 1-4", one_to_four), ("categories 1-5", items)):
            print(
                cross_validation.report(
                    title,
                    chosen,
                    names,
                    ["recall@5", "recall@10", "recall@20"],
                    "recall@10",
                    product,
                )
            )
    else:
        # Both sides of every session are stored; scored as the official
        # protocol (evidence in user turns) and with assistant-side evidence.
        for all_roles, title in ((False, "user turns' evidence"), (True, "all turns' evidence")):
            items = cross_validation.scored_longmemeval(scorer, data, runs, all_roles)
            metrics = ["all@5", "all@10", "ndcg@10"]
            print(
                cross_validation.report(
                    f"LongMemEval, {title}", items, names, metrics, "all@10", product
                )
            )
    return 0


def _benchmark_items(
    benchmark: str, data: list[dict[str, Any]]
) -> Iterator[tuple[list[conversation_recall.Session], list[tuple[str, str, float]]]]:
    """Each fresh database's sessions, with the questions asked of it and
    when (LoCoMo has no question dates: a day after its last session)."""
    for item in data:
        if benchmark == "locomo":
            sessions = conversation_recall.locomo_sessions(item)
            asked_at = sessions[-1].date + 86400.0
            questions = [
                (f"{item['sample_id']}#{index}", str(qa["question"]), asked_at)
                for index, qa in enumerate(item["qa"])
            ]
            yield sessions, questions
        else:
            sessions = conversation_recall.longmemeval_sessions(item)
            asked_at = conversation_recall.lme_time(item["question_date"])
            yield sessions, [(item["question_id"], item["question"], asked_at)]


if __name__ == "__main__":
    sys.exit(main())
