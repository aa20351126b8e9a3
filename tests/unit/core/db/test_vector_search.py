"""Tests of search by meaning: sign bits in memory, exact re-scoring, catching up with changes."""

from __future__ import annotations

import numpy as np
import pytest

from desktop.core.db.connection import Database
from desktop.core.db.memories import MemoryStore
from desktop.core.db.memory_rows import NewMemory
from desktop.core.db.sign_index import SignIndex, _swar_popcount, popcount
from desktop.core.db.vector_search import MIN_CANDIDATES
from tests.fakes import HashingEmbedder
from tests.unit.core.db.conftest import FakeClock


def _add_many(store: MemoryStore, embedder: HashingEmbedder, texts: list[str]) -> list[int]:
    vectors = embedder.embed(texts)
    items = [
        NewMemory(text, vector, "imported", embedding_model=embedder.name)
        for text, vector in zip(texts, vectors, strict=True)
    ]
    return store.add_many(items, actor="system")


def _nearest(store: MemoryStore, embedder: HashingEmbedder, text: str, k: int = 3) -> list[int]:
    return [hit.memory.id for hit in store.search_vector(embedder.embed([text])[0], k)]


def _exact(db: Database, embedder: HashingEmbedder, text: str, k: int) -> list[float]:
    """The *k* smallest distances, by brute force over every active memory's vector."""
    rows = db.fetch_all(
        "SELECT e.memory_id, e.embedding FROM memory_embeddings e"
        " JOIN memories m ON m.id = e.memory_id WHERE m.status = 'active'"
    )
    query = embedder.embed([text])[0]
    return sorted(1.0 - float(np.frombuffer(row[1], np.float32) @ query) for row in rows)[:k]


@pytest.fixture
def texts() -> list[str]:
    colours = ["red", "green", "blue", "amber", "violet", "grey", "black", "white"]
    things = ["kite", "bike", "scarf", "mug", "lamp", "boat", "chair", "coat", "drum", "vase"]
    places = ["attic", "garden", "office", "garage"]
    return [f"the {c} {t} in the {p}" for c in colours for t in things for p in places]


def test_the_nearest_memories_come_back_in_order_of_exact_distance(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder, texts: list[str]
) -> None:
    _add_many(memories, embedder, texts)  # 320 memories: candidates come from sign bits
    assert len(texts) > 4 * MIN_CANDIDATES

    for query in ("the blue kite in the garden", "an amber lamp", "a grey boat in the attic"):
        hits = memories.search_vector(embedder.embed([query])[0], k=5)

        # Many of these memories are equally near: the distances must be the
        # exact best ones, whichever of the equals is picked.
        assert [hit.score for hit in hits] == pytest.approx(
            _exact(db, embedder, query, 5), abs=1e-6
        )
    [same] = memories.search_vector(embedder.embed([texts[7]])[0], k=1)
    assert same.memory.content == texts[7]
    assert same.score == pytest.approx(0.0, abs=1e-6)


def test_filters_choose_the_candidates_so_k_come_back(
    memories: MemoryStore, embedder: HashingEmbedder, texts: list[str]
) -> None:
    # 100 archived memories sit right on the query; the active ones are
    # farther and more than the sign-bit pass hands on.
    for n in range(100):
        archived = _add_many(memories, embedder, [f"hiking in the mountains {n}"])[0]
        memories.set_status(archived, "archived", "system")
    active = set(_add_many(memories, embedder, texts[:80]))

    hits = memories.search_vector(embedder.embed(["hiking in the mountains"])[0], k=3)

    assert len(hits) == 3
    assert {hit.memory.id for hit in hits} <= active


def test_a_search_sees_what_another_store_changed(
    db: Database, clock: FakeClock, embedder: HashingEmbedder, texts: list[str]
) -> None:
    searcher, writer = MemoryStore(db, clock=clock), MemoryStore(db, clock=clock)
    ids = _add_many(writer, embedder, texts[:60])
    assert _nearest(searcher, embedder, texts[10], 1) == [ids[10]]  # loaded now

    writer.set_status(ids[10], "archived", "user")
    new = writer.add(
        "a purple kite on the roof",
        embedding=embedder.embed(["a purple kite on the roof"])[0],
        source_kind="user_explicit",
        actor="user",
    )
    writer.update_content(
        ids[11], "a silver trumpet", embedder.embed(["a silver trumpet"])[0], "user"
    )

    assert ids[10] not in _nearest(searcher, embedder, texts[10], 5)
    assert _nearest(searcher, embedder, "a purple kite on the roof", 1) == [new.id]
    assert _nearest(searcher, embedder, "a silver trumpet", 1) == [ids[11]]
    assert ids[11] not in _nearest(searcher, embedder, texts[11], 3)


def test_a_search_sees_changes_made_in_sql(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder, texts: list[str]
) -> None:
    ids = _add_many(memories, embedder, texts[:60])
    assert _nearest(memories, embedder, texts[5], 1) == [ids[5]]

    with db.transaction() as tx:
        tx.execute("UPDATE memories SET status = 'deleted' WHERE id = ?", (ids[5],))
        tx.execute("DELETE FROM memory_embeddings WHERE memory_id = ?", (ids[6],))

    found = _nearest(memories, embedder, texts[5], 10)
    assert ids[5] not in found
    assert ids[6] not in _nearest(memories, embedder, texts[6], 10)


def test_a_search_reloads_when_it_is_too_far_behind(
    db: Database, clock: FakeClock, embedder: HashingEmbedder, texts: list[str]
) -> None:
    searcher, writer = MemoryStore(db, clock=clock), MemoryStore(db, clock=clock)
    first = _add_many(writer, embedder, texts[:20])
    assert _nearest(searcher, embedder, texts[0], 1) == [first[0]]
    # More changes than are worth patching one by one, then the log loses
    # its oldest entries as if it had been pruned.
    later = _add_many(writer, embedder, texts[20:])
    with db.transaction() as tx:
        tx.execute(
            "DELETE FROM memory_vector_changes"
            " WHERE seq < (SELECT max(seq) FROM memory_vector_changes)"
        )
    writer.set_status(first[1], "archived", "user")

    assert _nearest(searcher, embedder, texts[300], 1) == [later[280]]
    assert first[1] not in _nearest(searcher, embedder, texts[1], 5)


def test_search_by_meaning_without_vectors_finds_nothing(
    memories: MemoryStore, embedder: HashingEmbedder
) -> None:
    memories.add("no vector here", embedding=None, source_kind="imported", actor="system")

    assert memories.search_vector(embedder.embed(["no vector here"])[0], k=3) == []
    assert memories.rank_by_meaning(embedder.embed(["x"])[0], 3, statuses=()) == []


def _row(
    memory_id: int, bits: int, status: str = "active", category: str = "general"
) -> tuple[int, bytes, str, str]:
    return memory_id, bits.to_bytes(16, "little"), status, category


def test_the_sign_index_patches_in_place_keeps_ids_ordered_and_compacts() -> None:
    index = SignIndex()
    index.load([_row(1, 0b1111), _row(3, 0b0111), _row(5, 0b0011)], seen=(7, b"t7"))
    query = (0b1111).to_bytes(16, "little")
    assert index.nearest(query, 3, ("active",), None) == [1, 3, 5]

    # 2 is an older memory given a vector late; 3 lost its vector; 5 moved.
    index.update([2, 3, 5], [_row(2, 0b1110), _row(5, 0b1111, category="pets")], seen=(9, b"t9"))

    assert index.seen == (9, b"t9")
    assert len(index) == 3
    assert sorted(index.nearest(query, 2, ("active",), None)) == [1, 5]
    assert index.nearest(query, 3, ("active",), "pets") == [5]
    assert index.nearest(query, 3, ("archived",), None) == []
    assert set(index.nearest(query, 1, (), None)) <= {1, 5}
    index.update([1], [], seen=(10, b"t10"))  # half gone now: compacted
    assert len(index) == 2
    assert sorted(index.nearest(query, 5, (), None)) == [2, 5]


def test_an_index_of_one_memory_takes_a_change_to_it() -> None:
    index = SignIndex()  # one memory, as after the very first /remember
    index.load([_row(1, 0b0001)], seen=(1, b"t1"))
    index.update([1], [_row(1, 0b1111, category="pets")], seen=(2, b"t2"))
    index.update([4], [_row(4, 0b0001)], seen=(3, b"t3"))  # and a second memory
    index.update([4], [_row(4, 0b0011)], seen=(4, b"t4"))

    query = (0b1111).to_bytes(16, "little")
    assert index.nearest(query, 1, ("active",), "pets") == [1]
    assert index.nearest(query, 2, ("active",), None) == [1, 4]


def test_sign_bits_of_any_length_compare() -> None:
    index = SignIndex()
    index.load(
        [(1, b"\xff\x00\x0f", "active", "g"), (2, b"\x00\x00\x00", "active", "g")], (0, None)
    )

    assert index.nearest(b"\xff\x00\x0f", 1, (), None) == [1]
    assert index.nearest(b"\x00\x00\x01", 1, (), None) == [2]


def test_an_unknown_status_or_category_matches_nothing() -> None:
    index = SignIndex()
    index.load([_row(n, n) for n in range(1, 50)], (0, None))
    query = (0).to_bytes(16, "little")

    assert index.nearest(query, 5, ("forgotten",), None) == []
    assert index.nearest(query, 5, ("active",), "nowhere") == []
    # The memories with one bit set are the six nearest to no bits at all.
    assert sorted(index.nearest(query, 6, ("forgotten", "active"), None)) == [1, 2, 4, 8, 16, 32]


def test_the_sign_index_needs_no_numpy_bitwise_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    index = SignIndex()
    index.load([_row(n, n) for n in range(1, 50)], (0, None))

    assert sorted(index.nearest((0).to_bytes(16, "little"), 6, (), None)) == [1, 2, 4, 8, 16, 32]


def test_the_portable_popcount_counts_like_numpy() -> None:
    words = np.random.default_rng(3).integers(0, 2**63, size=(50, 6), dtype=np.uint64)
    words[0, 0] = np.uint64(2**64 - 1)

    assert np.array_equal(_swar_popcount(words), popcount(words).astype(np.uint64))
    assert int(_swar_popcount(words)[0, 0]) == 64


def test_a_change_seen_inside_a_transaction_that_rolls_back_is_forgotten(
    memories: MemoryStore, db: Database, embedder: HashingEmbedder, texts: list[str]
) -> None:
    _add_many(memories, embedder, texts[:100])
    # The real memory is near many others, the ghost near none: sign bits
    # left from the ghost would not put the real one among the candidates.
    ghost_text, real_text = "zebra quantum xylophone", "the red kite and bike in the attic"
    with pytest.raises(RuntimeError), db.transaction() as tx:
        writes = memories.writes_in(tx, "user")
        ghost = NewMemory(ghost_text, embedder.embed([ghost_text])[0], "user_explicit")
        writes.add(ghost, writes.blob(embedder.embed([ghost_text])[0]))
        # Searching inside the transaction sees the uncommitted memory...
        assert len(_nearest(memories, embedder, ghost_text, 1)) == 1
        raise RuntimeError("rolled back")
    # ...and the next change takes the same memory id and log number.
    real = memories.add(
        real_text,
        embedding=embedder.embed([real_text])[0],
        source_kind="user_explicit",
        actor="user",
    )

    assert _nearest(memories, embedder, real_text, 1) == [real.id]
    [hit] = memories.search_vector(embedder.embed([real_text])[0], k=1)
    assert hit.memory.content == real_text
    assert memories.search_vector(embedder.embed([ghost_text])[0], k=1)[0].score == pytest.approx(
        1.0
    )
