"""A whole dream with the real small models: SmolLM2 judges, MiniLM clusters."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from desktop.core.db import ConversationStore, Database, Memory
from desktop.core.db.skills import SkillStore
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.preferences import not_a_preference
from desktop.core.dreaming.tally import notes_of
from desktop.core.memory_service import MemoryService, lost_specifics, merge_problem
from desktop.core.prompts import PromptLibrary
from desktop.core.settings import DreamSettings
from desktop.core.skills import SkillLibrary
from models.broker import InferenceBroker
from models.interfaces import ChatMessage
from models.llama_chat import LlamaChatModel
from models.llama_embedder import LlamaEmbedder
from tests.dreams import add_memory, make_dreamer

DUPLICATES = [
    (
        "The user's cousin Ana moved to Porto in 2020.",
        "Ana, the user's cousin, moved to Porto in 2020.",
    ),
    ("The user works as a nurse at St Mary's hospital.", "The user is a nurse at St Mary's."),
]
CONTRADICTION = ("The user lives in Rome.", "The user lives in Oslo now.")
DISTINCT = [
    "The user's brother Tom lives in Leeds.",
    "The user is allergic to peanuts.",
    "The user runs 10 km every Sunday.",
    "The user's birthday is on 12 March.",
    "The user plays the cello in an orchestra.",
]


def _final(memories: MemoryService, memory: Memory) -> Memory:
    """Where a memory ended up: itself, or what replaced it, followed to the end."""
    current = memories.store.get(memory.id)
    while current is not None and current.status == "superseded" and current.superseded_by:
        current = memories.store.get(current.superseded_by)
    assert current is not None, f"#{memory.id} points at a memory that is gone"
    return current


@pytest.mark.model
@pytest.mark.slow
def test_a_dream_with_the_real_small_models_completes_and_loses_no_distinct_fact(
    fresh_smollm2: Callable[[], LlamaChatModel],
    minilm_path: Path,
    database: Database,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_chat_model(fresh_smollm2).result(timeout=60)
        broker.load_embedder(lambda: LlamaEmbedder(minilm_path)).result(timeout=60)
        memories = MemoryService.over(database, broker, prompts)
        planted = [add_memory(memories, text) for pair in DUPLICATES for text in pair]
        planted += [add_memory(memories, text) for text in CONTRADICTION]
        distinct = [add_memory(memories, text) for text in DISTINCT]
        dreamer = make_dreamer(
            database, memories, broker, prompts, tmp_path, DreamSettings(quiet_seconds=0)
        )
        asked: list[str] = []
        chat = broker.chat

        def recorded(messages: Sequence[ChatMessage], *rest: Any) -> Any:
            asked.append(messages[-1].content)
            return chat(messages, *rest)

        broker.chat = recorded  # type: ignore[method-assign,assignment]  # seeing what the model is asked

        report = dreamer.run("manual", DreamControl())

        assert report.run.status == "completed"
        # MiniLM puts "lives in Rome" and "lives in Oslo now" at 0.50: in the band
        assert any("Rome" in text and "Oslo" in text for text in asked)
        logged = {entry.pass_name for entry in dreamer.dreams.log_entries(report.run.id)}
        assert {"decay", "dedup", "contradictions", "stale", "preferences"} <= logged
        for memory in distinct:
            final = _final(memories, memory)
            assert final.status == "active", f"{memory.content!r} was {final.status}"
            assert lost_specifics([memory.content], final.content) == []
        for memory in planted:  # merged or replaced, never gone
            assert memories.store.get(memory.id) is not None
        for first, second in zip(planted[0:4:2], planted[1:4:2], strict=True):
            merged = _final(memories, first)
            assert merged.id != first.id and merged.id == _final(memories, second).id
            assert merge_problem([first.content, second.content], merged.content) is None
    finally:
        broker.stop()


SAID = [
    ("No, stop writing essays! Keep answers short.", "Shorter please.", "Keep it brief, thanks."),
    ("Don't call me buddy.", "Please don't call me buddy, use Sam.", "Call me Sam."),
    ("Answer in German please.", "Bitte auf Deutsch.", "German, please, not English."),
]


@pytest.mark.model
@pytest.mark.slow
def test_what_the_small_model_answers_beside_the_point_is_no_change_and_no_note(
    fresh_smollm2: Callable[[], LlamaChatModel],
    minilm_path: Path,
    database: Database,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    """SmolLM2 names message numbers ("1"), single words ("German") and numbered
    quotes ("1. no writing essays") as preferences, and skills with no steps:
    none of it may reach the report, as a change or as a note."""
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_chat_model(fresh_smollm2).result(timeout=60)
        broker.load_embedder(lambda: LlamaEmbedder(minilm_path)).result(timeout=60)
        memories = MemoryService.over(database, broker, prompts)
        conversations = ConversationStore(database)
        skills = SkillLibrary(SkillStore(database), tmp_path / "skills")
        dreamer = make_dreamer(
            database,
            memories,
            broker,
            prompts,
            tmp_path,
            DreamSettings(quiet_seconds=0),
            skills=skills,
        )
        for said in SAID:
            for title in ("one", "two"):  # twice: a request that recurs may become a skill
                conversation = conversations.create(title)
                for text in said:
                    conversations.add_message(conversation.id, "user", text)

            report = dreamer.run("manual", DreamControl())

            log = {e.pass_name: e.message for e in dreamer.dreams.log_entries(report.run.id)}
            assert notes_of(log["preferences"]) == "", log["preferences"]
            assert notes_of(log["skills"]) == "", log["skills"]
            for change in dreamer.dreams.changes(report.run.id):
                if change.kind == "add":
                    assert not_a_preference(change.payload["content"], []) == "", change.summary
                if change.kind == "skill_draft":
                    assert len(change.payload["text"].strip().splitlines()) > 1, change.summary
    finally:
        broker.stop()
