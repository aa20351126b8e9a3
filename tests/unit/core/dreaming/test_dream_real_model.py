"""A whole dream with the real small models: SmolLM2 judges, MiniLM clusters."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.base.text_fold import normalised
from desktop.core.db import ConversationStore, Database, DreamChange, Memory, NewMemory
from desktop.core.db.skills import SkillStore
from desktop.core.db.tally import notes_of
from desktop.core.db.tasks import TaskStore
from desktop.core.dreaming.contradictions import ContradictionPass
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.dreaming.evidence import lost_specifics as lost_skill_specifics
from desktop.core.dreaming.evidence import supports
from desktop.core.dreaming.passes import DreamPass
from desktop.core.dreaming.preferences import PreferencePass, not_a_preference
from desktop.core.dreaming.skill_review import SkillPass
from desktop.core.dreaming.task_review import TaskPass
from desktop.core.memory.service import MemoryService, lost_specifics, merge_problem
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
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


# -- one pass at a time: what the host guards whatever SmolLM2 answers -------------
@dataclass
class RealPass:
    """A dreamer running one pass with the real small models."""

    dreamer: Dreamer
    memories: MemoryService
    conversations: ConversationStore

    def run(self) -> tuple[int, str, list[DreamChange]]:
        """A dream: its id, the pass's logged outcome and its changes."""
        report = self.dreamer.run("manual", DreamControl())
        assert report.run.status == "completed"
        [entry] = self.dreamer.dreams.log_entries(report.run.id)
        return report.run.id, entry.outcome, self.dreamer.dreams.changes(report.run.id)


@pytest.fixture
def real_broker(
    fresh_smollm2: Callable[[], LlamaChatModel], minilm_path: Path
) -> Iterator[InferenceBroker]:
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_chat_model(fresh_smollm2).result(timeout=60)
        broker.load_embedder(lambda: LlamaEmbedder(minilm_path)).result(timeout=60)
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def one_pass(
    real_broker: InferenceBroker, database: Database, prompts: PromptLibrary, tmp_path: Path
) -> Callable[..., RealPass]:
    def make(
        dream_pass: DreamPass,
        *,
        tasks: TaskService | None = None,
        skills: SkillLibrary | None = None,
        library: PromptLibrary | None = None,
    ) -> RealPass:
        memories = MemoryService.over(database, real_broker, prompts)
        dreamer = Dreamer(
            database,
            memories,
            real_broker,
            library or prompts,
            DreamSettings(quiet_seconds=0),
            [dream_pass],
            snapshots_dir=tmp_path / "snapshots",
            working_set_file=tmp_path / "MEMORIES.md",
            tasks=tasks,
            skills=skills,
        )
        return RealPass(dreamer, memories, ConversationStore(database))

    return make


def _said(conversations: ConversationStore, *texts: str) -> None:
    conversation = conversations.create("chat")
    for text in texts:
        conversations.add_message(conversation.id, "user", text)


EAGER_TASKS = """<!-- section: instructions -->
Every task below is finished. Answer with one "complete" action for each task, like \
{"actions": [{"task": 1, "action": "complete", "evidence": "..."}]}.

<!-- section: input -->
The tasks:
{tasks}

What the user said recently:
{messages}
"""
"""A user's own copy of the task prompt that pushes SmolLM2 (which otherwise
answers no actions at all) to complete every task, quoting anything."""


@pytest.mark.model
@pytest.mark.slow
def test_real_task_review_never_completes_a_task_the_user_did_not_say_was_done(
    one_pass: Callable[..., RealPass], database: Database, tmp_path: Path
) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "DREAM_TASK_PROMPT.txt").write_text(EAGER_TASKS, encoding="utf-8")
    tasks = TaskService(TaskStore(database), ZoneInfo("UTC"))
    made = [tasks.add(text, conversation_id=None) for text in ("File the taxes", "Buy milk")]
    conversations = ConversationStore(database)
    dreaming = one_pass(
        TaskPass(tasks, conversations), tasks=tasks, library=PromptLibrary(tmp_path / "prompts")
    )
    _said(conversations, "Tell me a joke.", "How tall is the Eiffel tower?")

    run_id, outcome, changes = dreaming.run()

    assert outcome != "rolled_back"  # under its grammar the answer is well-formed
    assert [tasks.get(t.id).status for t in made] == ["active", "active"]  # type: ignore[union-attr]
    [entry] = dreaming.dreamer.dreams.log_entries(run_id)
    assert changes or "was left open" in entry.message  # it did try: the guard held
    for change in changes:  # a quote found but naming no task only waits
        assert change.kind == "task_complete" and change.status == "pending", change.summary
        quote = normalised(str(change.payload["evidence"])).strip("\"'“”.!?")
        assert any(
            quote in normalised(text)
            for text in ("Tell me a joke.", "How tall is the Eiffel tower?")
        )


DEPLOY = (
    "Deploy the blog\n"
    "1. Build it with `hugo --minify` in ~/blog.\n"
    "2. Upload with `rsync -av public/ web:/var/www/blog`.\n"
    "3. Open https://blog.example.org/health and wait 30 seconds.\n"
    "Be careful: the server is old and slow, so never hurry, and always look twice "
    "at what the build printed before you upload anything at all. " * 4
)


@pytest.mark.model
@pytest.mark.slow
def test_a_real_skill_condense_keeps_every_command_or_waits(
    one_pass: Callable[..., RealPass], database: Database, tmp_path: Path
) -> None:
    skills = SkillLibrary(SkillStore(database), tmp_path / "skills")
    blog = skills.create("deploy-blog", DEPLOY)
    original = skills.read(blog.id).text
    dreaming = one_pass(SkillPass(skills, ConversationStore(database)), skills=skills)

    _, outcome, changes = dreaming.run()

    assert outcome != "rolled_back"
    now = skills.read(blog.id).text
    assert lost_skill_specifics([original], now) == []  # applied or not, nothing is lost
    for change in changes:
        assert change.kind == "skill_rewrite"
        lost = lost_skill_specifics([original], str(change.payload["text"]))
        assert not lost or change.status == "pending", (change.status, lost)
        assert change.payload.get("lost", []) == lost


@pytest.mark.model
@pytest.mark.slow
def test_real_preferences_are_kept_only_when_messages_say_them_often_or_firmly(
    one_pass: Callable[..., RealPass], database: Database
) -> None:
    conversations = ConversationStore(database)
    dreaming = one_pass(PreferencePass(conversations))
    # SmolLM2 calls "two plus two" a strong correction, shown by the first message.
    _said(conversations, "Answer me like a pirate, it is fun.", "What is two plus two?")

    _, outcome, changes = dreaming.run()

    assert outcome != "rolled_back"
    asked = {m.id: m.content for m in conversations.user_messages_since(0.0)}
    for change in changes:  # pending or applied: neither is a correction, so two messages
        assert change.kind == "add"
        sources = [asked[int(i)] for i in change.payload["message_ids"]]
        assert len(set(sources)) >= 2, (change.summary, sources)
        assert all(supports(str(change.payload["content"]), text) for text in sources)


def _told(memories: MemoryService, content: str) -> Memory:
    """A memory the user told Reverie themselves, with its vector."""
    vectors = memories.embed([content])
    assert vectors is not None
    item = NewMemory(content, vectors[0], "user_explicit", embedding_model=memories.embedding_model)
    [memory_id] = memories.store.add_many([item], actor="user")
    memory = memories.store.get(memory_id)
    assert memory is not None
    return memory


@pytest.mark.model
@pytest.mark.slow
def test_a_real_contradiction_never_lets_an_inferred_memory_replace_what_the_user_said(
    one_pass: Callable[..., RealPass],
) -> None:
    dreaming = one_pass(ContradictionPass())
    told = _told(dreaming.memories, "The user lives in Rome.")
    heard = add_memory(dreaming.memories, "The user lives in Oslo now.")

    _, outcome, changes = dreaming.run()

    assert outcome != "rolled_back"
    assert dreaming.memories.store.get(told.id).status == "active"  # type: ignore[union-attr]
    for change in changes:
        if change.kind == "supersede":
            assert change.payload == {
                "memory": heard.id,
                "by": told.id,
                "valid_to": told.created_at,
            }
        if change.kind == "merge":
            merged = str(change.payload["content"])
            assert "Rome" in merged and "Oslo" in merged, merged
