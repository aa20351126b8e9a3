"""Dream benchmark: a user turn while a dream runs, and a dream's throughput.

    python -m tests.bench.dream [--turns 20] [--json RESULTS.json]

1. Time to first token (TTFT) of a user turn sent while a dream's model call
   is in flight, against one sent with the model idle, alternating within
   one run, through the whole chat path (SmolLM2 and the default embedder,
   as the app loads them; the broker holding background work while the user
   is in a turn, as the app's does).  Before an idle turn background work is
   held until the broker is free; before a dreaming turn the dream runs for
   a moment, so its generation is cut by the user's message.  Dreams follow
   one another, each with new duplicates to judge, so one is always running.  Reported: p50
   and p95 of each kind over --turns turns; target: the dreaming p95 at most
   300 ms above the idle p95.
2. Throughput: one whole dream, with the app's settings, over a store of
   memories with planted duplicates and contradictions; memories reviewed
   per minute and model calls made.

Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from desktop.core.chat import ChatService
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.dreaming.activity import UserActivity
from desktop.core.dreaming.control import DreamControl
from desktop.core.memory_service import MemoryService
from desktop.core.memory_tools import memory_tools
from desktop.core.prompts import PromptLibrary
from desktop.core.settings import ChatSettings, DreamSettings, ModelSettings
from desktop.core.tools import Toolbox
from models.broker import InferenceBroker
from models.embedded import default_chat_model_path
from models.llama_chat import LlamaChatModel
from tests.bench.chat import CONTEXT, FirstToken, default_embedder
from tests.dreams import add_memory, make_dreamer

REPLY_TOKENS = 16
DREAM_RUNS_S = 1.5
"""How long the dream runs before a dreaming turn: long enough to be mid-answer."""
NAMES = ["Ana", "Ben", "Chloe", "Dev", "Eli", "Farah", "Gus", "Hana", "Ivo", "Jun"]
CITIES = ["Porto", "Leeds", "Graz", "Lyon", "Oslo", "Turin", "Ghent", "Cork", "Split", "Bonn"]
RELATIONS = ["sister", "brother", "cousin", "friend", "colleague", "neighbour", "aunt", "uncle"]
FACTS = [
    "The user is allergic to peanuts.",
    "The user plays the cello in an amateur orchestra.",
    "The user's favourite film is Stalker.",
    "The user runs ten kilometres every Sunday morning.",
    "The user works as a nurse on night shifts.",
    "The user prefers short answers without lists.",
    "The user is learning Japanese with an app.",
    "The user's flat has a small balcony with tomatoes.",
    "The user drinks green tea, never coffee.",
    "The user's birthday is on the twelfth of March.",
    "The user dislikes horror novels.",
    "The user supports a football club from Lisbon.",
    "The user's laptop is a ten-year-old ThinkPad.",
    "The user bakes sourdough bread on weekends.",
    "The user is saving for a trip to Patagonia.",
    "The user's grandmother taught them to knit.",
    "The user cycles to work along the river.",
    "The user keeps a journal in a paper notebook.",
    "The user is afraid of flying.",
    "The user volunteers at a food bank on Thursdays.",
    "The user's car is an old blue Volvo estate.",
    "The user collects vinyl records of jazz pianists.",
    "The user had knee surgery two years ago.",
    "The user writes code in Rust at work.",
    "The user's cat sleeps on the printer.",
    "The user prefers the metric system.",
    "The user grew up near the sea in Brittany.",
    "The user is vegetarian but eats fish.",
    "The user's favourite season is autumn.",
    "The user meditates for ten minutes before bed.",
    "The user is colour-blind between red and green.",
    "The user's best friend from school is a pilot.",
    "The user plays chess online most evenings.",
    "The user hates being woken by alarms.",
    "The user is planning to repaint the kitchen yellow.",
    "The user reads the news only on Sundays.",
    "The user speaks Portuguese with their mother.",
    "The user's first job was in a bookshop.",
    "The user swims in the lake every summer.",
    "The user keeps bees on a friend's allotment.",
]


def planted(pairs: int, distinct: int, year: int = 2020) -> list[str]:
    """Memories: *pairs* near-duplicate pairs, then *distinct* unrelated facts."""
    texts = []
    for n in range(pairs):  # up to 80 different people a year
        name, relation = NAMES[n % len(NAMES)], RELATIONS[(n // len(NAMES)) % len(RELATIONS)]
        city = CITIES[(n * 7) % len(CITIES)]
        texts += [
            f"The user's {relation} {name} moved to {city} in {year}.",
            f"{name}, the user's {relation}, moved to {city} in {year}.",
        ]
    return texts + [FACTS[n % len(FACTS)] for n in range(min(distinct, len(FACTS)))]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[round(share * (len(ordered) - 1))]


class Bench:
    """The app's parts over one temporary folder, with a switch on background work."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.activity = UserActivity()
        self.allowed = threading.Event()
        self.allowed.set()
        self.broker = InferenceBroker(
            background_allowed=lambda: self.allowed.is_set() and self.activity.quiet(0.0)
        )
        self.broker.start()
        model = LlamaChatModel(default_chat_model_path(), context_length=CONTEXT)
        self.broker.load_chat_model(lambda: model).result()
        self.broker.load_embedder(lambda: default_embedder(folder)).result()
        self.database: Database = open_database(folder / "bench.sqlite3")
        self.prompts = PromptLibrary(folder / "prompts")
        self.memories = MemoryService.over(self.database, self.broker, self.prompts)
        self.chat = ChatService(
            ConversationStore(self.database),
            self.memories,
            self.broker,
            self.prompts,
            ModelSettings(context_length=CONTEXT, max_reply_tokens=REPLY_TOKENS, temperature=0.0),
            ChatSettings(),
            toolbox=Toolbox(memory_tools(self.memories), self.prompts),
        )

    def close(self) -> None:
        self.broker.stop()
        self.database.close()

    def ttft(self, turn_number: int) -> float:
        """One user turn in a conversation of its own, as the app runs it.
        Each turn asks a question of its own: the chat's prompt cache (kept
        apart from background work) answers a repeated prompt at once."""
        conversation = self.chat.new_conversation()
        turn = self.chat.send(conversation.id, f"Question {turn_number:02d}: name a colour.")
        turn.seed = False  # the answer alone, as in any later turn
        listener = FirstToken()
        self.activity.turn_started()  # what the chat window tells the app
        try:
            self.chat.run(turn, listener)
        finally:
            self.activity.turn_ended()
        assert listener.first is not None, "the model said nothing"
        return listener.first


def bench_turns(turns: int) -> dict[str, Any]:
    samples: dict[str, list[float]] = {"idle": [], "dreaming": []}
    with tempfile.TemporaryDirectory() as folder:
        bench = Bench(Path(folder))
        control = DreamControl(bench.activity)
        settings = DreamSettings(quiet_seconds=0, max_retired_share=1.0)
        dreamer = make_dreamer(
            bench.database, bench.memories, bench.broker, bench.prompts, Path(folder), settings
        )

        def keep_dreaming() -> None:
            """Dream after dream, each with new duplicates to judge, until stopped."""
            year = 2000
            while control.stopped is None:
                for text in planted(pairs=20, distinct=0, year=year):
                    add_memory(bench.memories, text)
                dreamer.run("manual", control)
                year += 1

        try:
            dream = threading.Thread(target=keep_dreaming, daemon=True)
            dream.start()
            bench.ttft(0)  # warm up: the first turn loads what every later one reuses
            for n in range(1, turns + 1):
                bench.allowed.clear()  # idle: the dream waits, its call (if any) is cut
                time.sleep(DREAM_RUNS_S)
                samples["idle"].append(bench.ttft(2 * n - 1))
                bench.allowed.set()  # dreaming: its model call is in flight
                time.sleep(DREAM_RUNS_S)
                if not dream.is_alive():
                    raise RuntimeError("dreaming stopped before the turns did")
                samples["dreaming"].append(bench.ttft(2 * n))
        finally:
            control.stop("cancelled")
            bench.allowed.set()
            bench.close()
    summary = {
        kind: {
            "p50_s": statistics.median(values),
            "p95_s": _percentile(values, 0.95),
        }
        for kind, values in samples.items()
    }
    return {
        "samples_s": samples,
        "summary": summary,
        "p95_difference_ms": 1000 * (summary["dreaming"]["p95_s"] - summary["idle"]["p95_s"]),
    }


def bench_throughput(pairs: int, distinct: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        bench = Bench(Path(folder))
        try:
            texts = [
                *planted(pairs, distinct),
                "The user lives in Rome.",
                "The user lives in Oslo.",
            ]
            for text in texts:
                add_memory(bench.memories, text)
            calls: list[int] = []
            original = bench.broker.chat

            def counted(*args: Any, **kwargs: Any) -> Any:
                calls.append(1)
                return original(*args, **kwargs)

            bench.broker.chat = counted  # type: ignore[method-assign]  # counting the dream's calls
            dreamer = make_dreamer(
                bench.database,
                bench.memories,
                bench.broker,
                bench.prompts,
                Path(folder),
                DreamSettings(quiet_seconds=0),
            )
            started = time.perf_counter()
            report = dreamer.run("manual", DreamControl())
            seconds = time.perf_counter() - started
        finally:
            bench.close()
    return {
        "memories": len(texts),
        "seconds": seconds,
        "memories_per_minute": 60 * len(texts) / seconds,
        "model_calls": len(calls),
        "applied": report.applied,
        "pending": report.pending,
        "status": report.run.status,
        "outcomes": report.outcomes,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--pairs", type=int, default=6, help="duplicate pairs (throughput)")
    parser.add_argument("--distinct", type=int, default=40, help="other memories (throughput)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    turns = bench_turns(args.turns)
    summary = turns["summary"]
    print(
        f"TTFT idle p50 {summary['idle']['p50_s']:.3f} s, p95 {summary['idle']['p95_s']:.3f} s; "
        f"during a dream p50 {summary['dreaming']['p50_s']:.3f} s, "
        f"p95 {summary['dreaming']['p95_s']:.3f} s; p95 difference "
        f"{turns['p95_difference_ms']:.0f} ms (target <= 300) over {args.turns} turns each"
    )
    throughput = bench_throughput(args.pairs, args.distinct)
    print(
        f"a dream over {throughput['memories']} memories took {throughput['seconds']:.1f} s: "
        f"{throughput['memories_per_minute']:.0f} memories reviewed per minute, "
        f"{throughput['model_calls']} model calls, {throughput['applied']} changes applied, "
        f"{throughput['pending']} pending ({throughput['status']})"
    )
    if args.json:
        args.json.write_text(json.dumps({"turns": turns, "throughput": throughput}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
