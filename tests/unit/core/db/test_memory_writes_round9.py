"""Round 9 tests of desktop.core.db.memory_writes: a message counts once.

One message read by two readers (a dream's preference pass, then the
harvest of the same conversation) saw a fact once: reinforcing a memory
from a message that is already one of its sources does not count it again.
"""

from __future__ import annotations

from desktop.core.db import ConversationStore, Database
from desktop.core.db.memories import MemoryStore
from desktop.core.db.memory_rows import Memory, NewMemory
from tests.fakes import HashingEmbedder
from tests.unit.core.db.conftest import START, FakeClock


def _said_in(
    memories: MemoryStore, embedder: HashingEmbedder, text: str, message_ids: tuple[int, ...]
) -> int:
    item = NewMemory(text, embedder.embed([text])[0], "inferred", source_message_ids=message_ids)
    return memories.add_many([item], actor="dream:preferences")[0]


def _stored(memories: MemoryStore, memory_id: int) -> Memory:
    memory = memories.get(memory_id)
    assert memory is not None
    return memory


def test_a_message_already_a_source_does_not_reinforce_again(
    db: Database,
    memories: MemoryStore,
    conversations: ConversationStore,
    embedder: HashingEmbedder,
    clock: FakeClock,
) -> None:
    conversation = conversations.create("chat")
    said = conversations.add_message(conversation.id, "user", "No, stop using emojis.")
    memory_id = _said_in(memories, embedder, "The user wants answers without emojis.", (said.id,))
    clock.advance(3600)

    again = memories.reinforce(memory_id, "harvest", source_message_ids=[said.id])

    assert again.reinforcement_count == 1
    assert again.last_seen_at == START  # nothing new was seen
    assert [h.operation for h in memories.history(memory_id)] == ["add"]
    with db.transaction() as tx:
        counted = memories.writes_in(tx, "harvest").reinforce(memory_id, [said.id])
    assert counted is False
    assert _stored(memories, memory_id).reinforcement_count == 1


def test_a_new_message_among_known_ones_counts_once(
    memories: MemoryStore, embedder: HashingEmbedder, clock: FakeClock
) -> None:
    memory_id = _said_in(memories, embedder, "The user runs on Sundays.", (1,))
    clock.advance(60)

    again = memories.reinforce(memory_id, "harvest", source_message_ids=[1, 2])

    assert again.reinforcement_count == 2
    assert again.last_seen_at == START + 60
    assert memories.sources(memory_id).message_ids == (1, 2)
    assert (
        memories.reinforce(memory_id, "harvest", source_message_ids=[2, 1]).reinforcement_count == 2
    )


def test_a_known_external_source_does_not_count_again(
    memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    memory_id = _said_in(memories, embedder, "The user runs on Sundays.", ())
    assert (
        memories.reinforce(memory_id, "tool", external_refs=["notes.md"]).reinforcement_count == 2
    )

    again = memories.reinforce(memory_id, "tool", external_refs=["notes.md"])

    assert again.reinforcement_count == 2


def test_a_reinforcement_naming_no_source_still_counts(
    memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    # Nothing says which message it came from, so nothing says it was counted.
    memory_id = _said_in(memories, embedder, "The user runs on Sundays.", (1,))

    assert memories.reinforce(memory_id, "user").reinforcement_count == 2
