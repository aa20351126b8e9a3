"""Retrieval benchmark on LoCoMo and LongMemEval, through the product's own parts.

    python -m tests.bench.retrieval locomo FILE --out RUN.json
    python -m tests.bench.retrieval longmemeval FILE [--limit N]
        [--granularity turn|session] [--with-assistant] --out RUN.json

Every conversation (LoCoMo) or question (LongMemEval) gets a fresh temporary
database; its turns are stored in one ``MemoryStore.add_many`` call with
their vectors from the default embedder, and each question is answered by
``MemoryRetriever`` with the question text only.  The system never sees
evidence labels or ids: a memory's text is the speaker or role, the words
and the session date; the benchmark keeps the mapping from memory ids to
turn ids to itself.  The run file is in the format of
``../shared/bench/score.py``, which is called at the end when it is there.
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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.db import MemoryStore, NewMemory, open_database
from desktop.core.memory.retrieval import MemoryRetriever
from models.convert_bert import ensure_default_embedder_gguf
from models.embedded import default_embedding_source
from models.llama_embedder import LlamaEmbedder

TOP_K = 50
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
    embedder: LlamaEmbedder,
    documents: list[tuple[str, str]],
    questions: list[tuple[str, str]],
    timings: Timings,
) -> Iterator[tuple[str, list[str]]]:
    """Index *documents* (outside id, text) in a fresh database; rank them for
    each of *questions* (key, text).  Yields (key, outside ids best first)."""
    with tempfile.TemporaryDirectory() as folder:
        database = open_database(Path(folder) / "bench.sqlite3")
        try:
            store = MemoryStore(database)
            started = time.perf_counter()
            vectors = [
                vector
                for start in range(0, len(documents), EMBED_BATCH)
                for vector in embedder.embed(
                    [text for _, text in documents[start : start + EMBED_BATCH]]
                )
            ]
            embedded = time.perf_counter()
            items = [
                NewMemory(text, vector, "imported", embedding_model=embedder.name)
                for (_, text), vector in zip(documents, vectors, strict=True)
            ]
            ids = store.add_many(items, actor="system")
            timings.store_seconds += time.perf_counter() - embedded
            timings.index_seconds += time.perf_counter() - started
            outside = dict(zip(ids, (document_id for document_id, _ in documents), strict=True))
            timings.indexed += len(documents)
            retriever = MemoryRetriever(store, embedder.embed)
            for key, question in questions:
                started = time.perf_counter()
                found = retriever.retrieve(question, k=TOP_K)
                timings.query_seconds.append(time.perf_counter() - started)
                yield key, [outside[r.memory.id] for r in found]
        finally:
            database.close()


def locomo_run(
    data: list[dict[str, Any]], embedder: LlamaEmbedder, timings: Timings
) -> dict[str, list[str]]:
    run: dict[str, list[str]] = {}
    for sample in data:
        conversation = sample["conversation"]
        documents: list[tuple[str, str]] = []
        session = 1
        while f"session_{session}" in conversation:
            date = conversation.get(f"session_{session}_date_time", "")
            for turn in conversation[f"session_{session}"]:
                caption = f" [{turn['blip_caption']}]" if turn.get("blip_caption") else ""
                text = f"{turn['speaker']}: {turn['text']}{caption} ({date})"
                documents.append((turn["dia_id"], text))
            session += 1
        questions = [
            (f"{sample['sample_id']}#{index}", str(item["question"]))
            for index, item in enumerate(sample["qa"])
        ]
        run.update(ranked(embedder, documents, questions, timings))
    return run


def longmemeval_run(
    data: list[dict[str, Any]],
    embedder: LlamaEmbedder,
    timings: Timings,
    granularity: str,
    with_assistant: bool,
) -> dict[str, list[str]]:
    roles = {"user", "assistant"} if with_assistant else {"user"}
    run: dict[str, list[str]] = {}
    for item in data:
        documents: list[tuple[str, str]] = []
        sessions = zip(
            item["haystack_session_ids"],
            item["haystack_dates"],
            item["haystack_sessions"],
            strict=True,
        )
        for session_id, date, turns in sessions:
            kept = [
                (f"{session_id}#{number}", f"{turn['role']}: {turn['content']} ({date})")
                for number, turn in enumerate(turns, start=1)
                if turn["role"] in roles
            ]
            if granularity == "session":
                if kept:
                    documents.append((session_id, "\n".join(text for _, text in kept)))
            else:
                documents.extend(kept)
        run.update(ranked(embedder, documents, [(item["question_id"], item["question"])], timings))
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("benchmark", choices=["locomo", "longmemeval"])
    parser.add_argument("file", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="the run file to write")
    parser.add_argument("--limit", type=int, help="only the first N items")
    parser.add_argument("--granularity", choices=["turn", "session"], default="turn")
    parser.add_argument("--with-assistant", action="store_true", help="index assistant turns too")
    args = parser.parse_args(argv)
    data = load(args.file)[: args.limit]
    with tempfile.TemporaryDirectory() as models:
        embedder = LlamaEmbedder(
            ensure_default_embedder_gguf(default_embedding_source(), Path(models)), name="default"
        )
        timings = Timings()
        try:
            if args.benchmark == "locomo":
                run = locomo_run(data, embedder, timings)
            else:
                run = longmemeval_run(
                    data, embedder, timings, args.granularity, args.with_assistant
                )
        finally:
            embedder.close()
    args.out.write_text(json.dumps(run))
    print(timings.report())
    if SCORER.exists():
        scored = args.file
        if args.limit is not None:  # score only the items that were run
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


if __name__ == "__main__":
    sys.exit(main())
