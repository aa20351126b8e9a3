"""A dream in a process of its own, for the kill test: ``python -m
tests.unit.core.dreaming.dream_child DATABASE FOLDER``.

The scripted model and the dream's progress both stop at a gate before
each step, print ``gate <n>`` and wait for a line on stdin; at the end of
stdin every gate stays open.  So the test knows where the dream is when it
kills it, and a rerun with no input goes straight through.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import MemoryStore, open_database
from desktop.core.dreaming.control import DreamControl, DreamProgress
from desktop.core.memory.embedding import Embeddings
from desktop.core.memory.gate import WriteGate
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.interfaces import ChatMessage
from tests.dreams import make_dreamer
from tests.fakes import HashingEmbedder, ScriptedChatModel

MERGED = {"content": "The user has a dog named Rex.", "category": "people", "sourceIds": [1, 2]}
MERGE = json.dumps({"toSave": [MERGED], "toDelete": [1, 2]})
ANSWERS = {
    "dedup": MERGE,
    "contradiction": json.dumps({"verdict": "keep_second"}),
    "preferences": json.dumps({"preferences": []}),
}


class StdinGate:
    """Waits for one line of stdin per step, announcing each step."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._steps = 0
        self._open = False

    def wait(self, timeout: float | None = None) -> bool:
        with self._lock:
            self._steps += 1
            if self._open:
                return True
            print(f"gate {self._steps}", flush=True)
            if not sys.stdin.readline():
                self._open = True  # no more input: run to the end
        return True


class Model(ScriptedChatModel):
    """Answers each pass's question by what it asks about."""

    def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
        asked = messages[-1].content
        if "The memories:" in asked:
            return ANSWERS["dedup"]
        if asked.startswith("[1]"):
            return ANSWERS["contradiction"]
        return ANSWERS["preferences"]


def main(database_path: str, folder: str) -> int:
    gate = StdinGate()
    model = Model()
    model.gate = gate
    broker = InferenceBroker()
    broker.start()
    database = open_database(Path(database_path))
    try:
        broker.load_chat_model(lambda: model).result(timeout=30)
        broker.load_embedder(HashingEmbedder).result(timeout=30)
        prompts = PromptLibrary(Path(folder) / "prompts")
        memories = MemoryService(
            MemoryStore(database), Embeddings(broker), WriteGate.for_prompts(prompts)
        )
        dreamer = make_dreamer(
            database, memories, broker, prompts, Path(folder), DreamSettings(quiet_seconds=0)
        )

        def step(_: DreamProgress) -> None:
            gate.wait()

        report = dreamer.run("manual", DreamControl(on_progress=step))
        print(f"dream {report.run.status}", flush=True)
        return 0 if report.run.status == "completed" else 1
    finally:
        database.close()
        broker.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
