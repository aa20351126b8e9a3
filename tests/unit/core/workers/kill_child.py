"""A process running workers until it is killed, for the restart test
(``test_restart``):

    python -m tests.unit.core.workers.kill_child DATABASE JOURNAL

It spawns four workers in one conversation: "gather"; "draft", which calls
the ``note`` tool once (writing a line to *JOURNAL*, flushed) and then
waits for ever for its model's second answer; "join", waiting on both;
"digest", waiting for its time an hour on.  It runs "gather" to its end,
then "draft", and says ``ready`` on stdout once "draft" is stuck in the
middle of its run: that is where it is killed.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import WorkerSettings
from desktop.core.chat.tools.sub_sessions import SpawnCall
from desktop.core.chat.tools.toolbox import Tool, ToolContext, ToolResult
from desktop.core.db import ConversationStore, open_database
from desktop.core.db.workers import WorkerStore
from desktop.core.workers.service import ConversationReporter, Workers
from models.broker import InferenceBroker
from models.interfaces import ChatMessage
from tests.fakes import HashingEmbedder, ScriptedChatModel
from tests.unit.core.workers.conftest import BERLIN

NOTE_CALL = '<tool_call>{"name": "note", "arguments": {"text": "draft one"}}'
GATE_S = 3600.0


class Note(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str


def note_tool(journal: Path) -> Tool[Any]:
    """Writes each note to *journal* (flushed at once: a kill cannot take it back)."""

    def run(arguments: Note, context: ToolContext) -> ToolResult:
        with journal.open("a", encoding="utf-8") as handle:
            handle.write(arguments.text + "\n")
        return ToolResult(True, {"result": "noted"}, "noted")

    return Tool("note", Note, run)


class StuckInTheDraft(ScriptedChatModel):
    """Gathers at once; drafts with one note, then never answers again."""

    def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
        first = next(m.content for m in messages if m.role == "user")
        if "gather" in first:
            return "Gathered: three sources."
        if not any(m.role == "assistant" for m in messages):
            return NOTE_CALL
        print("ready", flush=True)
        threading.Event().wait()  # killed here
        raise AssertionError("unreachable")


def main(database_path: str, journal_path: str) -> None:
    database = open_database(Path(database_path))
    broker = InferenceBroker()
    broker.start()
    broker.load_chat_model(StuckInTheDraft).result(timeout=30)
    broker.load_embedder(HashingEmbedder).result(timeout=30)
    conversations = ConversationStore(database)
    conversation = conversations.create("plans")
    workers = Workers(
        WorkerStore(database),
        conversations,
        broker,
        PromptLibrary(Path(database_path).parent / "prompts"),
        ConversationReporter(conversations),
        tools=[note_tool(Path(journal_path))],
        settings=WorkerSettings(quiet_seconds=0),
        zone=lambda: BERLIN,
    )
    context = ToolContext(conversation.id)
    gather = workers.spawn(SpawnCall(objective="gather"), context)
    draft = workers.spawn(SpawnCall(objective="draft", tools=["note"]), context)
    workers.spawn(SpawnCall(objective="join", depends_on=[gather, draft]), context)
    later = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time() + GATE_S))
    workers.spawn(SpawnCall(objective="digest", not_before=later), context)
    workers.run_one(gather, lambda: False)
    workers.run_one(draft, lambda: False)


if __name__ == "__main__":
    main(*sys.argv[1:3])
