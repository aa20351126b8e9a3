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

And a query's embedding, a background slice or a token count a server took
and never answered could not be stopped: cancelling the job (Stop, or
Reverie quitting behind a chat turn waiting on it) changed nothing until the
server's time limit, ten minutes.  Now the lane cuts a server's call when
its job is cancelled or the broker stops, and the job ends cancelled,
without the server being reported down.

A server answering 429 (too many requests) or 408 was "refusing the
request", as if the request itself were wrong: the role's next backend was
never asked, and the chat failed though a fallback was there.  It is now
too busy to answer, for now: the next backend answers.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable

import pytest

from models.broker import EMBED_SLICE, Backend, InferenceBroker, Job, Priority, Role, RoleHealth
from models.errors import GenerationCancelled
from models.interfaces import ChatMessage, GenerationOptions
from models.server_chat import ServerChatModel
from models.server_embed import ServerEmbedder
from tests.fakes import HashingEmbedder, ScriptedChatModel, StepGate, eventually
from tests.unit.models.test_server_chat_round12 import (
    ScriptedServer,
    _models,
    _not_found,
    _silent,
)
from tests.unit.models.test_server_chat_round23 import _listing
from tests.unit.models.test_server_http_round23 import _answer

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

TIMEOUT = 10.0
BACKGROUND = Priority.BACKGROUND


class FirstServerEmbedder(HashingEmbedder):
    name = "on a server"


class OtherServerEmbedder(HashingEmbedder):
    name = "on the other server"


@pytest.mark.timeout(60)
def test_a_background_embedding_moved_to_another_server_mid_job_is_embedded_there_once() -> None:
    first, served = FirstServerEmbedder(), OtherServerEmbedder()
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


# -- stopping a call a server never answers ------------------------------------
def _embedding_server() -> ScriptedServer:
    return ScriptedServer({"/models": _models, "/embeddings": _silent})


def _counting_server() -> ScriptedServer:
    routes = {"/models": _listing("llamacpp"), "/props": _not_found, "/tokenize": _silent}
    return ScriptedServer(routes)


def _server_embedder(url: str) -> ServerEmbedder:
    return ServerEmbedder(url, "m", dimension=8)


def _server_chat(url: str) -> ServerChatModel:
    return ServerChatModel(url, "m", context_length=2048)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("serve", "role", "ask"),
    [
        (_embedding_server, Role.EMBEDDINGS, lambda broker: broker.embed(["hi"], query=True)),
        (_embedding_server, Role.EMBEDDINGS, lambda broker: broker.embed(["hi"], BACKGROUND)),
        (_counting_server, Role.CHAT, lambda broker: broker.count_tokens(["hi"])),
    ],
    ids=["a query's embedding", "a background embedding", "a token count"],
)
def test_a_call_a_server_took_and_never_answers_ends_at_once_when_stopped(
    serve: Callable[[], ScriptedServer],
    role: Role,
    ask: Callable[[InferenceBroker], Job],
) -> None:
    make = _server_embedder if role is Role.EMBEDDINGS else _server_chat
    broker = InferenceBroker()
    with serve() as server:
        load = broker.configure(
            role, [Backend("srv", lambda: make(server.url), label="srv", remote=True)]
        )
        broker.start()
        try:
            load.result(TIMEOUT)
            job = ask(broker)
            assert eventually(lambda: server.asked[-1:] in (["/v1/embeddings"], ["/tokenize"]))
            job.cancel()  # Stop pressed, or Reverie quitting

            with pytest.raises(GenerationCancelled):
                job.result(2.0)  # not when the server gives up (6 s), nor in 10 minutes
            # Stopped, not failed: the role's server is not reported down.
            assert broker.health(role).problem is None
        finally:
            broker.stop()


# -- a server too busy to answer -----------------------------------------------
def _busy(status: str) -> Callable[[socket.socket, threading.Event], None]:
    body = json.dumps({"error": {"message": "Rate limit reached, retry in 20s"}}).encode()
    return _answer(status, body)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("status", ["429 Too Many Requests", "408 Request Timeout"])
def test_a_reply_a_server_is_too_busy_to_give_is_given_by_the_next_backend(status: str) -> None:
    health: list[RoleHealth] = []
    broker = InferenceBroker(on_health=health.append)
    routes = {"/models": _models, "/chat/completions": _busy(status)}
    with ScriptedServer(routes) as server:
        remote = Backend(
            "srv",
            lambda: ServerChatModel(server.url, "m", dialect="openai"),
            label="srv",
            remote=True,
        )
        local = Backend(
            "small", lambda: ScriptedChatModel(["Here on this computer."]), label="small"
        )
        broker.start()
        try:
            broker.configure(Role.CHAT, [remote, local]).result(TIMEOUT)
            job = broker.chat([ChatMessage("user", "hi")], GenerationOptions(max_tokens=16))
            assert job.result(TIMEOUT) == "Here on this computer."
        finally:
            broker.stop()

    assert health[-1].served_by == "small"
    assert health[-1].problem is not None and "too busy to answer" in health[-1].problem
    assert "Rate limit reached" in health[-1].problem
