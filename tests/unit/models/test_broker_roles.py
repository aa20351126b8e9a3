"""Tests of the broker's roles: a backend for each role, server lanes beside
the local one, fallbacks, switching models between jobs, and health reports.

Scripted fakes stand in for the models ("remote" ones are fakes on a lane of
their own); generations are held with a ``StepGate``, never a sleep.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from models.broker import RETRY_AFTER_S, Backend, InferenceBroker, Priority, Role, RoleHealth
from models.errors import GenerationCancelled, ModelFileInvalid, ModelUnavailable
from models.interfaces import ChatMessage, GenerationOptions
from tests.fakes import (
    ForkableChatModel,
    HashingEmbedder,
    ScriptedChatModel,
    StepGate,
    eventually,
)

TIMEOUT = 10.0
OPTIONS = GenerationOptions(temperature=0.0)
BACKGROUND = Priority.BACKGROUND


def _say(text: str) -> list[ChatMessage]:
    return [ChatMessage("user", text)]


def _local(key: str, model: object) -> Backend:
    return Backend(key, lambda: model, label=f"local {key}")


def _server(key: str, model: object) -> Backend:
    return Backend(key, lambda: model, label=f"server {key}", remote=True)


class ServerDown(ScriptedChatModel):
    """A server backend that cannot be reached (as the server client raises it)."""

    name = "down"

    def __init__(self) -> None:
        super().__init__([ModelUnavailable("Connection refused at http://127.0.0.1:9.")] * 20)


@pytest.fixture
def health() -> list[RoleHealth]:
    return []


@pytest.fixture
def broker(health: list[RoleHealth]) -> Iterator[InferenceBroker]:
    broker = InferenceBroker(on_health=health.append)
    broker.start()
    yield broker
    broker.stop()


def test_a_role_on_a_server_runs_beside_a_busy_local_lane(broker: InferenceBroker) -> None:
    local = ScriptedChatModel(default="local reply")
    remote = ScriptedChatModel(default="dream answer")
    broker.configure(Role.CHAT, [_local("chat", local)]).result(TIMEOUT)
    broker.configure(Role.BACKGROUND, [_server("bg", remote)]).result(TIMEOUT)
    gate = local.gate = StepGate()
    reply = broker.chat(_say("hi"), OPTIONS)
    gate.wait_for_arrival(1)  # the local lane is busy with the user's reply

    dream = broker.chat(_say("dream"), OPTIONS, BACKGROUND)

    assert dream.result(TIMEOUT) == "dream answer"
    assert not reply.done()
    gate.open()
    assert reply.result(TIMEOUT) == "local reply"
    assert [m[-1].content for m, _ in remote.requests] == ["dream"]


def test_background_work_on_a_server_is_not_held_while_the_user_chats() -> None:
    held = threading.Event()  # never set: the user is always mid-turn
    broker = InferenceBroker(background_allowed=held.is_set)
    broker.start()
    try:
        broker.configure(Role.CHAT, [_local("chat", ScriptedChatModel())]).result(TIMEOUT)
        remote = ScriptedChatModel(default="harvested")
        broker.configure(Role.BACKGROUND, [_server("bg", remote)]).result(TIMEOUT)
        local_embed = broker.embed(["a fact"], BACKGROUND)

        assert broker.chat(_say("harvest"), OPTIONS, BACKGROUND).result(TIMEOUT) == "harvested"
        assert not local_embed.done()  # local background work still waits
    finally:
        broker.stop()


def test_background_follows_the_chat_until_given_its_own(broker: InferenceBroker) -> None:
    chat = ForkableChatModel(default="from chat")
    broker.configure(Role.CHAT, [_local("chat", chat)]).result(TIMEOUT)

    assert broker.chat(_say("dream"), OPTIONS, BACKGROUND).result(TIMEOUT) == "from chat"
    assert len(chat.forks) == 1  # on a fork: the chat's prompt cache is left alone
    assert broker.backends(Role.BACKGROUND) == broker.backends(Role.CHAT)
    own = ScriptedChatModel(default="own")
    broker.configure(Role.BACKGROUND, [_local("other", own)]).result(TIMEOUT)

    assert broker.chat(_say("dream"), OPTIONS, BACKGROUND).result(TIMEOUT) == "own"
    assert chat.forks[0].closed  # the fork nothing uses any more is freed
    assert not chat.closed


def test_background_on_the_chats_own_model_shares_it_through_a_fork(
    broker: InferenceBroker,
) -> None:
    loads: list[str] = []
    chat = ForkableChatModel()

    def load() -> ForkableChatModel:
        loads.append("loaded")
        return chat

    same = Backend("qwen.gguf@4096", load, label="Qwen")
    broker.configure(Role.CHAT, [same]).result(TIMEOUT)
    broker.configure(Role.BACKGROUND, [same]).result(TIMEOUT)

    broker.chat(_say("dream"), OPTIONS, BACKGROUND).result(TIMEOUT)

    assert loads == ["loaded"]  # one set of weights
    assert len(chat.forks) == 1


def test_a_server_that_is_down_falls_back_to_the_next_backend(
    broker: InferenceBroker, health: list[RoleHealth]
) -> None:
    fallback = ScriptedChatModel(default="answered locally")
    broker.configure(Role.CHAT, [_server("box", ServerDown()), _local("small", fallback)]).result(
        TIMEOUT
    )

    assert broker.chat(_say("hi"), OPTIONS).result(TIMEOUT) == "answered locally"
    assert health[0].problem is not None and "server box" in health[0].problem
    assert "Connection refused" in health[0].problem
    assert health[-1].served_by == "local small"


def test_no_fallback_once_the_user_saw_part_of_the_reply(broker: InferenceBroker) -> None:
    class CutOff(ScriptedChatModel):
        def stream(self, messages, options, should_stop=None):  # type: ignore[no-untyped-def]
            yield from list(super().stream(messages, options, should_stop))[:1]
            raise ModelUnavailable("The server closed the connection mid-reply.")

    fallback = ScriptedChatModel(default="other")
    broker.configure(
        Role.CHAT, [_server("box", CutOff(default="half a reply")), _local("small", fallback)]
    ).result(TIMEOUT)
    job = broker.chat(_say("hi"), OPTIONS)

    seen: list[str] = []
    with pytest.raises(ModelUnavailable, match="mid-reply"):
        seen.extend(chunk.text for chunk in job.chunks(TIMEOUT))
    assert seen == ["half "]
    assert fallback.requests == []  # never started over elsewhere


def test_when_every_backend_fails_the_job_fails_with_the_last_reason(
    broker: InferenceBroker, health: list[RoleHealth]
) -> None:
    broker.configure(Role.CHAT, [_server("a", ServerDown()), _server("b", ServerDown())]).result(
        TIMEOUT
    )

    with pytest.raises(ModelUnavailable, match="Connection refused"):
        broker.chat(_say("hi"), OPTIONS).result(TIMEOUT)
    assert [h.problem is not None for h in health] == [True]


def test_a_role_that_answers_again_clears_its_problem(
    broker: InferenceBroker, health: list[RoleHealth]
) -> None:
    flaky = ScriptedChatModel([ModelUnavailable("Timed out.")], default="back")
    broker.configure(Role.CHAT, [_server("box", flaky)]).result(TIMEOUT)

    with pytest.raises(ModelUnavailable):
        broker.chat(_say("hi"), OPTIONS).result(TIMEOUT)
    assert broker.chat(_say("hi"), OPTIONS).result(TIMEOUT) == "back"

    assert [h.problem for h in health] == ["server box: Timed out.", None]
    assert broker.health(Role.CHAT).problem is None


def test_embeddings_never_fall_back(broker: InferenceBroker) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        broker.configure(Role.EMBEDDINGS, [_local("a", HashingEmbedder()), _local("b", object())])


def test_a_failed_load_keeps_the_old_backends(broker: InferenceBroker) -> None:
    old = ScriptedChatModel(default="old")
    broker.configure(Role.CHAT, [_local("old", old)]).result(TIMEOUT)

    def broken() -> ScriptedChatModel:
        raise ModelFileInvalid("qwen.gguf is truncated.")

    with pytest.raises(ModelFileInvalid):
        broker.configure(Role.CHAT, [Backend("new", broken)]).result(TIMEOUT)

    assert broker.chat(_say("hi"), OPTIONS).result(TIMEOUT) == "old"
    assert not old.closed


def test_one_failed_load_of_several_keeps_the_old_and_frees_the_new(
    broker: InferenceBroker,
) -> None:
    old, loaded = ScriptedChatModel(default="old"), ScriptedChatModel(default="new")
    broker.configure(Role.CHAT, [_local("old", old)]).result(TIMEOUT)

    def broken() -> ScriptedChatModel:
        raise ModelFileInvalid("bad")

    with pytest.raises(ModelFileInvalid):
        broker.configure(Role.CHAT, [_local("new", loaded), Backend("bad", broken)]).result(TIMEOUT)

    assert loaded.closed
    assert broker.chat(_say("hi"), OPTIONS).result(TIMEOUT) == "old"


def test_switching_to_a_server_moves_queued_jobs_and_frees_the_local_model(
    broker: InferenceBroker,
) -> None:
    local = ScriptedChatModel(default="local")
    broker.configure(Role.CHAT, [_local("small", local)]).result(TIMEOUT)
    gate = local.gate = StepGate()
    running = broker.chat(_say("first"), OPTIONS)
    gate.wait_for_arrival(1)
    queued = broker.chat(_say("second"), OPTIONS)  # waits behind the first
    remote = ScriptedChatModel(default="remote")

    switched = broker.configure(Role.CHAT, [_server("box", remote)])
    assert eventually(lambda: broker.backends(Role.CHAT)[0].label == "server box")
    gate.open()

    assert running.result(TIMEOUT) == "local"
    assert queued.result(TIMEOUT) == "remote"
    assert switched.result(TIMEOUT) == "scripted"
    assert local.closed
    assert broker.backends(Role.CHAT)[0].label == "server box"


def test_jobs_sent_while_the_first_model_loads_wait_for_it() -> None:
    broker = InferenceBroker()
    broker.start()
    try:
        arrived = threading.Event()
        release = threading.Event()

        def slow() -> ScriptedChatModel:
            arrived.set()
            release.wait(TIMEOUT)
            return ScriptedChatModel(default="loaded")

        loading = broker.configure(Role.CHAT, [Backend("srv", slow, remote=True)])
        assert arrived.wait(TIMEOUT)
        job = broker.chat(_say("hi"), OPTIONS)  # nothing to route to yet
        release.set()

        assert loading.result(TIMEOUT) == "scripted"
        assert job.result(TIMEOUT) == "loaded"
    finally:
        broker.stop()


def test_the_model_of_a_role_is_its_first_backends(broker: InferenceBroker) -> None:
    embedder = HashingEmbedder(dimension=16)
    broker.configure(Role.EMBEDDINGS, [_server("emb", embedder)]).result(TIMEOUT)

    assert broker.model(Role.EMBEDDINGS) is embedder
    assert broker.embedder_name == "hashing"
    assert broker.embed(["hello"]).result(TIMEOUT).shape == (1, 16)
    assert broker.model(Role.CHAT) is None


def test_stop_joins_every_lane(health: list[RoleHealth]) -> None:
    broker = InferenceBroker()
    broker.start()
    remote = ScriptedChatModel()
    gate = remote.gate = StepGate()
    broker.configure(Role.CHAT, [_server("box", remote)]).result(TIMEOUT)
    running = broker.chat(_say("hi"), OPTIONS)
    gate.wait_for_arrival(1)

    stopper = threading.Thread(target=broker.stop)
    stopper.start()
    gate.open()
    stopper.join(TIMEOUT)

    assert not stopper.is_alive()
    assert running.done()
    assert remote.closed


def test_queries_and_texts_get_the_prefixes_their_model_asks_for(
    broker: InferenceBroker,
) -> None:
    embedder = HashingEmbedder()
    embedder.query_prefix, embedder.document_prefix = "search_query: ", "search_document: "
    broker.configure(Role.EMBEDDINGS, [_local("nomic", embedder)]).result(TIMEOUT)

    broker.embed(["where does the user live?"], query=True).result(TIMEOUT)
    broker.embed(["The user lives in Lyon."], BACKGROUND).result(TIMEOUT)

    assert embedder.calls == [
        ["search_query: where does the user live?"],
        ["search_document: The user lives in Lyon."],
    ]


def test_nothing_is_loaded_after_the_broker_stopped() -> None:
    broker = InferenceBroker()
    broker.start()
    broker.stop()

    loading = broker.configure(Role.CHAT, [_server("late", ScriptedChatModel())])

    with pytest.raises(GenerationCancelled, match="stopped"):
        loading.result(TIMEOUT)


class Clock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_backend_that_is_down_is_passed_over_for_a_while_then_tried_again() -> None:
    clock = Clock()
    broker = InferenceBroker(clock=clock)
    broker.start()
    try:
        down = ServerDown()
        fallback = ScriptedChatModel(default="local")
        broker.configure(Role.CHAT, [_server("box", down), _local("small", fallback)]).result(
            TIMEOUT
        )

        answers = [broker.chat(_say(f"hi {n}"), OPTIONS).result(TIMEOUT) for n in range(3)]
        tried_while_down = len(down.requests)
        clock.now += RETRY_AFTER_S + 1
        broker.chat(_say("later"), OPTIONS).result(TIMEOUT)

        assert answers == ["local"] * 3
        assert tried_while_down == 1  # the later jobs went straight to the fallback
        assert len(down.requests) == 2  # and after a while, the server is asked again
    finally:
        broker.stop()
