"""Background workers: the system prompt of each mode, in tokens, and the
time from a worker's last dependency completing to the worker starting.

    python -m tests.bench.workers [--chains 50] [--json RESULTS.json]

Tokens: each mode's system prompt (``WorkerPrompts.messages``) for a worker
with the ``researcher`` profile's tools (``full`` adds the spawning tool
and the chat's memories, tasks and skills, empty here), counted by the
embedded SmolLM2's tokenizer.  Latency: *--chains* pairs "first" → "then",
one pair at a time, on a scripted model, driven as a host would: a thread that sleeps until
``on_change`` wakes it and runs what ``ready()`` lists (no polling).
Measured from the first's ``ended_at`` to the second's ``started_at``, both
stamped by the store.  The target: under 100 ms.  Not a test: it asserts
nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
from pathlib import Path
from zoneinfo import ZoneInfo

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DEFAULT_PROFILES, WorkerSettings
from desktop.core.chat.tools.memory import memory_tools
from desktop.core.chat.tools.skills import skill_tools
from desktop.core.chat.tools.sub_sessions import SpawnCall
from desktop.core.chat.tools.toolbox import ToolContext
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.db.connection import Transaction
from desktop.core.db.skills import SkillStore
from desktop.core.db.workers import MODES, WorkerStore
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.workers.service import Workers
from models.broker import InferenceBroker
from models.embedded import default_chat_model_path
from models.llama_chat import LlamaChatModel
from tests.fakes import HashingEmbedder, ScriptedChatModel

ZONE = ZoneInfo("Europe/Berlin")


class _Reports:
    def report(
        self, conversation_id: int, text: str, worker_ids: tuple[int, ...], tx: Transaction
    ) -> None:
        pass


def _workers(
    database: Database, broker: InferenceBroker, folder: Path, host: threading.Event
) -> Workers:
    prompts = PromptLibrary(folder / "prompts")
    memories = MemoryService.over(database, broker, prompts)
    skills = SkillLibrary(SkillStore(database), folder / "skills")
    conversations = ConversationStore(database)
    return Workers(
        WorkerStore(database),
        conversations,
        broker,
        prompts,
        _Reports(),
        tools=[*memory_tools(memories), *skill_tools(skills)],
        settings=WorkerSettings(quiet_seconds=0),
        zone=lambda: ZONE,
        memories=memories,
        skills=skills,
        on_change=host.set,
    )


def prompt_tokens(workers: Workers, conversation_id: int) -> dict[str, int]:
    """Tokens of each mode's system prompt, by SmolLM2's tokenizer."""
    counter = LlamaChatModel(default_chat_model_path(), context_length=2048)
    tools = list(DEFAULT_PROFILES["researcher"].tools)
    counts: dict[str, int] = {}
    try:
        for mode in MODES:
            call = SpawnCall(objective="measure", mode=mode, tools=tools)
            worker_id = workers.spawn(call, ToolContext(conversation_id))
            system = [m.content for m in workers.prompt(worker_id) if m.role == "system"]
            counts[mode] = counter.count_tokens(system[0]) if system else 0
            workers.cancel(worker_id)
    finally:
        counter.close()
    return counts


def start_latency_ms(
    workers: Workers, conversation_id: int, chains: int, host: threading.Event
) -> list[float]:
    """Milliseconds from each "first" ending to its "then" starting."""
    done = threading.Event()

    def run_host() -> None:
        while not done.is_set():
            host.wait()
            host.clear()
            while ready := workers.ready():
                workers.run_one(ready[0], lambda: False)

    thread = threading.Thread(target=run_host, name="bench-host")
    thread.start()
    pairs = []
    context = ToolContext(conversation_id)
    for _ in range(chains):  # one pair at a time: nothing else is queued before "then"
        first = workers.spawn(SpawnCall(objective="first"), context)
        then = workers.spawn(SpawnCall(objective="then", depends_on=[first]), context)
        pairs.append((first, then))
        while (w := workers.get(then)) is None or not w.final:
            threading.Event().wait(0.01)  # the bench waits; the host does not poll
    done.set()
    host.set()
    thread.join()
    latencies = []
    for first, then in pairs:
        ended, started = workers.get(first), workers.get(then)
        assert ended is not None and started is not None
        assert ended.ended_at is not None and started.started_at is not None
        latencies.append((started.started_at - ended.ended_at) * 1000)
    return latencies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", type=int, default=50)
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        broker = InferenceBroker()
        broker.start()
        try:
            broker.load_chat_model(lambda: ScriptedChatModel(default="Done.")).result(timeout=30)
            broker.load_embedder(HashingEmbedder).result(timeout=30)
            with open_database(Path(folder) / "reverie.sqlite3") as database:
                host = threading.Event()
                workers = _workers(database, broker, Path(folder), host)
                conversation = ConversationStore(database).create("bench")
                tokens = prompt_tokens(workers, conversation.id)
                latencies = start_latency_ms(workers, conversation.id, arguments.chains, host)
        finally:
            broker.stop()
    ordered = sorted(latencies)
    results = {
        "system_prompt_tokens": tokens,
        "start_latency_ms": {
            "p50": statistics.median(ordered),
            "p95": ordered[max(0, int(len(ordered) * 0.95) - 1)],
            "max": ordered[-1],
            "chains": len(ordered),
        },
    }
    json.dump(results, sys.stdout, indent=2)
    print()
    if arguments.json:
        arguments.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
