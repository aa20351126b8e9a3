"""An embedding role whose model changes size under the same name (round 31).

Vectors are stored under their model's name, and only the vectors of the
model in use are searched.  A file replaced by another model under the same
name (``embed.gguf``: all-MiniLM's 384 dimensions, then a model of 32), or a
server swapped under the same model name and address, makes vectors of
another size under the same name: they were searched with queries of the
new size, which found nothing, and never embedded again, since they had the
name in use.  Here the two models are real llama.cpp embedders: the
converted all-MiniLM and a tiny pooled one of 32 dimensions.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from gguf import GGUFValueType

from desktop.core.backends.library import ModelLibrary
from desktop.core.backends.roles import BackendMaker, RoleSwitch
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.secrets import SecretStore
from desktop.core.base.settings import Backend, ModelSettings
from desktop.core.db import ConversationStore, Database
from desktop.core.db.memories import MemoryStore
from desktop.core.memory.message_index import MessageIndexer
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker, Role
from models.catalog import load_catalog
from tests.embedding_server import MODEL, EmbeddingServer
from tests.fakes import MemoryKeyring
from tests.unit.models.tiny_gguf import tokenizer_metadata, write_tiny_gguf

TIMEOUT = 120.0
FACTS = (
    "My bicycle is kept in the garden shed",
    "My sister Ana lives in Lisbon",
    "I am allergic to penicillin",
)


Start = Callable[[], InferenceBroker]
"""A broker started afresh with the embedding role on ``embed.gguf``, as the app starts."""


@pytest.fixture
def embed(tmp_path: Path, minilm_path: Path) -> Path:
    """The file the embedding role names: all-MiniLM's 384 dimensions, for now."""
    return Path(shutil.copyfile(minilm_path, tmp_path / "embed.gguf"))


@pytest.fixture
def start(tmp_path: Path, embed: Path) -> Iterator[Start]:
    brokers: list[InferenceBroker] = []
    library = ModelLibrary(tmp_path / "models", load_catalog())
    settings = ModelSettings(embeddings=Backend(kind="local", model=str(embed)))

    def started() -> InferenceBroker:
        for running in brokers:
            running.stop()
        brokers.append(broker := InferenceBroker())
        broker.start()
        switch = RoleSwitch(broker, BackendMaker(library, SecretStore(MemoryKeyring())))
        switch.apply(settings)[Role.EMBEDDINGS].result(TIMEOUT)
        return broker

    yield started
    for broker in brokers:
        broker.stop()


def replace_with_a_smaller_model(embed: Path, smollm2_path: Path) -> None:
    """Another model under the same file name: a tiny real llama.cpp
    embedder of 32 dimensions (a model that pools)."""
    metadata = tokenizer_metadata(smollm2_path)
    metadata["llama.pooling_type"] = (1, GGUFValueType.UINT32, None)  # mean
    write_tiny_gguf(embed, metadata)


def test_a_model_of_another_size_under_the_same_name_embeds_every_memory_again(
    database: Database, start: Start, prompts: PromptLibrary, embed: Path, smollm2_path: Path
) -> None:
    memories = MemoryService.over(database, start(), prompts)
    for fact in FACTS:
        memories.remember(fact, source_kind="user_explicit", actor="user")
    assert memories.store.count_without_vectors() == 0
    size_before = database.fetch_value("SELECT DISTINCT length(embedding) FROM memory_embeddings")

    replace_with_a_smaller_model(embed, smollm2_path)
    broker = start()
    memories = MemoryService.over(database, broker, prompts)
    assert broker.embedder_name == "embed.gguf"  # the name the old vectors are stored under

    assert memories.store.count_without_vectors() == len(FACTS)  # was 0: never again
    assert memories.embed_missing() == len(FACTS)
    [[size_after]] = database.fetch_all("SELECT DISTINCT length(embedding) FROM memory_embeddings")
    assert (size_before, size_after) == (384 * 4, 32 * 4)
    query = memories.embed(["Where is my bicycle?"])
    assert query is not None
    found = memories.store.search_vector(query[0], k=3)
    assert {hit.memory.content for hit in found} == set(FACTS)  # was none


def test_messages_embedded_by_a_model_of_another_size_are_embedded_again(
    database: Database, start: Start, embed: Path, smollm2_path: Path
) -> None:
    conversations = ConversationStore(database)
    conversation = conversations.create("c")
    for fact in FACTS:
        conversations.add_message(conversation.id, "user", fact)
    assert MessageIndexer.over(database, start()).index_missing() == len(FACTS)

    replace_with_a_smaller_model(embed, smollm2_path)

    assert MessageIndexer.over(database, start()).index_missing() == len(FACTS)  # was 0
    sizes = database.fetch_all("SELECT DISTINCT length(embedding) FROM message_embeddings")
    assert [tuple(row) for row in sizes] == [(32 * 4,)]


def test_vectors_of_two_sizes_under_one_name_are_searched_by_the_querys_size(
    database: Database,
) -> None:
    # Past the exact pass's 32 candidates, the sign bits of both sizes were
    # loaded into one index: every search raised ValueError ("cannot reshape").
    store = MemoryStore(database, embedding_model=lambda: "embed")
    rng = np.random.default_rng(0)
    for number in range(40):
        add(store, f"an older fact {number}", rng.standard_normal(384))
    newer = add(store, "a newer fact", rng.standard_normal(32))

    found = store.search_vector(rng.standard_normal(32), k=3)

    assert [hit.memory.id for hit in found] == [newer]


def add(store: MemoryStore, text: str, vector: npt.NDArray[np.float64]) -> int:
    memory = store.add(
        text,
        embedding=vector.astype(np.float32),
        source_kind="user_explicit",
        actor="user",
        embedding_model="embed",
    )
    return memory.id


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    with EmbeddingServer(dimension=48) as running:
        yield running


def on_server(server: EmbeddingServer) -> InferenceBroker:
    broker = InferenceBroker()
    broker.start()
    maker = BackendMaker(
        ModelLibrary(Path("/nonexistent"), load_catalog()), SecretStore(MemoryKeyring())
    )
    settings = ModelSettings(embeddings=Backend(kind="server", url=server.base_url, model=MODEL))
    RoleSwitch(broker, maker).apply(settings)[Role.EMBEDDINGS].result(TIMEOUT)
    return broker


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_server_swapped_for_a_model_of_another_size_while_reverie_runs(
    database: Database, server: EmbeddingServer, prompts: PromptLibrary
) -> None:
    broker = on_server(server)
    try:
        memories = MemoryService.over(database, broker, prompts)
        for fact in FACTS:
            memories.remember(fact, source_kind="user_explicit", actor="user")
        server.dimension = 24  # another model, under the same name and address

        # Every call failed ("24-dimensional vectors where 48 were expected")
        # until Reverie was started again, and then nothing was found.
        query = memories.embed(["Where is my bicycle kept?"])
        assert query is not None and query.shape == (1, 24)
        assert memories.store.count_without_vectors() == len(FACTS)
        assert memories.embed_missing() == len(FACTS)
        found = memories.store.search_vector(query[0], k=1)
        assert [hit.memory.content for hit in found] == [FACTS[0]]
    finally:
        broker.stop()


@pytest.mark.allow_hosts(["127.0.0.1"])
@pytest.mark.parametrize("poison", [float("nan"), float("inf"), 0.0], ids=["nan", "inf", "zeros"])
def test_a_server_answering_with_poisoned_vectors_stores_none(
    database: Database, server: EmbeddingServer, prompts: PromptLibrary, poison: float
) -> None:
    server.poison = poison
    broker = on_server(server)
    try:
        memories = MemoryService.over(database, broker, prompts)
        memories.remember(FACTS[0], source_kind="user_explicit", actor="user")
        conversations = ConversationStore(database)
        conversations.add_message(conversations.create("c").id, "user", FACTS[1])

        assert MessageIndexer.over(database, broker).index_missing() == 0
        assert memories.embed_missing() == 0
        assert server.requests >= 3  # each was asked, and none of its answers kept
        assert database.fetch_value("SELECT count(*) FROM memory_embeddings") == 0
        assert database.fetch_value("SELECT count(*) FROM message_embeddings") == 0
        assert [m.content for m in memories.store.listed()] == [FACTS[0]]  # found by its words
    finally:
        broker.stop()
