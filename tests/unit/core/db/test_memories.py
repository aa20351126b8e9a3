"""Tests of desktop.core.db.memories: every change reaches row, text index, vector and history."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from desktop.core.db import word_search
from desktop.core.db.connection import Database
from desktop.core.db.errors import DiskFull, QueryFailed, RowNotFound, UnusableVector
from desktop.core.db.memories import MemoryStore
from desktop.core.db.memory_rows import Memory, MemoryStatus, NewMemory, content_hash
from tests.fakes import HashingEmbedder
from tests.unit.core.db.conftest import START, FakeClock


def _add(store: MemoryStore, embedder: HashingEmbedder, content: str, **options: object) -> Memory:
    arguments: dict[str, object] = {
        "embedding": embedder.embed([content])[0],
        "source_kind": "harvested",
        "actor": "harvest",
        "embedding_model": embedder.name,
    }
    arguments.update(options)
    return store.add(content, **arguments)  # type: ignore[arg-type]  # a test's loose kwargs


def _counts(db: Database) -> dict[str, int]:
    """How many rows each memory table holds: they must move together."""
    tables = (
        "memories",
        "memory_embeddings",
        "memory_history",
        "memory_sources",
    )
    counts = {table: int(db.fetch_value(f"SELECT count(*) FROM {table}")) for table in tables}
    # Counting memories_fts itself would read the content table; the docsize
    # shadow table holds one row per indexed document.
    counts["memories_fts"] = int(db.fetch_value("SELECT count(*) FROM memories_fts_docsize"))
    return counts


def _vector_status(db: Database, memory_id: int) -> tuple[str, str] | None:
    """The status and category a search by meaning filters the memory's vector by."""
    row = db.fetch_one(
        "SELECT m.status, m.category FROM memory_embeddings e JOIN memories m"
        " ON m.id = e.memory_id WHERE e.memory_id = ?",
        (memory_id,),
    )
    return None if row is None else (row["status"], row["category"])


def _refuse_vector_of(db: Database, memory_id: int) -> None:
    """Make storing the vector of memory *memory_id* fail (a write that fails late)."""
    with db.transaction() as tx:
        tx.execute(
            "CREATE TEMP TRIGGER refuse_vector BEFORE INSERT ON main.memory_embeddings"
            f" WHEN new.memory_id = {int(memory_id)} BEGIN SELECT RAISE(ABORT, 'vector refused');"
            " END"
        )


def _text_ids(
    store: MemoryStore, query: str, limit: int = 10, status: MemoryStatus | None = "active"
) -> list[int]:
    return [hit.memory.id for hit in store.search_text(query, limit, status)]


# -- adding ------------------------------------------------------------------


def test_add_writes_row_text_vector_sources_and_history(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder
) -> None:
    memory = _add(
        memories,
        embedder,
        "Has a dog called Rex",
        category="pets",
        importance=0.8,
        source_message_ids=[10, 11],
        external_refs=["bench:session-1:turn-4"],
        flags=["instruction_like"],
    )

    assert memory == memories.get(memory.id)
    assert (memory.content, memory.category, memory.importance) == (
        "Has a dog called Rex",
        "pets",
        0.8,
    )
    assert (memory.status, memory.pinned, memory.reinforcement_count) == ("active", False, 1)
    assert memory.created_at == memory.last_seen_at == memory.valid_from == START
    assert memory.valid_to is None
    assert memory.content_hash == content_hash("has a  DOG called rex")
    assert (memory.embedding_model, memory.flags) == ("hashing", ("instruction_like",))
    assert _text_ids(memories, "rex") == [memory.id]
    assert _vector_status(db, memory.id) == ("active", "pets")
    sources = memories.sources(memory.id)
    assert sources.message_ids == (10, 11)
    assert sources.external_refs == ("bench:session-1:turn-4",)
    [entry] = memories.history(memory.id)
    assert (entry.operation, entry.actor, entry.new_content, entry.old_content) == (
        "add",
        "harvest",
        "Has a dog called Rex",
        None,
    )
    assert entry.created_at == START


def test_add_without_an_embedding_has_no_vector(memories: MemoryStore, db: Database) -> None:
    memory = memories.add(
        "Prefers tea",
        embedding=None,
        source_kind="user_explicit",
        actor="user",
        embedding_model="ignored without a vector",
    )

    assert _vector_status(db, memory.id) is None
    assert memory.embedding_model is None
    assert _text_ids(memories, "tea") == [memory.id]


def test_add_is_all_or_nothing_when_the_vector_insert_fails(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder
) -> None:
    kept = _add(memories, embedder, "Lives in Lyon")
    # The vector insert fails after the row, its text and sources were written.
    next_id = kept.id + 1
    _refuse_vector_of(db, next_id)
    before = _counts(db)

    with pytest.raises(QueryFailed, match="vector refused"):
        _add(memories, embedder, "Works as a baker", source_message_ids=[5], external_refs=["x"])

    assert _counts(db) == before
    assert memories.get(next_id) is None
    assert memories.history(next_id) == []
    assert _text_ids(memories, "baker") == []
    assert memories.sources(next_id).message_ids == ()


def test_an_embedding_of_the_wrong_size_is_refused_before_writing(
    memories: MemoryStore, db: Database
) -> None:
    before = _counts(db)

    with pytest.raises(UnusableVector) as caught:
        memories.add(
            "Short vector",
            embedding=np.ones(3, np.float32),
            source_kind="harvested",
            actor="harvest",
        )

    assert caught.value.dimensions == 3
    assert _counts(db) == before


@pytest.mark.parametrize(
    ("content", "options", "message"),
    [
        ("   ", {}, "needs some content"),
        ("Fine", {"actor": "somebody"}, "unknown actor"),
        ("Fine", {"actor": "dream:"}, "unknown actor"),
        ("Fine", {"importance": 1.2}, "importance"),
        ("Fine", {"embedding": np.full(384, np.nan, np.float32)}, "finite"),
    ],
)
def test_bad_arguments_are_refused_before_writing(
    memories: MemoryStore,
    db: Database,
    embedder: HashingEmbedder,
    content: str,
    options: dict[str, object],
    message: str,
) -> None:
    before = _counts(db)

    with pytest.raises(ValueError, match=message):
        _add(memories, embedder, content, **options)

    assert _counts(db) == before


def test_a_full_disk_loses_nothing_and_leaves_no_partial_memory(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder
) -> None:
    earlier = [_add(memories, embedder, f"Fact number {n}") for n in range(3)]
    before = _counts(db)
    db.set_pragma("max_page_count", int(db.pragma("page_count")) + 2)

    with pytest.raises(DiskFull, match="not saved"):
        _add(memories, embedder, "huge " * 200_000, source_message_ids=[1], external_refs=["r"])

    assert _counts(db) == before
    assert [memories.get(m.id) for m in earlier] == earlier
    assert _text_ids(memories, "huge") == []
    db.set_pragma("max_page_count", 1_000_000)  # space freed: writing works again
    assert _add(memories, embedder, "After the cleanup").status == "active"


# -- reading -----------------------------------------------------------------


def test_get_of_an_unknown_id_is_none(memories: MemoryStore) -> None:
    assert memories.get(12345) is None


def test_find_by_hash(memories: MemoryStore, embedder: HashingEmbedder) -> None:
    old = _add(memories, embedder, "Likes jazz")
    memories.set_status(old.id, "archived", "system")
    new = _add(memories, embedder, "likes  JAZZ")

    assert memories.find_by_hash(content_hash("Likes jazz")) == [new]
    assert [m.id for m in memories.find_by_hash(content_hash("likes jazz"), None)] == [
        new.id,
        old.id,
    ]
    assert memories.find_by_hash(content_hash("Likes blues")) == []


def test_search_text_ranks_and_filters_by_status(
    memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    both = _add(memories, embedder, "Walks the dog in the park")
    one = _add(memories, embedder, "Owns a park-side flat and a cat")
    archived = _add(memories, embedder, "Had a dog as a child, walked it in the park")
    memories.set_status(archived.id, "archived", "system")

    assert _text_ids(memories, "dog park") == [both.id, one.id]
    assert _text_ids(memories, "dog park", limit=1) == [both.id]
    assert _text_ids(memories, "dog", status="archived") == [archived.id]
    assert set(_text_ids(memories, "dog", status=None)) == {both.id, archived.id}


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        '"',
        '""',
        'say "hi',
        "*",
        "dog*",
        "AND",
        "dog AND",
        "OR NOT NEAR(",
        "(dog",
        "content: dog",
        "^dog",
        "-dog",
        "🐕🐕",
        "🐕 dog",
        "'; DROP TABLE memories; --",
        "\x00dog",
        "e\u0301te\u0301",
        "_",
        "___ dog",
        "word " * 200,
    ],
)
def test_search_text_never_raises_on_what_people_type(
    memories: MemoryStore, embedder: HashingEmbedder, query: str
) -> None:
    dog = _add(memories, embedder, "Walks the dog every day")

    found = _text_ids(memories, query)

    assert found in ([], [dog.id])
    assert ("dog" in query.lower()) == (found == [dog.id])


def test_search_text_leaves_out_stopwords(memories: MemoryStore, embedder: HashingEmbedder) -> None:
    key = _add(memories, embedder, "The spare key is under the blue pot")
    _add(memories, embedder, "The cat is in the garden")

    assert _text_ids(memories, "where is the spare key") == [key.id]
    assert _text_ids(memories, "what is it") == []


def test_search_text_leaves_out_a_word_most_memories_share(
    memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    # A name in most memories (as in "Mara: ..." lines) weighs nothing in
    # bm25, but searched for it would make every one of them a match.
    for n in range(12):
        _add(memories, embedder, f"Mara talked about topic {n}")
    dentist = _add(memories, embedder, "Mara's dentist is on Elm Street")
    other = _add(memories, embedder, "The dentist said to floss")

    assert set(_text_ids(memories, "Mara's dentist", limit=20)) == {dentist.id, other.id}
    # With nothing rarer to go by, the common word is searched after all.
    assert len(_text_ids(memories, "Mara", limit=20)) == 13


def test_search_text_skips_words_too_common_for_its_budget(
    memories: MemoryStore, embedder: HashingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(word_search, "TEXT_SEARCH_BUDGET", 5)
    for n in range(8):
        _add(memories, embedder, f"walked in the park, day {n}")
    for n in range(30):
        _add(memories, embedder, f"unrelated note {n}")
    bench = _add(memories, embedder, "a bench in the park")

    assert _text_ids(memories, "park bench") == [bench.id]


def test_search_text_finds_enough_memories_of_a_status_behind_better_others(
    memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    for n in range(30):
        archived = _add(memories, embedder, f"dog dog dog {n}")
        memories.set_status(archived.id, "archived", "system")
    active = [_add(memories, embedder, f"a dog named {name}") for name in ("Rex", "Bo", "Fido")]

    assert set(_text_ids(memories, "dog", limit=3)) == {m.id for m in active}
    assert len(_text_ids(memories, "dog", limit=3, status=None)) == 3


def test_search_vector_filters_inside_the_knn(
    memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    # Twenty archived memories sit right on the query; three active ones are
    # farther away.  Filtering after the KNN would return nothing.
    for n in range(20):
        archived = _add(memories, embedder, f"hiking in the mountains {n}")
        memories.set_status(archived.id, "archived", "system")
    active = [
        _add(memories, embedder, "hiking with friends on weekends"),
        _add(memories, embedder, "mountains make me calm"),
        _add(memories, embedder, "bought new boots for hiking trips abroad"),
    ]
    query = embedder.embed(["hiking in the mountains"])[0]
    nearest = memories.search_vector(query, k=3, status=None)
    assert {hit.memory.status for hit in nearest} == {"archived"}  # the premise

    hits = memories.search_vector(query, k=3)

    assert {hit.memory.id for hit in hits} == {m.id for m in active}
    assert all(hit.memory.status == "active" for hit in hits)
    assert [hit.score for hit in hits] == sorted(hit.score for hit in hits)
    assert len(memories.search_vector(query, k=3, status="archived")) == 3
    assert len(memories.search_vector(query, k=50, status=None)) == 23


def test_search_vector_filters_by_category(
    memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    _add(memories, embedder, "plays the piano", category="hobbies")
    work = _add(memories, embedder, "plays the piano at work events", category="work")

    hits = memories.search_vector(embedder.embed(["plays the piano"])[0], k=5, category="work")

    assert [hit.memory.id for hit in hits] == [work.id]


def test_search_vector_checks_its_arguments(
    memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    query = embedder.embed(["x"])[0]
    with pytest.raises(ValueError, match="k must be"):
        memories.search_vector(query, k=0)
    with pytest.raises(UnusableVector):
        memories.search_vector(np.ones(10, np.float32), k=1)
    assert memories.search_vector(np.ones(16, np.float32), k=1) == []  # another model's size
    assert memories.search_vector(query, k=5) == []


# -- changing ----------------------------------------------------------------


def test_reinforce_counts_and_records(
    memories: MemoryStore, embedder: HashingEmbedder, clock: FakeClock
) -> None:
    memory = _add(memories, embedder, "Runs on Sundays", source_message_ids=[1])
    clock.advance(3600)

    again = memories.reinforce(memory.id, "harvest", source_message_ids=[1, 2])

    assert again.reinforcement_count == 2
    assert again.last_seen_at == START + 3600
    assert again.created_at == START
    assert memories.sources(memory.id).message_ids == (1, 2)
    entry = memories.history(memory.id)[-1]
    assert (entry.operation, entry.actor, entry.details) == (
        "reinforce",
        "harvest",
        {"reinforcement_count": 2},
    )
    with pytest.raises(RowNotFound):
        memories.reinforce(999, "harvest")


def test_set_status_keeps_the_vector_metadata_in_step(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder
) -> None:
    memory = _add(memories, embedder, "Drives a red car", category="things")

    archived = memories.set_status(memory.id, "archived", "dream:decay")
    assert archived.status == "archived"
    assert _vector_status(db, memory.id) == ("archived", "things")

    restored = memories.set_status(memory.id, "active", "user")
    assert restored.status == "active"
    assert _vector_status(db, memory.id) == ("active", "things")

    operations = [(e.operation, e.actor, e.details) for e in memories.history(memory.id)]
    assert operations[1:] == [
        ("archive", "dream:decay", {"old_status": "active", "new_status": "archived"}),
        ("restore", "user", {"old_status": "archived", "new_status": "active"}),
    ]


def test_supersede_links_to_the_replacement(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder
) -> None:
    with db.transaction() as tx:
        run_id = tx.fetch_value(
            "INSERT INTO dream_runs (trigger, created_at) VALUES ('idle', ?) RETURNING id",
            (START,),
        )
    old = _add(memories, embedder, "Works at Acme")
    new = _add(memories, embedder, "Works at Globex since May")

    result = memories.set_status(
        old.id, "superseded", "dream:merge", superseded_by=new.id, dream_run_id=run_id
    )

    assert (result.status, result.superseded_by) == ("superseded", new.id)
    assert _vector_status(db, old.id) == ("superseded", "general")
    entry = memories.history(old.id)[-1]
    assert (entry.operation, entry.dream_run_id) == ("supersede", run_id)
    assert entry.details == {
        "old_status": "active",
        "new_status": "superseded",
        "superseded_by": new.id,
    }
    assert memories.set_status(old.id, "active", "user").superseded_by is None


def test_set_status_refuses_inconsistent_requests(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder
) -> None:
    memory = _add(memories, embedder, "Speaks Welsh")
    before = _counts(db)

    with pytest.raises(ValueError, match="superseded_by"):
        memories.set_status(memory.id, "superseded", "user")
    with pytest.raises(ValueError, match="superseded_by"):
        memories.set_status(memory.id, "archived", "user", superseded_by=memory.id)
    with pytest.raises(ValueError, match="itself"):
        memories.set_status(memory.id, "superseded", "user", superseded_by=memory.id)
    with pytest.raises(ValueError, match="unknown memory status"):
        memories.set_status(memory.id, "forgotten", "user")  # type: ignore[arg-type]  # the bad status is the point
    with pytest.raises(RowNotFound):
        memories.set_status(memory.id, "superseded", "user", superseded_by=999)
    with pytest.raises(RowNotFound):
        memories.set_status(999, "archived", "user")

    assert _counts(db) == before
    assert memories.get(memory.id) == memory


def test_update_content_replaces_text_vector_and_records_both_versions(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder, clock: FakeClock
) -> None:
    memory = _add(memories, embedder, "Has two cats")
    memories.set_status(memory.id, "archived", "system")
    clock.advance(60)
    new_text = "Has three cats and a parrot"

    updated = memories.update_content(
        memory.id, new_text, embedder.embed([new_text])[0], "dream:merge", embedding_model="v2"
    )

    assert (updated.content, updated.content_hash) == (new_text, content_hash(new_text))
    assert (updated.embedding_model, updated.updated_at) == ("v2", START + 60)
    assert _text_ids(memories, "parrot", status="archived") == [memory.id]
    assert _text_ids(memories, "two", status="archived") == []
    assert _vector_status(db, memory.id) == ("archived", "general")  # status survives
    [hit] = memories.search_vector(embedder.embed([new_text])[0], k=1, status="archived")
    assert hit.score == pytest.approx(0.0, abs=1e-5)
    entry = memories.history(memory.id)[-1]
    assert (entry.operation, entry.old_content, entry.new_content) == (
        "update",
        "Has two cats",
        new_text,
    )


def test_update_content_without_an_embedding_drops_the_stale_vector(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder
) -> None:
    memory = _add(memories, embedder, "Studies Spanish")

    updated = memories.update_content(memory.id, "Studies Portuguese", None, "user")

    assert _vector_status(db, memory.id) is None
    assert updated.embedding_model is None
    with pytest.raises(RowNotFound):
        memories.update_content(999, "anything", None, "user")


def test_pinning_is_recorded(memories: MemoryStore, embedder: HashingEmbedder) -> None:
    memory = _add(memories, embedder, "Birthday is 3 March")

    assert memories.set_pinned(memory.id, True, "user").pinned is True
    assert memories.set_pinned(memory.id, False, "tool").pinned is False
    assert [(e.operation, e.actor) for e in memories.history(memory.id)] == [
        ("add", "harvest"),
        ("pin", "user"),
        ("unpin", "tool"),
    ]
    with pytest.raises(RowNotFound):
        memories.set_pinned(999, True, "user")


def test_listed_puts_pinned_then_important_then_recent_first(
    memories: MemoryStore, embedder: HashingEmbedder, clock: FakeClock
) -> None:
    low = _add(memories, embedder, "low importance", importance=0.2)
    clock.advance(10)
    recent = _add(memories, embedder, "recent", importance=0.5)
    pinned = _add(memories, embedder, "pinned", importance=0.1)
    memories.set_pinned(pinned.id, True, "user")
    older = _add(memories, embedder, "older", importance=0.5)
    clock.advance(10)
    memories.reinforce(recent.id, "harvest")  # seen again: more recent than "older"
    gone = _add(memories, embedder, "gone")
    memories.set_status(gone.id, "deleted", "user")

    listed = memories.listed()

    assert [m.content for m in listed] == ["pinned", "recent", "older", "low importance"]
    assert [m.content for m in memories.listed("deleted")] == ["gone"]
    assert len(memories.listed(limit=2)) == 2
    assert low.id and older.id


# -- adding many -------------------------------------------------------------


def _new(embedder: HashingEmbedder, content: str, **options: Any) -> NewMemory:
    arguments: dict[str, Any] = {
        "embedding": embedder.embed([content])[0],
        "source_kind": "imported",
        "embedding_model": embedder.name,
    }
    arguments.update(options)
    return NewMemory(content, **arguments)


def test_add_many_stores_every_item_like_add_does(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder
) -> None:
    items = [
        _new(embedder, "Grew up in Porto", category="places", source_message_ids=(3, 4)),
        _new(embedder, "Allergic to peanuts", importance=0.9, external_refs=("bench:1",)),
        _new(embedder, "Calls her mother on Sundays", embedding=None, flags=("instruction_like",)),
    ]

    ids = memories.add_many(items, actor="dream:merge")

    assert ids == sorted(ids) and len(set(ids)) == 3
    stored = [memories.get(memory_id) for memory_id in ids]
    assert [(m.content, m.category, m.importance) for m in stored if m] == [
        ("Grew up in Porto", "places", 0.5),
        ("Allergic to peanuts", "general", 0.9),
        ("Calls her mother on Sundays", "general", 0.5),
    ]
    assert [m.embedding_model for m in stored if m] == ["hashing", "hashing", None]
    assert [m.flags for m in stored if m] == [(), (), ("instruction_like",)]
    assert [_vector_status(db, memory_id) for memory_id in ids] == [
        ("active", "places"),
        ("active", "general"),
        None,
    ]
    assert memories.sources(ids[0]).message_ids == (3, 4)
    assert memories.sources(ids[1]).external_refs == ("bench:1",)
    for memory_id, item in zip(ids, items, strict=True):
        [entry] = memories.history(memory_id)
        assert (entry.operation, entry.actor, entry.old_content, entry.new_content) == (
            "add",
            "dream:merge",
            None,
            item.content,
        )
    assert _text_ids(memories, "peanuts") == [ids[1]]


def test_add_many_stores_many_rows_in_one_call_and_their_vectors_are_searchable(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder
) -> None:
    before = _counts(db)
    contents = [f"memory number {n} about topic{n}" for n in range(300)]

    ids = memories.add_many(
        [_new(embedder, text, external_refs=(f"turn-{n}",)) for n, text in enumerate(contents)],
        actor="system",
    )

    assert len(ids) == 300
    added = {table: _counts(db)[table] - count for table, count in before.items()}
    assert added == {table: 300 for table in before}
    for n in (0, 149, 299):
        [hit] = memories.search_vector(embedder.embed([contents[n]])[0], k=1)
        assert hit.memory.id == ids[n]
        assert hit.score == pytest.approx(0.0, abs=1e-5)
        assert memories.sources(ids[n]).external_refs == (f"turn-{n}",)
        assert _text_ids(memories, f"topic{n}") == [ids[n]]


def test_add_many_of_nothing_writes_nothing(memories: MemoryStore, db: Database) -> None:
    before = _counts(db)

    assert memories.add_many([], actor="system") == []
    assert _counts(db) == before


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        ({"embedding": np.ones(3, np.float32)}, UnusableVector),
        ({"embedding": np.full(384, np.inf, np.float32)}, ValueError),
        ({"content": " \n "}, ValueError),
        ({"importance": -0.1}, ValueError),
    ],
)
def test_add_many_with_one_bad_item_stores_none_of_them(
    memories: MemoryStore,
    db: Database,
    embedder: HashingEmbedder,
    bad: dict[str, Any],
    error: type[Exception],
) -> None:
    before = _counts(db)
    good = [_new(embedder, f"good fact {n}") for n in range(4)]
    broken = replace(good[2], **bad)

    with pytest.raises(error):
        memories.add_many([*good[:2], broken, good[3]], actor="system")

    assert _counts(db) == before


def test_add_many_refuses_an_unknown_actor(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder
) -> None:
    before = _counts(db)

    with pytest.raises(ValueError, match="unknown actor"):
        memories.add_many([_new(embedder, "fine")], actor="someone")

    assert _counts(db) == before


def test_add_many_rolls_back_the_whole_batch_when_a_late_write_fails(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder
) -> None:
    kept = _add(memories, embedder, "Lives in Lyon")
    # The first two items are fully written when the third one's vector insert fails.
    third_id = kept.id + 3
    _refuse_vector_of(db, third_id)
    before = _counts(db)
    items = [_new(embedder, f"batch fact {n}", source_message_ids=(n,)) for n in range(5)]

    with pytest.raises(QueryFailed, match="vector refused"):
        memories.add_many(items, actor="harvest")

    assert _counts(db) == before
    assert _text_ids(memories, "batch") == []
    assert all(memories.get(kept.id + n) is None for n in range(1, 6))
