"""Tests of hybrid retrieval on a real database, with the deterministic embedder."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest

from desktop.core.db import Database, Memory, MemoryStore
from desktop.core.memory.retrieval import MemoryRetriever
from tests.fakes import HashingEmbedder

NOW = 1_800_000_000.0


@pytest.fixture
def store(database: Database) -> MemoryStore:
    return MemoryStore(database, clock=lambda: NOW)


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder()


def _add(
    store: MemoryStore, embedder: HashingEmbedder | None, text: str, **extra: object
) -> Memory:
    vector = None if embedder is None else embedder.embed([text])[0]
    return store.add(text, embedding=vector, source_kind="harvested", actor="harvest", **extra)  # type: ignore[arg-type]  # test kwargs


def test_memories_found_by_words_and_by_meaning_are_fused(
    store: MemoryStore, embedder: HashingEmbedder
) -> None:
    both = _add(store, embedder, "Mara adopted a grey cat called Miso")
    words_only = _add(store, None, "The cat flap is broken")  # no vector: text search finds it
    _add(store, embedder, "The user works night shifts")
    retriever = MemoryRetriever(store, embedder.embed, clock=lambda: NOW)

    found = retriever.retrieve("is Miso my grey cat?", k=10)

    ids = [r.memory.id for r in found]
    assert ids[0] == both.id  # in both rankings: first
    assert words_only.id in ids
    assert all(a.score >= b.score for a, b in itertools.pairwise(found))


def test_k_limits_and_an_empty_query_finds_nothing(
    store: MemoryStore, embedder: HashingEmbedder
) -> None:
    for n in range(30):
        _add(store, embedder, f"fact {n} about running")
    retriever = MemoryRetriever(store, embedder.embed)

    assert len(retriever.retrieve("running", k=7)) == 7
    assert retriever.retrieve("   ") == []
    assert retriever.retrieve("running", k=0) == []


def test_the_user_message_outweighs_the_last_reply(
    store: MemoryStore, embedder: HashingEmbedder
) -> None:
    asked = _add(store, embedder, "Mara's favourite food is ramen")
    replied = _add(store, embedder, "Mara's marathon is in Berlin")
    retriever = MemoryRetriever(store, embedder.embed)

    found = retriever.retrieve("favourite food?", "Good luck in Berlin with the marathon!")

    assert [r.memory.id for r in found][:2] == [asked.id, replied.id]


def test_only_active_memories_of_the_category_come_back(
    store: MemoryStore, embedder: HashingEmbedder
) -> None:
    kept = _add(store, embedder, "tea with milk", category="preference")
    other = _add(store, embedder, "tea at five", category="routine")
    gone = _add(store, embedder, "tea without milk", category="preference")
    store.set_status(gone.id, "deleted", "user")
    retriever = MemoryRetriever(store, embedder.embed)

    everything = {r.memory.id for r in retriever.retrieve("tea milk")}
    preferences = [r.memory.id for r in retriever.retrieve("tea milk", category="preference")]

    assert everything == {kept.id, other.id}
    assert preferences == [kept.id]


def test_without_an_embedder_text_search_alone_works(store: MemoryStore) -> None:
    memory = _add(store, None, "The spare key is under the blue pot")

    found = MemoryRetriever(store, None).retrieve("where is the spare key")

    assert [r.memory.id for r in found] == [memory.id]


def test_words_that_tell_nothing_apart_find_nothing(store: MemoryStore) -> None:
    key = _add(store, None, "The spare key is under the blue pot")
    _add(store, None, "The cat is in the garden")
    for n in range(11):
        _add(store, None, f"Mara said something about week {n}")
    retriever = MemoryRetriever(store, None)

    # "where", "is", "the" are stopwords; "Mara" is in most memories.
    found = retriever.retrieve("Where is the spare key, Mara?")

    assert [r.memory.id for r in found] == [key.id]


def test_a_boost_can_lift_a_memory_just_below_the_last_place(
    store: MemoryStore, database: Database
) -> None:
    # Only the memories that a boost can still carry into the top k are
    # read whole; one ranked second by its words, pinned and fresh, must
    # still overtake a forgotten unimportant first.
    year_ago = MemoryStore(database, clock=lambda: NOW - 365 * 86400)
    first = _add(year_ago, None, "blue umbrella", importance=0.0)
    second = _add(store, None, "an old blue umbrella in the hall cupboard")
    store.set_pinned(second.id, True, "user")
    retriever = MemoryRetriever(store, None, clock=lambda: NOW)

    assert [r.memory.id for r in retriever.retrieve("blue umbrella", k=2)] == [
        second.id,
        first.id,
    ]
    assert [r.memory.id for r in retriever.retrieve("blue umbrella", k=1)] == [second.id]


def test_importance_and_recency_break_ties(store: MemoryStore) -> None:
    plain = _add(store, None, "umbrella in the car", importance=0.2)
    important = _add(store, None, "umbrella in the hall", importance=0.9)
    retriever = MemoryRetriever(store, None, clock=lambda: NOW)

    found = retriever.retrieve("umbrella")

    assert [r.memory.id for r in found] == [important.id, plain.id]


def test_importance_faded_by_dreaming_counts_not_the_given_one(store: MemoryStore) -> None:
    faded = _add(store, None, "umbrella in the hall", importance=0.9)
    kept = _add(store, None, "umbrella in the car", importance=0.5)
    with store.writing("dream:decay") as writes:
        writes.decay(faded.id, 0.1, NOW)
    retriever = MemoryRetriever(store, None, clock=lambda: NOW)

    found = retriever.retrieve("umbrella")

    assert [r.memory.id for r in found] == [kept.id, faded.id]


def test_a_message_naming_a_time_prefers_the_memories_seen_then(database: Database) -> None:
    """Two memories alike but for when they were learned: "in January"
    brings the one from January first, though recency favours the other;
    "last Friday" the one from then; turned off, recency decides."""
    utc = datetime(2026, 3, 11, 12, 0, tzinfo=UTC)  # a Wednesday
    clock = [datetime(2026, 1, 20, 9, 0, tzinfo=UTC).timestamp()]
    store = MemoryStore(database, clock=lambda: clock[0])
    january = _add(store, None, "The dentist said to floss more")
    clock[0] = datetime(2026, 3, 6, 18, 0, tzinfo=UTC).timestamp()  # last Friday
    friday = _add(store, None, "The dentist said to floss daily")

    def first(message: str, timed: bool = True) -> int:
        retriever = MemoryRetriever(store, None, clock=utc.timestamp, zone=lambda: UTC, timed=timed)
        return retriever.retrieve(message, k=2)[0].memory.id

    assert first("What did the dentist say in January?") == january.id
    assert first("What did the dentist say last Friday?") == friday.id
    assert first("What did the dentist say in January?", timed=False) == friday.id
