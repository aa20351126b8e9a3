"""Dream benchmark: a user turn while a dream runs, and a dream's throughput.

    python -m tests.bench.dream [--turns 100] [--json RESULTS.json]

1. Time to first token (TTFT) of a user turn sent while a dream's model call
   is in flight, against one sent with the model idle, alternating within
   one run, through the whole chat path (SmolLM2 and the default embedder,
   as the app loads them; the broker holding background work while the user
   is in a turn, as the app's does).  Before an idle turn background work is
   held until the broker is free; before a dreaming turn the dream runs for
   a moment.  Dreams follow one another, each with new duplicates to judge.
   A turn counts as "during a dream" only if it cut a background generation
   (the broker counts the generations each turn cut), and as "idle" only if
   none was running: the schedule alone does not say a call was in flight.
   Turns are taken until --turns of each kind are kept (or three times as
   many tried).  Reported: n, how many in flight, p50, and each higher
   percentile only where the samples support it (at least five above it:
   p90 from 50 samples, p95 from 100); target: the dreaming p95 at most
   300 ms above the idle p95.
2. Throughput: one whole dream, with the app's settings, over a store of
   memories with planted duplicates and contradictions; memories reviewed
   per minute and model calls made.

Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, DreamSettings, ModelSettings
from desktop.core.chat.service import ChatService
from desktop.core.chat.tools.memory import memory_tools
from desktop.core.chat.tools.toolbox import Toolbox
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.dreaming.activity import UserActivity
from desktop.core.dreaming.control import DreamControl
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker, Job, Priority
from models.embedded import default_chat_model_path
from models.interfaces import ChatMessage, GenerationOptions
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


TAIL_SAMPLES = 5
"""A percentile is reported only with this many samples above it."""
PERCENTILES = (0.5, 0.9, 0.95)


def percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile of *values*, or None when too few
    samples lie above it to tell it from noise."""
    if len(values) * (1 - share) < TAIL_SAMPLES:
        return None
    ordered = sorted(values)
    return ordered[math.ceil(share * len(ordered)) - 1]


class CountingBroker(InferenceBroker):
    """The app's broker, keeping every chat job so the bench can count the
    background generations a user turn cut: the broker keeps no count of
    its own, but each job counts the times it was cut (``Job.preemptions``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.chat_jobs: list[Job] = []
        self._jobs_lock = threading.Lock()

    def chat(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        priority: Priority = Priority.USER,
    ) -> Job:
        job = super().chat(messages, options, priority)
        with self._jobs_lock:
            self.chat_jobs.append(job)
        return job

    def background_cuts(self) -> int:
        """How many times background generations were cut so far."""
        with self._jobs_lock:
            jobs = list(self.chat_jobs)
        return sum(job.preemptions for job in jobs if job.priority == Priority.BACKGROUND)


class Bench:
    """The app's parts over one temporary folder, with a switch on background work."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.activity = UserActivity()
        self.allowed = threading.Event()
        self.allowed.set()
        self.broker = CountingBroker(
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
    """TTFT of idle and dreaming turns, *turns* kept of each kind (or as many
    as three times that many tries gave)."""
    samples: dict[str, list[float]] = {"idle": [], "dreaming": []}
    cuts: dict[str, list[int]] = {"idle": [], "dreaming": []}
    """Background generations each turn cut, kept or not."""
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

        def counted_turn(kind: str, number: int) -> None:
            before = bench.broker.background_cuts()
            seconds = bench.ttft(number)
            # The lane runs one job at a time and the user's goes first: by
            # the time the turn has its first token, any generation it cut
            # has been counted.
            cut = bench.broker.background_cuts() - before
            cuts[kind].append(cut)
            if (cut > 0) == (kind == "dreaming"):
                samples[kind].append(seconds)

        try:
            dream = threading.Thread(target=keep_dreaming, daemon=True)
            dream.start()
            bench.ttft(0)  # warm up: the first turn loads what every later one reuses
            n = 0
            while min(len(v) for v in samples.values()) < turns and n < 3 * turns:
                n += 1
                bench.allowed.clear()  # idle: the dream waits, its call (if any) is cut
                time.sleep(DREAM_RUNS_S)
                counted_turn("idle", 2 * n - 1)
                bench.allowed.set()  # dreaming: its model call should be in flight
                time.sleep(DREAM_RUNS_S)
                if not dream.is_alive():
                    raise RuntimeError("dreaming stopped before the turns did")
                counted_turn("dreaming", 2 * n)
        finally:
            control.stop("cancelled")
            bench.allowed.set()
            bench.close()
    summary: dict[str, dict[str, Any]] = {
        kind: {
            "tried": len(cuts[kind]),
            "kept": len(values),
            "cut_a_generation": sum(1 for c in cuts[kind] if c > 0),
            **{f"p{round(100 * q)}_s": percentile(values, q) for q in PERCENTILES},
        }
        for kind, values in samples.items()
    }
    return {
        "samples_s": samples,
        "cuts_per_turn": cuts,
        "summary": summary,
        "difference_ms": _differences(summary),
    }


def _differences(summary: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Dreaming minus idle, for each percentile both kinds support."""
    differences = {}
    for q in PERCENTILES:
        key = f"p{round(100 * q)}_s"
        idle, dreaming = summary["idle"][key], summary["dreaming"][key]
        if idle is not None and dreaming is not None:
            differences[f"p{round(100 * q)}"] = 1000 * (dreaming - idle)
    return differences


def _describe(kind: str, summary: dict[str, Any]) -> str:
    shown = ", ".join(
        f"p{round(100 * q)} {value:.3f} s"
        for q in PERCENTILES
        if (value := summary[f"p{round(100 * q)}_s"]) is not None
    )
    return (
        f"{kind}: n {summary['kept']} of {summary['tried']} tried "
        f"({summary['cut_a_generation']} cut a dream's generation): {shown or 'too few samples'}"
    )


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
            bench.broker.chat_jobs.clear()
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
        "model_calls": len(bench.broker.chat_jobs),
        "applied": report.applied,
        "pending": report.pending,
        "status": report.run.status,
        "outcomes": report.outcomes,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--turns", type=int, default=100, help="turns kept of each kind (p95 needs 100)"
    )
    parser.add_argument("--pairs", type=int, default=6, help="duplicate pairs (throughput)")
    parser.add_argument("--distinct", type=int, default=40, help="other memories (throughput)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--no-throughput", action="store_true", help="only the TTFT part")
    args = parser.parse_args(argv)
    turns = bench_turns(args.turns)
    for kind in ("idle", "dreaming"):
        print("TTFT " + _describe(kind, turns["summary"][kind]))
    differences = ", ".join(f"{k} {v:+.0f} ms" for k, v in turns["difference_ms"].items())
    print(f"dreaming minus idle: {differences or 'too few samples'} (target: p95 <= +300 ms)")
    if args.no_throughput:
        if args.json:
            args.json.write_text(json.dumps({"turns": turns}, indent=2))
        return 0
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
