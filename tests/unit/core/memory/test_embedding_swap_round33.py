"""Round 33 of issue 15: an embedding server swapped while Reverie was closed.

A server's model says the length of its vectors only once asked, so after a
start on a server now serving a model of another vector size (under the
name the stored vectors have) the length was not known: the upkeep on the
embedder's load found nothing to embed again, and nothing was done or said
until a search missed every memory.  The upkeep now asks the model first (one
short text, in the background); a server that is down is not taken for a
swap.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import Database
from desktop.core.memory.service import MemoryService
from models.broker import Backend, InferenceBroker, Role
from models.server_embed import ServerEmbedder
from tests.llama_server import API_KEY, EMBED_ALIAS, LlamaServer
from tests.unit.test_app_round11 import _free_port

pytestmark = [pytest.mark.model, pytest.mark.allow_hosts(["127.0.0.1"])]

TIMEOUT = 120.0
OLD_SIZE = 48
"""The stored vectors' length: another model's (what the tests' embedding server makes)."""


@pytest.fixture
def server_broker() -> Iterator[InferenceBroker]:
    broker = InferenceBroker()
    broker.start()
    yield broker
    broker.stop()


def _embeddings_on(broker: InferenceBroker, url: str, api_key: str | None = None) -> None:
    def load() -> ServerEmbedder:
        return ServerEmbedder(url, EMBED_ALIAS, api_key=api_key)

    broker.configure(Role.EMBEDDINGS, [Backend("srv", load, label="srv", remote=True)]).result(
        TIMEOUT
    )


def _memories_of_another_size(
    database: Database, broker: InferenceBroker, prompts: PromptLibrary
) -> MemoryService:
    memories = MemoryService.over(database, broker, prompts)
    for text in ("My bicycle is green.", "I grow tomatoes in the garden."):
        memories.store.add(
            text,
            embedding=np.ones(OLD_SIZE, np.float32),
            source_kind="user_explicit",
            actor="user",
            embedding_model=EMBED_ALIAS,
        )
    return memories


def _lengths(database: Database) -> list[int]:
    rows = database.fetch_all("SELECT length(embedding) / 4 FROM memory_embeddings ORDER BY 1")
    return [int(row[0]) for row in rows]


def test_vectors_of_another_size_are_made_again_by_the_upkeep_after_the_start(
    llama_server: LlamaServer,
    server_broker: InferenceBroker,
    database: Database,
    prompts: PromptLibrary,
) -> None:
    memories = _memories_of_another_size(database, server_broker, prompts)
    _embeddings_on(server_broker, llama_server.base_url, API_KEY)  # all-MiniLM: 384

    assert memories.embed_missing() == 2  # the upkeep the embedder's load starts
    assert _lengths(database) == [384, 384]
    assert memories.store.count_without_vectors() == 0


def test_a_server_down_at_the_start_is_not_taken_for_another_model(
    server_broker: InferenceBroker, database: Database, prompts: PromptLibrary
) -> None:
    memories = _memories_of_another_size(database, server_broker, prompts)
    _embeddings_on(server_broker, f"http://127.0.0.1:{_free_port()}/v1")

    assert memories.embed_missing() == 0
    assert _lengths(database) == [OLD_SIZE, OLD_SIZE]  # kept, found by words meanwhile
    assert memories.store.count_without_vectors() == 0
