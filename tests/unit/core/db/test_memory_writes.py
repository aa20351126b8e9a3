"""Tests of desktop.core.db.memory_writes: several changes in one transaction,
and the changes dreaming needs (merges with their sources' history, decay,
supersession with an end of validity, restoring, taking a memory back)."""

from __future__ import annotations

import pytest

from desktop.core.db.connection import Database
from desktop.core.db.errors import QueryFailed
from desktop.core.db.memories import MemoryStore
from desktop.core.db.memory_rows import Memory, NewMemory
from tests.fakes import HashingEmbedder
from tests.unit.core.db.conftest import START, FakeClock


def _new(embedder: HashingEmbedder, content: str, **fields: object) -> NewMemory:
    return NewMemory(content, embedder.embed([content])[0], "harvested", **fields)  # type: ignore[arg-type]  # a test's loose fields


def _stored(store: MemoryStore, memory_id: int) -> Memory:
    memory = store.get(memory_id)
    assert memory is not None
    return memory


def _vector_status(db: Database, memory_id: int) -> object:
    """The status a search by meaning filters the memory's vector by (None: no vector)."""
    return db.fetch_value(
        "SELECT m.status FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id"
        " WHERE e.memory_id = ?",
        (memory_id,),
    )


def test_a_merged_memory_keeps_what_the_host_computed(
    memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    [memory_id] = memories.add_many(
        [
            _new(
                embedder,
                "The user has a dog called Rex.",
                first_seen_at=START - 500,
                last_seen_at=START - 10,
                reinforcement_count=7,
                pinned=True,
                source_message_ids=(3, 9),
            )
        ],
        actor="dream:dedup",
    )

    merged = _stored(memories, memory_id)
    assert (merged.created_at, merged.valid_from, merged.last_seen_at) == (
        START - 500,
        START - 500,
        START - 10,
    )
    assert (merged.reinforcement_count, merged.pinned, merged.updated_at) == (7, True, START)
    assert memories.sources(memory_id).message_ids == (3, 9)


def test_changes_in_one_transaction_land_together_or_not_at_all(
    db: Database, memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    first = memories.add_many([_new(embedder, "The user likes green tea.")], actor="harvest")[0]

    with pytest.raises(QueryFailed), db.transaction() as tx:
        writes = memories.writes_in(tx, "dream:dedup", dream_run_id=None)
        merged = writes.add(_new(embedder, "The user likes tea."))
        writes.set_status(first, "superseded", superseded_by=merged)
        tx.execute("INSERT INTO no_such_table VALUES (1)")  # a failure after both

    assert _stored(memories, first).status == "active"
    assert db.fetch_value("SELECT count(*) FROM memories") == 1
    assert [h.operation for h in memories.history(first)] == ["add"]


def test_superseding_can_end_validity_and_moves_the_vector_status(
    db: Database, memories: MemoryStore, embedder: HashingEmbedder, clock: FakeClock
) -> None:
    old, new = memories.add_many(
        [_new(embedder, "The user lives in Rome."), _new(embedder, "The user lives in Oslo.")],
        actor="harvest",
    )
    clock.advance(100)

    with memories.writing("dream:contradictions") as writes:
        writes.set_status(old, "superseded", superseded_by=new, valid_to=START + 50)

    loser = _stored(memories, old)
    assert (loser.status, loser.superseded_by, loser.valid_to) == ("superseded", new, START + 50)
    assert _vector_status(db, old) == "superseded"
    last = memories.history(old)[-1]
    assert (last.operation, last.actor) == ("supersede", "dream:contradictions")
    assert last.details == {
        "old_status": "active",
        "new_status": "superseded",
        "superseded_by": new,
        "valid_to": START + 50,
    }


def test_decay_changes_importance_but_not_when_it_was_last_changed(
    memories: MemoryStore, embedder: HashingEmbedder, clock: FakeClock
) -> None:
    [memory_id] = memories.add_many(
        [_new(embedder, "The user once visited Lyon.")], actor="harvest"
    )
    clock.advance(1000)

    with memories.writing("dream:decay") as writes:
        writes.decay(memory_id, 0.25, through=START + 900)

    memory = _stored(memories, memory_id)
    assert (memory.current_importance, memory.decayed_through, memory.updated_at) == (
        0.25,
        START + 900,
        START,
    )
    assert memory.importance == 0.5  # as it was given
    assert memories.history(memory_id)[-1].details == {
        "old_importance": 0.5,
        "new_importance": 0.25,
    }
    with pytest.raises(ValueError), memories.writing("dream:decay") as writes:
        writes.decay(memory_id, 1.5, through=START)


def test_a_memory_seen_again_no_longer_fades(
    memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    [memory_id] = memories.add_many(
        [_new(embedder, "The user once visited Lyon.")], actor="harvest"
    )
    with memories.writing("dream:decay") as writes:
        writes.decay(memory_id, 0.25, through=START)

    memories.reinforce(memory_id, "harvest")

    memory = _stored(memories, memory_id)
    assert (memory.current_importance, memory.faded_importance, memory.decayed_through) == (
        0.5,
        None,
        None,
    )


def test_restore_puts_back_what_a_dream_changed(
    db: Database, memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    old, new = memories.add_many(
        [_new(embedder, "The user drinks coffee."), _new(embedder, "The user drinks tea.")],
        actor="harvest",
    )
    before = _stored(memories, old)
    with memories.writing("dream:contradictions") as writes:
        writes.set_status(old, "superseded", superseded_by=new, valid_to=START)
        writes.decay(old, 0.2, through=START)

    with memories.writing("user") as writes:
        writes.restore(before)

    restored = _stored(memories, old)
    assert (restored.status, restored.superseded_by, restored.valid_to) == ("active", None, None)
    assert (restored.current_importance, restored.decayed_through) == (0.5, None)
    assert _vector_status(db, old) == "active"
    entry = memories.history(old)[-1]
    assert entry.operation == "restore" and entry.actor == "user"
    assert entry.details is not None and entry.details["restored"]["status"] == [
        "superseded",
        "active",
    ]


def test_a_memory_is_taken_back_only_when_nothing_points_at_it(
    db: Database, memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    source, merged = memories.add_many(
        [_new(embedder, "The user plays chess."), _new(embedder, "The user plays chess well.")],
        actor="harvest",
    )
    with memories.writing("dream:dedup") as writes:
        writes.set_status(source, "superseded", superseded_by=merged)

    with pytest.raises(ValueError, match="restore them first"), memories.writing("user") as w:
        w.remove(merged)
    assert memories.get(merged) is not None

    with memories.writing("user") as writes:
        writes.set_status(source, "active")
        writes.remove(merged)

    assert memories.get(merged) is None
    assert _vector_status(db, merged) is None
    assert memories.history(merged) == []
    assert [hit.memory.id for hit in memories.search_text("chess")] == [source]
