"""Server backend benchmark: ratios measured side by side in one run.

    python -m tests.bench.server [--rounds 5] [--json results.json]

The same model (the embedded SmolLM2) answers the same greedy request
(``MAX_TOKENS`` tokens) three ways:

1. ``local``: ``LlamaChatModel`` in this process;
2. ``backend``: ``ServerChatModel`` against llama-cpp-python's server on
   127.0.0.1 (started here, with as many threads as the local model);
3. ``raw``: a bare httpx streaming POST to the same server that only reads
   the SSE lines.

Reported: server/local decode tokens/s and time to first token (what a
server costs against running the model here), and backend/raw tokens/s
(what Reverie's client costs; target >= 0.9).  Ratios are medians of
round-by-round ratios; the tokens/s beside them are plain medians.  Every
side keeps the prompt cached between rounds, so the time to first token is
the overhead of a request, not the reading of a prompt.  Rounds alternate between the sides,
each round starting with another, so that machine noise hits them alike;
each figure is the median over rounds, after one warm-up round.  Not a
test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from models.embedded import default_chat_model_path
from models.gguf_file import default_threads
from models.interfaces import GenerationOptions
from models.llama_chat import LlamaChatModel
from models.server_chat import ServerChatModel, chat_request
from tests.bench.inference import CONTEXT, MAX_TOKENS, STORY, timed
from tests.llama_server import CHAT_ALIAS, start_llama_server

OPTIONS = GenerationOptions(max_tokens=MAX_TOKENS, temperature=0.0, repeat_penalty=1.0)


def model_stream(model: LlamaChatModel | ServerChatModel) -> Iterator[str]:
    return (chunk.text for chunk in model.stream(STORY, OPTIONS))


def raw_stream(client: httpx.Client, base_url: str, body: dict[str, Any]) -> Iterator[str]:
    """The reply's text pieces, read straight off the SSE lines."""
    with client.stream("POST", f"{base_url}/chat/completions", json=body) as response:
        for line in response.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                yield json.loads(line[6:])["choices"][0]["delta"].get("content") or ""


Figures = dict[str, dict[str, list[float]]]
"""Per side, per figure, one value per round."""


def side_by_side(
    sides: dict[str, Callable[[], Iterator[str]]], count: Callable[[str], int], rounds: int
) -> tuple[dict[str, dict[str, Any]], Figures]:
    """Per side, medians over rounds of tokens/s over the whole call, decode
    tokens/s from the first token on, and seconds to the first token; and
    every round's figures, for ratios taken round by round."""
    figures: Figures = {
        name: {"tokens_per_s": [], "decode_tokens_per_s": [], "first_token_s": []} for name in sides
    }
    texts: dict[str, str] = {}
    names = list(sides)
    for round_number in range(rounds + 1):
        # Each round starts with another side: whatever the previous run
        # leaves behind (llama.cpp's threads spin a while after a decode)
        # falls on every side in turn.
        turn = round_number % len(names)
        for name in names[turn:] + names[:turn]:
            text, seconds, after_first = timed(sides[name]())
            texts[name] = text
            if round_number:  # the first round warms up
                tokens = count(text)
                figures[name]["tokens_per_s"].append(tokens / seconds)
                figures[name]["decode_tokens_per_s"].append((tokens - 1) / after_first)
                figures[name]["first_token_s"].append(seconds - after_first)
    medians = {
        name: {
            **{key: statistics.median(values) for key, values in figures[name].items()},
            "tokens": count(texts[name]),
            "sample": texts[name][:80],
        }
        for name in sides
    }
    return medians, figures


def paired_ratio(figures: Figures, top: str, bottom: str, key: str) -> float:
    """The median of the round-by-round ratios: the sides run back to back,
    so each round's ratio sees about the same load on the shared cores."""
    pairs = zip(figures[top][key], figures[bottom][key], strict=True)
    return statistics.median(a / b for a, b in pairs)


def bench(rounds: int, threads: int) -> dict[str, Any]:
    model_path = default_chat_model_path()
    with tempfile.TemporaryDirectory() as workdir:
        server = start_llama_server(Path(workdir), model_path, threads=threads)
        local = LlamaChatModel(model_path, context_length=CONTEXT, threads=threads)
        backend = ServerChatModel(server.base_url, CHAT_ALIAS, context_length=CONTEXT)
        body = chat_request("llama-cpp-python", CHAT_ALIAS, STORY, OPTIONS)
        try:
            with httpx.Client(timeout=60.0, trust_env=False) as client:
                results, figures = side_by_side(
                    {
                        "local": lambda: model_stream(local),
                        "backend": lambda: model_stream(backend),
                        "raw": lambda: raw_stream(client, server.base_url, body),
                    },
                    local.count_tokens,
                    rounds,
                )
        finally:
            backend.close()
            local.close()
            server.stop()
    return {
        "sides": results,
        "rounds": figures,
        "threads": threads,
        "server_over_local_decode": paired_ratio(
            figures, "backend", "local", "decode_tokens_per_s"
        ),
        "server_over_local_first_token": paired_ratio(figures, "backend", "local", "first_token_s"),
        "backend_over_raw": paired_ratio(figures, "backend", "raw", "tokens_per_s"),
        "backend_over_raw_decode": paired_ratio(figures, "backend", "raw", "decode_tokens_per_s"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--threads",
        type=int,
        default=default_threads(),
        help="for the local model and the server alike (1 is steadier on a busy machine)",
    )
    args = parser.parse_args(argv)
    results = bench(args.rounds, args.threads)
    sides = results["sides"]
    local, backend, raw = sides["local"], sides["backend"], sides["raw"]
    print(
        f"server backend vs local, decode: {backend['decode_tokens_per_s']:.1f} / "
        f"{local['decode_tokens_per_s']:.1f} tok/s = {results['server_over_local_decode']:.3f}"
    )
    print(
        f"  time to first token: server {backend['first_token_s'] * 1000:.0f} ms, "
        f"local {local['first_token_s'] * 1000:.0f} ms "
        f"(= {results['server_over_local_first_token']:.2f}x)"
    )
    print(
        f"server backend vs raw httpx client, whole call: {backend['tokens_per_s']:.1f} / "
        f"{raw['tokens_per_s']:.1f} tok/s = {results['backend_over_raw']:.3f} "
        f"(decode only: {results['backend_over_raw_decode']:.3f}; target >= 0.9)"
    )
    print(f"  {backend['tokens']} tokens per reply, {results['threads']} threads")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
