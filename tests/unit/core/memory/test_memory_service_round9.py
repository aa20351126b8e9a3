"""Round 9: an embedding model of an odd size (300 dimensions, not a
multiple of 8) or one answering with vectors that cannot be stored never
costs a memory: odd sizes are stored and searched by meaning like any
other, and a memory whose vector is unusable is kept by its words."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np
import numpy.typing as npt
import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import Database, MemoryQuery
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker, Priority
from models.errors import ModelError
from tests.fakes import HashingEmbedder

Answer = Callable[[int], npt.NDArray[np.float32]]


class UnusableEmbedder:
    """An embedder whose every answer is *answer* (of the number of texts)."""

    name = "unusable"
    query_prefix = ""
    document_prefix = ""
    dimension = 384

    def __init__(self, answer: Answer) -> None:
        self._answer = answer

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._answer(len(texts))

    def close(self) -> None:
        pass


def _rows(count: int, width: int = 384, value: float = 0.05) -> npt.NDArray[np.float32]:
    return np.full((count, width), value, dtype=np.float32)


UNUSABLE: dict[str, Answer] = {
    "not-a-number": lambda n: _rows(n, value=float("nan")),
    "infinite": lambda n: _rows(n, value=float("inf")),
    "no-dimensions": lambda n: np.empty((n, 0), dtype=np.float32),
    "a-row-short": lambda n: _rows(max(n - 1, 0)),
    "a-row-too-many": lambda n: _rows(n + 1),
    "flat": lambda n: np.full(n * 384, 0.05, dtype=np.float32),
    "all-zero": lambda n: _rows(n, value=0.0),
}


def _fails(count: int) -> npt.NDArray[np.float32]:
    raise ModelError("the embeddings server went away")


UNUSABLE["fails"] = _fails  # kept before round 9 too: the same promise


@pytest.fixture
def serving(
    database: Database, prompts: PromptLibrary
) -> Iterator[Callable[[object], MemoryService]]:
    """A memory service over a broker whose embedder is the one given."""
    broker = InferenceBroker()
    broker.start()

    def serve(embedder: object) -> MemoryService:
        broker.load_embedder(lambda: embedder).result(timeout=5)
        return MemoryService.over(database, broker, prompts)

    yield serve
    broker.stop()


@pytest.mark.parametrize("dimension", [3, 300, 1001])
def test_an_embedder_of_any_size_stores_memories_found_by_meaning(
    serving: Callable[[object], MemoryService], dimension: int
) -> None:
    memories = serving(HashingEmbedder(dimension))

    tea = memories.remember(
        "The user likes green tea very much", source_kind="user_explicit", actor="user"
    ).memory
    cello = memories.remember(
        "The user plays the cello on Sundays", source_kind="user_explicit", actor="user"
    ).memory
    again = memories.remember(
        "The user likes green tea very much indeed", source_kind="harvested", actor="harvest"
    )

    assert tea.embedding_model == cello.embedding_model == "hashing"
    assert memories.store.without_vectors() == []
    assert again.outcome == "reinforced" and again.memory.id == tea.id
    query = memories.embed(["green tea"], Priority.USER, query=True)
    assert query is not None
    [hit] = memories.store.search_vector(query[0], 1)
    assert hit.memory.id == tea.id
    # The cosine is the model's own, whatever was added to store it.
    theirs = HashingEmbedder(dimension).embed(["green tea", tea.content])
    assert hit.score == pytest.approx(1.0 - float(theirs[0] @ theirs[1]), abs=1e-5)


@pytest.mark.parametrize("answer", UNUSABLE.values(), ids=UNUSABLE.keys())
def test_a_memory_whose_vector_is_unusable_is_kept_by_its_words(
    serving: Callable[[object], MemoryService], answer: Answer
) -> None:
    memories = serving(UnusableEmbedder(answer))

    remembered = memories.remember(
        "The user likes green tea very much", source_kind="user_explicit", actor="user"
    )
    harvested = memories.remember(
        "The user plays the cello on Sundays", source_kind="harvested", actor="harvest"
    )

    assert remembered.outcome == harvested.outcome == "added"
    assert remembered.memory.embedding_model is None
    assert [m.id for m in memories.browse(MemoryQuery(text="tea"))] == [remembered.memory.id]
    assert memories.embed_missing() == 0  # waits for a model that makes usable vectors
    assert len(memories.store.without_vectors()) == 2
