"""Round 22: an embedding job says which model made its vectors.

The memories and messages store a vector under the name of the model that
made it.  They read the name of the model in use after the job answered,
or even before it was asked (a dream's merge): a switch of embedding model
in between kept one model's vectors under another's name.  The lane that
runs the job now records the embedder it ran on (``Job.made_by``), also
when a new one loaded mid-job embeds it all again.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from models.broker import EMBED_SLICE, InferenceBroker, Priority
from tests.fakes import HashingEmbedder, ScriptedChatModel, StepGate

TIMEOUT = 10.0


class OtherEmbedder(HashingEmbedder):
    name = "other"


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder()


@pytest.fixture
def broker(embedder: HashingEmbedder) -> Iterator[InferenceBroker]:
    broker = InferenceBroker()
    loads = [
        broker.load_chat_model(ScriptedChatModel),
        broker.load_embedder(lambda: embedder),
    ]
    broker.start()
    for load in loads:
        load.result(TIMEOUT)
    yield broker
    if isinstance(embedder.gate, StepGate):
        embedder.gate.open()
    broker.stop()


@pytest.mark.parametrize("priority", [Priority.USER, Priority.BACKGROUND])
def test_an_embedding_names_the_model_that_made_it_after_a_switch(
    broker: InferenceBroker, priority: Priority
) -> None:
    job = broker.embed(["the user keeps bees"], priority)
    job.result(TIMEOUT)

    broker.load_embedder(OtherEmbedder).result(TIMEOUT)

    assert (job.made_by, broker.embedder_name) == ("hashing", "other")


def test_a_job_embedded_again_on_a_new_model_loaded_mid_job_names_the_new_one(
    broker: InferenceBroker, embedder: HashingEmbedder
) -> None:
    gate = StepGate(1)
    embedder.gate = gate
    job = broker.embed([f"text {n}" for n in range(2 * EMBED_SLICE)], Priority.BACKGROUND)
    gate.wait_for_arrival(2)

    load = broker.load_embedder(OtherEmbedder)
    gate.open()

    load.result(TIMEOUT)
    job.result(TIMEOUT)
    assert job.preemptions == 1
    assert job.made_by == "other"
