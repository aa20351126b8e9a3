"""The harvest, with scripted model answers: when it runs, what it reads,
what it keeps, and that a failure changes nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import ConversationStore, Database
from desktop.core.memory.harvest import RETRY_AFTER_HOURS, Harvester, HarvestFailed
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.errors import ModelError
from models.llama_chat import LlamaChatModel
from tests.fakes import ScriptedChatModel
from tests.harvesters import Clock, harvest_answer, harvester_for, real_harvester, talk


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def harvester(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
) -> Harvester:
    return harvester_for(store, memories, broker, prompts, clock)


def _prompt_of(model: ScriptedChatModel) -> str:
    [harvest] = [m for m, o in model.requests if o.json_schema is not None]
    return harvest[-1].content


def test_facts_are_kept_with_their_provenance_and_the_watermark_moves(
    harvester: Harvester,
    store: ConversationStore,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    conversation = store.create("c")
    said = talk(store, conversation.id, "My sister Ines moved to Porto.", "I work as a nurse.")
    model.queue(
        harvest_answer(
            ("The user's sister Ines lives in Porto.", "people", [1]),
            ("The user works as a nurse.", "work", [3, 4]),
        )
    )

    report = harvester.harvest(conversation.id)

    assert report is not None
    assert [m.content for m in report.added] == [
        "The user's sister Ines lives in Porto.",
        "The user works as a nurse.",
    ]
    ines, nurse = report.added
    assert (ines.category, ines.source_kind) == ("people", "harvested")
    assert memories.store.sources(ines.id).message_ids == (said[0].id,)
    assert memories.store.sources(nurse.id).message_ids == (said[2].id, said[3].id)
    assert memories.store.history(ines.id)[0].actor == "harvest"
    assert store.get(conversation.id).harvested_through_message_id == said[-1].id  # type: ignore[union-attr]
    assert harvester.harvest(conversation.id) is None  # nothing new to read


def test_the_transcript_is_numbered_user_and_assistant_only(
    harvester: Harvester, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = store.create("c")
    store.add_message(conversation.id, "event", "[SYSTEM EVENT] a new conversation")
    store.add_message(conversation.id, "assistant", "Hi!", metadata={"kind": "seed"})
    talk(store, conversation.id, "I have two cats.")
    store.add_message(conversation.id, "tool", '{"result": "weather: sunny"}')
    model.queue(harvest_answer())

    harvester.harvest(conversation.id)

    prompt = _prompt_of(model)
    assert "[1] User: I have two cats.\n\n[2] Reverie: Noted: I have two cats." in prompt
    assert "SYSTEM EVENT" not in prompt and "sunny" not in prompt and "Hi!" not in prompt


def test_reverie_is_read_as_the_user_saw_it_without_its_tool_calls(
    harvester: Harvester, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = store.create("c")
    call = (
        '<tool_call>{"name": "remember", "arguments": {"text": "The user owns a boat"}}</tool_call>'
    )
    store.add_message(conversation.id, "user", "I have two cats.")
    store.add_message(conversation.id, "assistant", f"Lovely, I will remember.{call}")
    store.add_message(conversation.id, "assistant", call)
    model.queue(harvest_answer())

    harvester.harvest(conversation.id)

    prompt = _prompt_of(model)
    assert "[2] Reverie: Lovely, I will remember." in prompt
    assert "boat" not in prompt and "[3]" not in prompt


def test_the_schema_allows_only_the_message_numbers_shown(
    harvester: Harvester, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = store.create("c")
    talk(store, conversation.id, "I have two cats.")
    model.queue(harvest_answer())

    harvester.harvest(conversation.id)

    [schema] = [o.json_schema for _, o in model.requests if o.json_schema is not None]
    assert schema is not None
    fact = schema["$defs"]["HarvestedFact"]["properties"]
    assert fact["messages"]["items"]["enum"] == [1, 2]


def test_known_memories_are_shown_so_they_are_not_repeated(
    harvester: Harvester,
    store: ConversationStore,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    memories.remember("The user has two cats.", source_kind="user_explicit", actor="user")
    conversation = store.create("c")
    talk(store, conversation.id, "My two cats are called Tom and Kit.")
    model.queue(harvest_answer(("The user has two cats.", "personal", [1])))

    report = harvester.harvest(conversation.id)

    assert "Already known about the user:\n- The user has two cats." in _prompt_of(model)
    assert report is not None and [m.content for m in report.reinforced] == [
        "The user has two cats."
    ]
    assert report.added == ()


def test_junk_and_secrets_are_turned_away_one_by_one(
    harvester: Harvester, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = store.create("c")
    talk(store, conversation.id, "My bank PIN is 4821 and I love jazz.")
    model.queue(
        harvest_answer(
            ("The user loves jazz.", "preferences", [1]),
            ('{"pin": 4821}', "other", [1]),
            ("ok", "other", [1]),
            ("The user's bank PIN is 4821", "personal", [1]),
        )
    )

    report = harvester.harvest(conversation.id)

    assert report is not None
    assert [m.content for m in report.added] == [
        "The user loves jazz.",
        "The user's bank PIN is [redacted password]",
    ]
    assert [reason for _, reason in report.refused] == [
        "It is raw JSON data, not a fact.",
        "Too short to be a memory (under 10 characters).",
    ]


@pytest.mark.parametrize(
    "answer",
    [
        "not json at all",
        '{"facts": [{"fact": "The user likes tea.", "category": "food", "messages": [1]}]}',
        '{"facts": [{"fact": "The user likes tea.", "category": "other", "messages": [9]}]}',
        ModelError("the model crashed"),
    ],
)
def test_a_failed_harvest_stores_nothing_and_keeps_the_watermark(
    harvester: Harvester,
    store: ConversationStore,
    memories: MemoryService,
    model: ScriptedChatModel,
    answer: str | BaseException,
) -> None:
    conversation = store.create("c")
    talk(store, conversation.id, "I like tea.")
    model.queue(answer)

    with pytest.raises(HarvestFailed):
        harvester.harvest(conversation.id)

    assert memories.store.listed() == []
    assert store.get(conversation.id).harvested_through_message_id is None  # type: ignore[union-attr]


def test_off_the_record_conversations_are_never_read(
    harvester: Harvester, store: ConversationStore, model: ScriptedChatModel, clock: Clock
) -> None:
    conversation = store.create("secret", off_record=True)
    talk(store, conversation.id, *[f"Private thing number {n}." for n in range(25)])
    clock.now += 3600

    assert harvester.due() == []
    assert harvester.harvest(conversation.id) is None
    assert model.requests == []


def test_when_a_conversation_is_due(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
) -> None:
    harvester = harvester_for(store, memories, broker, prompts, clock)
    busy = store.create("busy")
    quiet = store.create("quiet")
    few = store.create("few")
    talk(store, busy.id, *[f"Busy message {n}." for n in range(20)])
    talk(store, quiet.id, *[f"Quiet message {n}." for n in range(5)])
    talk(store, few.id, *[f"Few message {n}." for n in range(4)])
    last = store.messages(busy.id)[-1].created_at

    clock.now = last + 60  # a minute later: only the one with 20 new messages
    assert harvester.due() == [busy.id]
    clock.now = last + 16 * 60  # quiet for 15 minutes: 5 new messages are enough, 4 are not
    assert set(harvester.due()) == {busy.id, quiet.id}


def test_a_long_message_is_cut_in_the_middle_and_the_transcript_capped(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
    model: ScriptedChatModel,
) -> None:
    harvester = harvester_for(
        store,
        memories,
        broker,
        prompts,
        clock,
        context_length=100_000,
        max_message_chars=1_000,
        harvest_transcript_chars=5_000,
    )
    conversation = store.create("c")
    paste = store.add_message(conversation.id, "user", "START " + "x" * 50_000 + " END")
    said = talk(store, conversation.id, *[f"Message {n} " + "y" * 900 for n in range(10)])
    model.queue(harvest_answer(), harvest_answer())

    report = harvester.harvest(conversation.id)

    prompt = _prompt_of(model)
    assert "[1] User: START" in prompt and " END" in prompt and "characters left out" in prompt
    assert len(prompt) < 8_000
    assert report is not None and paste.id < report.through_message_id < said[-1].id
    model.requests.clear()
    second = harvester.harvest(conversation.id)  # the rest, next time
    assert second is not None and second.through_message_id > report.through_message_id


def test_the_transcript_fits_the_models_context(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
    model: ScriptedChatModel,
) -> None:
    harvester = harvester_for(store, memories, broker, prompts, clock, context_length=1_400)
    conversation = store.create("c")
    said = talk(store, conversation.id, *[f"Fact {n}: " + "word " * 60 for n in range(12)])
    model.queue(harvest_answer())

    report = harvester.harvest(conversation.id)

    [(prompt, _)] = model.requests
    words = sum(len(m.content.split()) for m in prompt)  # the scripted model's tokens
    assert words <= 1_400 - 700
    assert report is not None and report.through_message_id < said[-1].id


def test_harvest_due_goes_on_after_one_fails(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
    model: ScriptedChatModel,
) -> None:
    harvester = harvester_for(store, memories, broker, prompts, clock, harvest_after_messages=1)
    first, second = store.create("a"), store.create("b")
    talk(store, first.id, "I like tea a lot.")
    talk(store, second.id, "I like coffee a lot.")
    model.queue("broken", harvest_answer(("The user likes coffee a lot.", "preferences", [1])))

    reports = harvester.harvest_due()

    assert [r.conversation_id for r in reports] == [second.id]
    assert harvester.due() == []  # the failed one waits for its retry
    clock.now += RETRY_AFTER_HOURS[0] * 3600
    assert harvester.due() == [first.id]


@pytest.mark.model
@pytest.mark.slow
def test_a_harvest_with_the_real_small_model_end_to_end(
    fresh_smollm2: Callable[[], LlamaChatModel],
    database: Database,
    store: ConversationStore,
    prompts: PromptLibrary,
    clock: Clock,
) -> None:
    """SmolLM2 answers under the schema; whatever it says is parsed, gated,
    stored with provenance from this conversation, and the watermark moves.
    A model this small tends to copy the prompt's example facts: the gate
    turns those away as echoes of the instructions."""
    with real_harvester(fresh_smollm2, database, store, prompts, clock) as (
        harvester,
        memories,
    ):
        conversation = store.create("c")
        said = talk(
            store,
            conversation.id,
            "My name is Priya and I live in Leeds.",
            "I have a dog called Biscuit.",
            "I work as a primary school teacher.",
        )

        report = harvester.harvest(conversation.id)

        assert report is not None and report.through_message_id == said[-1].id
        kept = [*report.added, *report.reinforced]
        # The answer parsed into facts that each reached the gate: kept, or turned away with why.
        assert kept or report.refused, "the model's answer held no fact at all"
        assert all(reason.strip() for _, reason in report.refused)
        ids = {m.id for m in said}
        for memory in kept:
            assert set(memories.store.sources(memory.id).message_ids) <= ids
            assert memory.source_kind in ("harvested", "user_explicit")
        assert len(memories.store.listed()) == len(report.added)
        assert not any("Mia" in m.content or "Oslo" in m.content for m in kept)
        assert store.get(conversation.id).harvested_through_message_id == said[-1].id  # type: ignore[union-attr]
