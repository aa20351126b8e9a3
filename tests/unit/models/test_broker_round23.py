"""Round 23 of issue 15 against the broker: a background embedding whose
role moved to a server while it ran.

A background embedding job (a harvest's, the message index's) runs in
slices and, between them, asks whether its embedder is still the role's.
When the embeddings had moved to another server meanwhile (or the same
server with a new API key: a new backend, so a new lane), that question
itself sent the job on to the new lane; the old lane, whose embedder stays
loaded until its thread ends, then queued it once more on its own, and ran
it again to send it on a second time.  The server
embedded every text twice and finished the job twice; a broker stopped in
between rewrote the job's outcome, long after its caller had it, as
cancelled.  Now a job sent on is the other lane's alone.
"""

from __future__ import annotations

import pytest

from models.broker import EMBED_SLICE, Backend, InferenceBroker, Priority, Role
from tests.fakes import HashingEmbedder, ScriptedChatModel, StepGate, eventually

TIMEOUT = 10.0
BACKGROUND = Priority.BACKGROUND


class ServerEmbedder(HashingEmbedder):
    name = "on a server"


class OtherServerEmbedder(HashingEmbedder):
    name = "on the other server"


@pytest.mark.timeout(60)
def test_a_background_embedding_moved_to_another_server_mid_job_is_embedded_there_once() -> None:
    first, served = ServerEmbedder(), OtherServerEmbedder()
    first.gate = gate = StepGate(1)
    broker = InferenceBroker()
    loads = [
        broker.load_chat_model(ScriptedChatModel),
        broker.configure(Role.EMBEDDINGS, [Backend("a", lambda: first, label="a", remote=True)]),
    ]
    broker.start()
    try:
        for load in loads:
            load.result(TIMEOUT)
        texts = [f"text {n}" for n in range(2 * EMBED_SLICE)]
        job = broker.embed(texts, BACKGROUND)
        gate.wait_for_arrival(2)  # its second slice, on the first server

        switch = broker.configure(
            Role.EMBEDDINGS, [Backend("b", lambda: served, label="b", remote=True)]
        )
        assert eventually(lambda: broker.backends(Role.EMBEDDINGS)[0].key == "b")
        gate.open()

        assert job.result(TIMEOUT).shape == (len(texts), served.dimension)
        switch.result(TIMEOUT)
    finally:
        gate.open()
        broker.stop()  # joins every lane: what the old one still held has run

    assert job.made_by == "on the other server" and job.error is None
    assert sum(map(len, served.calls)) == len(texts)  # each text once, on the server
