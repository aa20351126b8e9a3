"""Chat work done in a process of its own until it is killed, for the chat
kill loop (``test_chat_kills_round35``):

    python -m tests.unit.core.db.chat_kill_child DATABASE JOURNAL SEED

A random stream of what the user and the app do between dreams: chat turns
(the message, then the reply and its chips committed), memory edits through
the memory service, the background summary (``compact_idle``, which also
purges old archives), renames and restorable deletes of conversations.  Each
write is journalled as ``kill_child`` does (``begin``, then ``done`` once
committed); ``ready`` goes to stdout once the work is under way.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, ModelSettings
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.memory.service import MemoryService
from desktop.core.privacy import known_words
from models.broker import InferenceBroker
from tests.fakes import HashingEmbedder, Recorder, ScriptedChatModel
from tests.unit.core.db.kill_child import ROUNDS, Journal

SETTINGS = ChatSettings(keep_recent_messages=2, compaction_min_new_messages=2)
"""Summaries after a few turns, so kills land in them often."""


def _service(database: Database, broker: InferenceBroker, prompts: PromptLibrary) -> ChatService:
    return ChatService(
        ConversationStore(database),
        MemoryService.over(database, broker, prompts),
        broker,
        prompts,
        ModelSettings(),
        SETTINGS,
    )


def work(database: Database, journal: Journal, seed: int) -> None:
    chance = random.Random(seed)
    broker = InferenceBroker()
    broker.start()
    broker.load_chat_model(lambda: ScriptedChatModel(default="Noted, and summed up.")).result(10)
    broker.load_embedder(HashingEmbedder).result(timeout=10)
    prompts = PromptLibrary(database.path.parent / "prompts")
    chat = _service(database, broker, prompts)
    memories = MemoryService.over(database, broker, prompts)
    live = [c.id for c in chat.conversations()] or [chat.new_conversation().id]
    for memory in memories.store.listed(limit=1000):
        # Said as found: a write the last child began may have committed unconfirmed.
        journal.done(kind="found", id=memory.id, content=memory.content)
    known_words.load()  # as the app does at start: not in the first reply, where kills land
    print("ready", flush=True)
    for n in range(seed, seed + ROUNDS):
        operation = chance.choice(["turn", "turn", "turn", "edit", "compact", "rename", "delete"])
        conversation = chance.choice(live)
        if operation == "turn":
            text = f"Message {n}: my cousin number {n} plays the " + "oboe " * chance.randint(1, 9)
            journal.begin(kind="message", content=text)
            turn = chat.send(conversation, text)
            journal.done(kind="message", content=text)
            journal.begin(kind="reply", after=text)
            chat.run(turn, Recorder())
            journal.done(kind="reply", after=text)
        elif operation == "edit":
            listed = memories.store.listed(limit=50)
            if not listed:
                text = f"Memory {n}: the user's cousin plays the oboe."
                journal.begin(kind="add", content=text)
                added = memories.store.add(
                    text,
                    embedding=HashingEmbedder().embed([text])[0],
                    source_kind="user_explicit",
                    actor="user",
                    embedding_model=HashingEmbedder.name,
                )
                journal.done(kind="add", id=added.id, content=text)
                listed = [added]
            memory = chance.choice(listed)
            text = f"Memory {n}: the user's cousin number {n} plays the oboe."
            journal.begin(kind="update", id=memory.id, content=text)
            memories.edit(memory.id, text, expected=memory.content)
            journal.done(kind="update", id=memory.id, content=text)
        elif operation == "compact":
            journal.begin(kind="compact")
            chat.compact_idle(now=4_000_000_000.0)
            journal.done(kind="compact")
        elif operation == "rename":
            title = f"Cousins {n}"
            journal.begin(kind="rename", id=conversation, content=title)
            chat.rename(conversation, title)
            journal.done(kind="rename", id=conversation, content=title)
        elif len(live) > 1:
            live.remove(conversation)
            journal.begin(kind="conversation_delete", id=conversation)
            chat.delete(conversation)
            journal.done(kind="conversation_delete", id=conversation)
        else:
            live.append(chat.new_conversation().id)


def main(database_path: str, journal_path: str, seed: str) -> None:
    with (
        open_database(Path(database_path)) as database,
        Path(journal_path).open("a", encoding="utf-8") as handle,
    ):
        work(database, Journal(handle), int(seed))


if __name__ == "__main__":
    main(*sys.argv[1:4])
