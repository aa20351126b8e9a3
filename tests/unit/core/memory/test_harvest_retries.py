"""A harvest that keeps getting unusable answers is tried again later,
differently, then skipped and said so; the user can ask for the skipped
part to be learned again.  The count survives a restart."""

from __future__ import annotations

import pytest

from desktop.core.base.jobs import JobControl
from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.db.migrations import MIGRATIONS
from desktop.core.memory.harvest import ATTEMPTS, RETRY_AFTER_HOURS, Harvester, HarvestFailed
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.errors import GenerationCancelled, ModelUnavailable
from models.interfaces import GenerationOptions
from tests.fakes import ScriptedChatModel
from tests.harvesters import Clock, harvest_answer, harvester_for, talk

HOUR = 3600.0


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
    return harvester_for(store, memories, broker, prompts, clock, harvest_after_messages=1)


def _watermark(store: ConversationStore, conversation_id: int) -> int | None:
    conversation = store.get(conversation_id)
    assert conversation is not None
    return conversation.harvested_through_message_id


def _numbers(options: GenerationOptions) -> list[int]:
    """The message numbers a harvest's answer may name: those it was shown."""
    assert options.json_schema is not None
    numbers: list[int] = options.json_schema["$defs"]["HarvestedFact"]["properties"]["messages"][
        "items"
    ]["enum"]
    return numbers


def _fail_until_skipped(harvester: Harvester, clock: Clock, model: ScriptedChatModel) -> None:
    """Every try of the harvest gets garbage, each at its retry time."""
    for hours in RETRY_AFTER_HOURS:
        model.queue("garbage")
        assert harvester.harvest_due() == []
        clock.now += hours * HOUR
    model.queue("garbage")


def test_an_unusable_answer_is_retried_later_not_at_once(
    harvester: Harvester, store: ConversationStore, clock: Clock, model: ScriptedChatModel
) -> None:
    conversation = store.create("c")
    talk(store, conversation.id, "I like tea a lot.")
    model.queue("garbage")

    with pytest.raises(HarvestFailed, match="again in 1 h"):
        harvester.harvest(conversation.id)

    assert harvester.due() == []
    clock.now += HOUR - 1
    assert harvester.due() == []
    clock.now += 1
    assert harvester.due() == [conversation.id]
    model.queue("still garbage")
    assert harvester.harvest_due() == []
    clock.now += RETRY_AFTER_HOURS[0] * HOUR
    assert harvester.due() == []  # the second failure waits longer
    clock.now += (RETRY_AFTER_HOURS[1] - RETRY_AFTER_HOURS[0]) * HOUR
    assert harvester.due() == [conversation.id]
    assert _watermark(store, conversation.id) is None


def test_a_retry_samples_and_reads_less_so_it_can_succeed(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
    model: ScriptedChatModel,
) -> None:
    harvester = harvester_for(
        store, memories, broker, prompts, clock, harvest_transcript_chars=2_000
    )
    conversation = store.create("c")
    said = talk(store, conversation.id, *[f"Thing {n}: " + "word " * 30 for n in range(12)])
    model.queue("garbage", harvest_answer(("The user mentioned thing number 0.", "other", [1])))

    with pytest.raises(HarvestFailed):
        harvester.harvest(conversation.id)
    report = harvester.harvest(conversation.id)

    first, retry = [o for _, o in model.requests]
    assert (first.temperature, first.seed) == (0.0, None)
    assert retry.temperature > 0 and retry.seed is not None
    first_shown, retry_shown = (len(_numbers(o)) for o in (first, retry))
    assert retry_shown < first_shown
    assert report is not None and [m.content for m in report.added] == [
        "The user mentioned thing number 0."
    ]
    assert report.through_message_id < said[-1].id  # the rest is read next time
    assert store.harvest_retry(conversation.id) is None


@pytest.mark.parametrize(
    "error", [GenerationCancelled("cut for a chat turn"), ModelUnavailable("no chat model")]
)
def test_a_failure_that_is_not_the_answers_fault_does_not_count(
    harvester: Harvester,
    store: ConversationStore,
    model: ScriptedChatModel,
    error: Exception,
) -> None:
    conversation = store.create("c")
    talk(store, conversation.id, "I like tea a lot.")
    model.queue(error)

    with pytest.raises(HarvestFailed):
        harvester.harvest(conversation.id)

    assert store.harvest_retry(conversation.id) is None
    assert harvester.due() == [conversation.id]


def test_a_harvest_stopped_before_it_reads_fails_and_does_not_count_as_a_try(
    harvester: Harvester, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = store.create("c")
    talk(store, conversation.id, "I like tea a lot.")
    control = JobControl()
    control.cancel()  # e.g. the user sent a message as the harvest started

    with pytest.raises(HarvestFailed):
        harvester.harvest(conversation.id, control)

    assert store.harvest_retry(conversation.id) is None and model.requests == []


def test_after_the_last_try_the_part_is_skipped_recorded_and_the_rest_goes_on(
    harvester: Harvester,
    store: ConversationStore,
    memories: MemoryService,
    clock: Clock,
    model: ScriptedChatModel,
) -> None:
    conversation = store.create("c")
    said = talk(store, conversation.id, "I like tea a lot.", "I grow tomatoes.")
    _fail_until_skipped(harvester, clock, model)

    [report] = harvester.harvest_due()

    gap = report.skipped
    assert gap is not None and report.added == ()
    assert (gap.first_message_id, gap.last_message_id) == (said[0].id, said[-1].id)
    assert gap.attempts == ATTEMPTS and "not usable" in gap.reason
    assert _watermark(store, conversation.id) == said[-1].id
    assert store.get(conversation.id).unlearned_parts == 1  # type: ignore[union-attr]
    assert store.harvest_gaps(conversation.id) == [gap]
    assert store.harvest_retry(conversation.id) is None
    assert memories.store.listed() == []

    later = talk(store, conversation.id, "I moved to Leeds last year.")
    model.queue(harvest_answer(("The user moved to Leeds last year.", "personal", [1])))
    [after] = harvester.harvest_due()
    assert [m.content for m in after.added] == ["The user moved to Leeds last year."]
    assert memories.store.sources(after.added[0].id).message_ids == (later[0].id,)


def test_the_count_of_failures_survives_a_restart(
    database: Database,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
    model: ScriptedChatModel,
) -> None:
    conversation = store.create("c")
    talk(store, conversation.id, "I like tea a lot.")
    model.queue("garbage", "garbage")
    before = harvester_for(store, memories, broker, prompts, clock, harvest_after_messages=1)
    with pytest.raises(HarvestFailed):
        before.harvest(conversation.id)

    with open_database(database.path) as reopened:
        after = harvester_for(
            ConversationStore(reopened),
            MemoryService.over(reopened, broker, prompts),
            broker,
            prompts,
            clock,
            harvest_after_messages=1,
        )
        assert after.due() == []
        clock.now += RETRY_AFTER_HOURS[0] * HOUR
        with pytest.raises(HarvestFailed, match="tried 2 of"):
            after.harvest(conversation.id)


def test_learn_again_reads_the_skipped_part_and_keeps_what_it_learns(
    harvester: Harvester,
    store: ConversationStore,
    memories: MemoryService,
    clock: Clock,
    model: ScriptedChatModel,
) -> None:
    conversation = store.create("c")
    said = talk(store, conversation.id, "I like tea a lot.", "I grow tomatoes.")
    _fail_until_skipped(harvester, clock, model)
    [skipped] = harvester.harvest_due()
    assert harvester.harvest_due() == []  # skipped: nothing is due by itself

    assert store.learn_again(conversation.id) == 1
    model.queue(harvest_answer(("The user grows tomatoes.", "personal", [3])))
    [report] = harvester.harvest_due()

    assert report.learned_again is not None and report.learned_again.id == skipped.skipped.id  # type: ignore[union-attr]
    [tomatoes] = report.added
    assert memories.store.sources(tomatoes.id).message_ids == (said[2].id,)
    assert store.harvest_gaps(conversation.id) == []
    assert store.get(conversation.id).unlearned_parts == 0  # type: ignore[union-attr]
    assert _watermark(store, conversation.id) == said[-1].id
    assert harvester.harvest_due() == []


def test_learning_again_that_fails_keeps_the_part_skipped_until_asked_again(
    harvester: Harvester, store: ConversationStore, clock: Clock, model: ScriptedChatModel
) -> None:
    conversation = store.create("c")
    talk(store, conversation.id, "I like tea a lot.")
    _fail_until_skipped(harvester, clock, model)
    harvester.harvest_due()
    store.learn_again(conversation.id)
    model.queue("garbage again")

    assert harvester.harvest_due() == []

    [gap] = store.harvest_gaps(conversation.id)
    assert gap.learn_again_at is None and gap.attempts == ATTEMPTS + 1
    assert harvester.harvest_due() == []  # not retried until the user asks
    assert [o.seed for _, o in model.requests][-1] == ATTEMPTS  # another seed than before


def test_migration_5_starts_every_conversation_fully_learned(database: Database) -> None:
    path = database.path.with_name("old.sqlite3")
    with open_database(path, migrations=MIGRATIONS[:4]) as old, old.transaction() as tx:
        tx.execute("INSERT INTO conversations (title, created_at, updated_at) VALUES ('old', 1, 1)")
    with open_database(path) as new:
        store = ConversationStore(new)
        [conversation] = store.list()
        assert conversation.unlearned_parts == 0
        assert store.harvest_gaps() == [] and store.harvest_retries() == {}
