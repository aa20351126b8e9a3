"""Work done in a process of its own until it is killed, for the kill loops
(``test_kill_loops``):

    python -m tests.unit.core.db.kill_child dream|writes DATABASE JOURNAL SEED

``dream``: dream after dream over the database (snapshots beside it), a
scripted model merging the duplicates each round plants.  ``writes``: a
random stream of memory adds, edits and deletes and of messages.

Every write is written to *JOURNAL* twice: ``begin`` before it starts and
``done`` once its transaction committed (a line is flushed to the kernel at
once, so it survives a SIGKILL of this process); ``found`` for each memory
a writing child finds live when it starts.  A write with ``done`` must
be found after any kill; one with ``begin`` only may be there or not, but
whole.  ``ready`` goes to stdout once the work is under way.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import ConversationStore, Database, MemoryStore, open_database
from desktop.core.dreaming.control import DreamControl
from desktop.core.memory.embedding import Embeddings
from desktop.core.memory.gate import WriteGate
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.interfaces import ChatMessage
from tests.dreams import add_memory, make_dreamer
from tests.fakes import HashingEmbedder, ScriptedChatModel

ROUNDS = 10_000
"""More than any test lets a child live: it is always killed.  *SEED* is
the first round's number, so children started *ROUNDS* apart never write
the same text."""


class Journal:
    """The child's word on what it wrote: ``begin`` and ``done`` lines of JSON."""

    def __init__(self, handle: IO[str]) -> None:
        self._handle = handle

    def begin(self, **write: Any) -> None:
        self._line("begin", write)

    def done(self, **write: Any) -> None:
        self._line("done", write)

    def _line(self, stage: str, write: dict[str, Any]) -> None:
        self._handle.write(json.dumps({"stage": stage, **write}) + "\n")
        self._handle.flush()  # in the kernel now: a SIGKILL cannot take it back


class MergingModel(ScriptedChatModel):
    """Merges the first two memories of every duplicate question into the
    first one's words (what a good model would do with the planted pairs);
    any other question gets the default answer, which the pass refuses."""

    def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
        asked = messages[-1].content if messages else ""
        shown = [line[4:] for line in asked.splitlines() if line.startswith(("[1] ", "[2] "))]
        if "toSave" in messages[0].content and len(shown) == 2:
            saved = {"content": shown[0], "category": "people", "sourceIds": [1, 2]}
            return json.dumps({"toSave": [saved], "toDelete": [1, 2]})
        return super()._next_reply(messages)


def dream(database: Database, journal: Journal, seed: int) -> None:
    folder = database.path.parent
    broker = InferenceBroker()
    broker.start()
    model = MergingModel(default='{"verdict": "keep_both", "merged": null}')
    broker.load_chat_model(lambda: model).result(timeout=10)
    broker.load_embedder(HashingEmbedder).result(timeout=10)
    prompts = PromptLibrary(folder / "prompts")
    memories = MemoryService(
        MemoryStore(database), Embeddings(broker), WriteGate.for_prompts(prompts)
    )
    dreamer = make_dreamer(
        database, memories, broker, prompts, folder, DreamSettings(quiet_seconds=0)
    )
    print("ready", flush=True)
    for year in range(seed, seed + ROUNDS):  # new duplicates each round
        for text in _duplicates(year):
            journal.begin(kind="memory", content=text)
            memory = add_memory(memories, text)
            journal.done(kind="memory", id=memory.id, content=text)
        journal.begin(kind="dream")
        report = dreamer.run("manual", DreamControl())
        journal.done(kind="dream", id=report.run.id, status=report.run.status)


def _duplicates(year: int) -> list[str]:
    """Three pairs of memories saying the same thing in other words."""
    texts = []
    for name, city in (("Ana", "Porto"), ("Ben", "Leeds"), ("Chloe", "Graz")):
        texts += [
            f"The user's friend {name} moved to {city} in {year}.",
            f"{name}, the user's friend, moved to {city} in {year}.",
        ]
    return texts


def writes(database: Database, journal: Journal, seed: int) -> None:
    chance = random.Random(seed)
    store = MemoryStore(database)
    conversations = ConversationStore(database)
    embedder = HashingEmbedder()
    conversation = conversations.create(f"kill {seed}").id
    live: list[int] = []
    for memory in store.listed(limit=1000):
        # Said as found: a write the last child began may have committed unconfirmed.
        journal.done(kind="found", id=memory.id, content=memory.content)
        live.append(memory.id)
    print("ready", flush=True)
    for n in range(seed, seed + ROUNDS):
        text = f"Fact {n}: the user's friend number {n} likes " + "tea " * chance.randint(1, 60)
        operation = chance.choice(["add", "add", "update", "delete", "message", "message"])
        if operation in ("update", "delete") and not live:
            operation = "add"
        if operation == "add":
            journal.begin(kind="add", content=text)
            memory = store.add(
                text,
                embedding=embedder.embed([text])[0],
                source_kind="harvested",
                actor="harvest",
                embedding_model=embedder.name,
            )
            live.append(memory.id)
            journal.done(kind="add", id=memory.id, content=text)
        elif operation == "update":
            memory_id = chance.choice(live)
            journal.begin(kind="update", id=memory_id, content=text)
            store.update_content(
                memory_id, text, embedder.embed([text])[0], "user", embedding_model=embedder.name
            )
            journal.done(kind="update", id=memory_id, content=text)
        elif operation == "delete":
            memory_id = live.pop(chance.randrange(len(live)))
            journal.begin(kind="delete", id=memory_id)
            store.set_status(memory_id, "deleted", "user")
            journal.done(kind="delete", id=memory_id)
        else:
            journal.begin(kind="message", content=text)
            message = conversations.add_message(conversation, "user", text)
            journal.done(kind="message", id=message.id, content=text)


def main(mode: str, database_path: str, journal_path: str, seed: str) -> None:
    with (
        open_database(Path(database_path)) as database,
        Path(journal_path).open("a", encoding="utf-8") as handle,
    ):
        work = {"dream": dream, "writes": writes}[mode]
        work(database, Journal(handle), int(seed))


if __name__ == "__main__":
    main(*sys.argv[1:5])
