"""Inference benchmark: ratios measured side by side in one run.

    python -m tests.bench.inference [--rounds 5] [--json results.json]

1. Broker overhead: raw llama-cpp-python streaming (``create_chat_completion``)
   against the same greedy request through Reverie's inference broker.
   Target: broker/raw tokens-per-second >= 0.95.
2. Schema-constrained against free generation through the broker, with
   llama-cpp-python's own grammar path for reference.  Target: >= 0.8.
3. Embedding throughput of the default embedder on short sentences:
   one text per call against one batched call.  Target: >= 100 texts/s.

Rounds alternate between the sides so that machine noise hits both alike;
each figure is the median over rounds.  Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import llama_cpp
from llama_cpp.llama_grammar import LlamaGrammar

from models.broker import InferenceBroker
from models.convert_bert import ensure_default_embedder_gguf
from models.embedded import default_chat_model_path, default_embedding_source
from models.gguf_file import default_threads
from models.interfaces import ChatMessage, GenerationOptions
from models.llama_chat import LlamaChatModel
from models.llama_embedder import LlamaEmbedder
from models.sampling import grammar_for_schema

CONTEXT = 2048
MAX_TOKENS = 160
STORY = [
    ChatMessage("system", "You are a helpful assistant."),
    ChatMessage("user", "Write a long story about a lighthouse keeper who finds a bottle."),
]
FACTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "fact": {"type": "string"},
                    "category": {"enum": ["science", "history", "culture"]},
                },
                "required": ["fact", "category"],
            },
            "minItems": 8,
        }
    },
    "required": ["facts"],
}
FACTS = [
    ChatMessage("system", "You are a helpful assistant. Answer in JSON."),
    ChatMessage(
        "user",
        'List eight facts about the Moon as JSON: {"facts": [{"fact": ..., "category": '
        '"science" | "history" | "culture"}, ...]}',
    ),
]


def timed(pieces: Iterator[str]) -> tuple[str, float, float]:
    """The text of *pieces*, seconds in all, and seconds after the first piece."""
    start = time.perf_counter()
    first: float | None = None
    parts: list[str] = []
    for piece in pieces:
        if piece and first is None:
            first = time.perf_counter()
        parts.append(piece)
    end = time.perf_counter()
    return "".join(parts), end - start, end - (first if first is not None else start)


def seconds(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def raw_stream(llm: llama_cpp.Llama, messages: list[ChatMessage], **extra: Any) -> Iterator[str]:
    chunks: Any = llm.create_chat_completion(
        [{"role": m.role, "content": m.content} for m in messages],  # type: ignore[misc]  # TypedDicts per role
        stream=True,
        max_tokens=MAX_TOKENS,
        temperature=0.0,
        repeat_penalty=1.0,
        **extra,
    )
    return (c["choices"][0]["delta"].get("content") or "" for c in chunks)


def broker_stream(
    broker: InferenceBroker, messages: list[ChatMessage], **extra: Any
) -> Iterator[str]:
    options = GenerationOptions(max_tokens=MAX_TOKENS, temperature=0.0, repeat_penalty=1.0, **extra)
    return (chunk.text for chunk in broker.chat(messages, options).chunks())


def side_by_side(
    sides: dict[str, Callable[[], Iterator[str]]], count: Callable[[str], int], rounds: int
) -> dict[str, dict[str, Any]]:
    """Tokens/s of each side, rounds alternating; the first round warms up.

    ``tokens_per_s`` is over the whole call (what a user waits for);
    ``decode_tokens_per_s`` starts at the first token, so that outputs of
    different lengths compare fairly (a short one is not dominated by setup).
    """
    whole: dict[str, list[float]] = {name: [] for name in sides}
    decode: dict[str, list[float]] = {name: [] for name in sides}
    texts: dict[str, str] = {}
    for round_number in range(rounds + 1):
        for name, run in sides.items():
            text, seconds, after_first = timed(run())
            texts[name] = text
            if round_number:
                tokens = count(text)
                whole[name].append(tokens / seconds)
                decode[name].append((tokens - 1) / after_first)
    return {
        name: {
            "tokens_per_s": statistics.median(whole[name]),
            "decode_tokens_per_s": statistics.median(decode[name]),
            "tokens": count(texts[name]),
            "sample": texts[name][:80],
        }
        for name in sides
    }


def ratio(results: dict[str, dict[str, Any]], top: str, bottom: str, key: str) -> float:
    return float(results[top][key] / results[bottom][key])


def bench_generation(model_path: Path, rounds: int) -> dict[str, Any]:
    raw = llama_cpp.Llama(
        str(model_path),
        n_ctx=CONTEXT,
        n_threads=default_threads(),
        n_threads_batch=default_threads(),
        verbose=False,
    )
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_chat_model(lambda: LlamaChatModel(model_path, context_length=CONTEXT)).result()

        def count(text: str) -> int:
            return len(raw.tokenize(text.encode(), add_bos=False))

        overhead = side_by_side(
            {"raw": lambda: raw_stream(raw, STORY), "broker": lambda: broker_stream(broker, STORY)},
            count,
            rounds,
        )
        library_grammar = LlamaGrammar.from_string(grammar_for_schema(FACTS_SCHEMA))
        schema = side_by_side(
            {
                "free": lambda: broker_stream(broker, FACTS),
                "schema": lambda: broker_stream(broker, FACTS, json_schema=FACTS_SCHEMA),
                "library_schema": lambda: raw_stream(raw, FACTS, grammar=library_grammar),
                "library_free": lambda: raw_stream(raw, FACTS),
            },
            count,
            rounds,
        )
    finally:
        broker.stop()
        raw.close()
    return {
        "broker_vs_raw": overhead,
        "broker_over_raw": ratio(overhead, "broker", "raw", "tokens_per_s"),
        "broker_over_raw_decode": ratio(overhead, "broker", "raw", "decode_tokens_per_s"),
        "schema_vs_free": schema,
        "schema_over_free": ratio(schema, "schema", "free", "decode_tokens_per_s"),
        "schema_over_free_whole": ratio(schema, "schema", "free", "tokens_per_s"),
        "library_schema_over_free": ratio(
            schema, "library_schema", "library_free", "decode_tokens_per_s"
        ),
    }


def sentences(n: int) -> list[str]:
    subjects = ["My sister", "The old dog", "Our neighbour", "A student", "The chef", "My boss"]
    verbs = ["loves", "hates", "often visits", "is learning about", "writes about", "collects"]
    objects = [
        "mountain climbing",
        "Italian food",
        "the ocean",
        "jazz records",
        "old maps",
        "board games",
        "quantum physics",
        "vintage cars",
    ]
    return [
        f"{subjects[i % 6]} {verbs[(i // 6) % 6]} {objects[(i // 36) % 8]} ({i})." for i in range(n)
    ]


def bench_embeddings(rounds: int, n_texts: int = 256) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as cache:
        path = ensure_default_embedder_gguf(default_embedding_source(), Path(cache))
        embedder = LlamaEmbedder(path)
        texts = sentences(n_texts)
        per_text: list[float] = []
        batched: list[float] = []
        for round_number in range(rounds + 1):
            one_by_one = seconds(lambda: [embedder.embed([text]) for text in texts])
            together = seconds(lambda: embedder.embed(texts))
            if round_number:
                per_text.append(n_texts / one_by_one)
                batched.append(n_texts / together)
        embedder.close()
    return {
        "texts": n_texts,
        "per_text_texts_per_s": statistics.median(per_text),
        "batched_texts_per_s": statistics.median(batched),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {
        "generation": bench_generation(default_chat_model_path(), args.rounds),
        "embeddings": bench_embeddings(args.rounds),
        "threads": default_threads(),
    }
    gen, emb = results["generation"], results["embeddings"]
    overhead, schema = gen["broker_vs_raw"], gen["schema_vs_free"]
    print(
        f"broker vs raw llama-cpp-python, whole call: {overhead['broker']['tokens_per_s']:.1f} / "
        f"{overhead['raw']['tokens_per_s']:.1f} tok/s = {gen['broker_over_raw']:.3f} "
        f"(decode only: {gen['broker_over_raw_decode']:.3f}; target >= 0.95)"
    )
    print(
        f"schema vs free through the broker, decode: {schema['schema']['decode_tokens_per_s']:.1f}"
        f" / {schema['free']['decode_tokens_per_s']:.1f} tok/s = {gen['schema_over_free']:.3f} "
        f"(whole call: {gen['schema_over_free_whole']:.3f}; target >= 0.8)"
    )
    print(
        "  llama-cpp-python's own grammar path, decode: "
        f"{schema['library_schema']['decode_tokens_per_s']:.1f} / "
        f"{schema['library_free']['decode_tokens_per_s']:.1f} tok/s = "
        f"{gen['library_schema_over_free']:.3f}"
    )
    print(
        f"embeddings ({emb['texts']} short sentences): batched "
        f"{emb['batched_texts_per_s']:.0f} texts/s, one per call "
        f"{emb['per_text_texts_per_s']:.0f} texts/s (target >= 100)"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
