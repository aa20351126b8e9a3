"""The first reply in a long imported conversation: rows read and time to
its first word, against a short conversation's, in one run.

    python -m tests.bench.long_history [--sizes 100 5000 50000] [--json out.json]

Each conversation is a ChatGPT export's, stored by the import's own store
calls in a real SQLite file and never summarised; the user types "hi".  The
chat model is the tests' scripted one (it answers at once), so the time is
the turn's own: reading, redacting and fitting the history, and anything
summarised before the reply (a real model would add its calls).  Each size
is measured in a fresh database and service; the figure beside each is its
ratio to the first (smallest) size.  Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, ModelSettings
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, open_database
from desktop.core.db.conversations import ImportedMessage
from desktop.core.memory.service import MemoryService
from desktop.core.privacy.redaction import Redactor
from models.broker import InferenceBroker
from tests.fakes import HashingEmbedder, Recorder, ScriptedChatModel
from tests.reads import rows_read_by

SENTENCES = [
    "Can you help me plan the vegetable beds for spring?",
    "Sure: tomatoes want the sunniest spot, and beans can climb the fence.",
    "How often should I water the seedlings in the greenhouse?",
    "Every morning while it is warm, less when the nights are cold.",
]


class FirstWord(Recorder):
    """A recorder that notes when the first piece of the reply came."""

    def __init__(self) -> None:
        super().__init__()
        self.started = time.perf_counter()
        self.first: float | None = None

    def text(self, piece: str) -> None:
        if self.first is None:
            self.first = time.perf_counter() - self.started
        super().text(piece)


def imported(store: ConversationStore, count: int) -> int:
    """A conversation of *count* messages brought in from a ChatGPT export,
    never summarised; the *n*th ends with "(n)"."""
    messages = [
        ImportedMessage(
            "user" if n % 2 == 0 else "assistant",
            f"{SENTENCES[n % len(SENTENCES)]} ({n})",
            1_600_000_000.0 + n,
        )
        for n in range(count)
    ]
    with store.transaction() as tx:
        conversation = store.create_imported(
            "an export",
            imported_from="chatgpt",
            external_id=str(count),
            created_at=1_600_000_000.0,
            updated_at=1_600_000_000.0 + count,
            tx=tx,
        )
        assert conversation is not None
        store.add_imported_messages(conversation.id, messages, tx)
    return conversation.id


def first_turn(count: int, folder: Path) -> dict[str, Any]:
    """The first reply in a conversation of *count* imported messages."""
    database = open_database(folder / f"reverie-{count}.sqlite3")
    broker = InferenceBroker()
    broker.start()
    try:
        model = ScriptedChatModel(default="Hello again.")
        broker.load_chat_model(lambda: model).result(timeout=30)
        broker.load_embedder(HashingEmbedder).result(timeout=30)
        store = ConversationStore(database)
        redactor = Redactor()
        redactor.text("warm up the word lists")  # loaded once, as the app does at start
        prompts = PromptLibrary(folder / "prompts")
        memories = MemoryService.over(database, broker, prompts, redactor)
        chat = ChatService(
            store, memories, broker, prompts, ModelSettings(), ChatSettings(), redactor=redactor
        )
        conversation = imported(store, count)
        turn = chat.send(conversation, "hi")
        recorder = FirstWord()
        rows = rows_read_by(lambda: chat.run(turn, recorder), database)
        return {
            "messages": count,
            "rows_read": rows,
            "first_word_s": recorder.first,
            "model_calls": len(model.requests),
        }
    finally:
        broker.stop()
        database.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 5_000, 50_000])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        results = [first_turn(count, Path(folder)) for count in sorted(args.sizes)]
    base = results[0]
    print(f"{'messages':>9} {'rows read':>10} {'ratio':>7} {'first word':>11} {'ratio':>7} calls")
    for result in results:
        rows = result["rows_read"] / base["rows_read"]
        first = result["first_word_s"] / base["first_word_s"]
        print(
            f"{result['messages']:>9} {result['rows_read']:>10} {rows:>7.1f}"
            f" {result['first_word_s']:>10.3f}s {first:>7.1f} {result['model_calls']:>5}"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
