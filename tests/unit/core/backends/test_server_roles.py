"""Roles on a real OpenAI-compatible server: llama-cpp-python's own, on 127.0.0.1,
serving the embedded SmolLM2, reached through the backends the app makes from
the settings.

A chat turn on the server streams and stops; a dream pass's schema-bound call
on the server is answered and applied; a server killed mid-reply gives a
clear error and keeps what was said; and background work on the server goes
on while the chat answers on this computer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktop.core.backends.library import ModelLibrary
from desktop.core.backends.roles import BackendMaker, api_key_name
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.secrets import SecretStore
from desktop.core.base.settings import Backend, DreamSettings, ModelSettings
from desktop.core.chat.service import ChatService, Stage
from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.control import DreamControl
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker, Job, Priority, Role
from models.catalog import load_catalog
from models.interfaces import ChatMessage, GenerationOptions
from models.llama_chat import LlamaChatModel
from models.server_http import ServerUnavailable
from tests.dreams import add_memory, make_dreamer
from tests.fakes import HashingEmbedder, MemoryKeyring, Recorder
from tests.llama_server import API_KEY, CHAT_ALIAS, LlamaServer

pytestmark = [pytest.mark.model, pytest.mark.slow, pytest.mark.allow_hosts(["127.0.0.1"])]

TIMEOUT = 120.0


def _on(server: LlamaServer) -> Backend:
    return Backend(kind="server", url=server.base_url, model=CHAT_ALIAS)


@pytest.fixture
def secrets() -> SecretStore:
    return SecretStore(MemoryKeyring())


@pytest.fixture
def broker() -> Iterator[InferenceBroker]:
    broker = InferenceBroker()
    broker.start()
    broker.load_embedder(HashingEmbedder).result(TIMEOUT)
    yield broker
    broker.stop()


def _switch_to(
    broker: InferenceBroker, secrets: SecretStore, tmp_path: Path, settings: ModelSettings
) -> None:
    """Serve *settings*' chat and background roles as the app would (the
    test's own embedder stays)."""
    maker = BackendMaker(ModelLibrary(tmp_path / "models", load_catalog()), secrets)
    for role in (Role.CHAT, Role.BACKGROUND):
        if backends := maker.for_role(role, settings):
            broker.configure(role, backends).result(TIMEOUT)


def _completions(server: LlamaServer) -> int:
    """How many chat completions the server has answered so far."""
    return server.log().count("POST /v1/chat/completions")


def _chat_service(
    database: Database, broker: InferenceBroker, prompts: PromptLibrary
) -> ChatService:
    settings = ModelSettings(context_length=2048, max_reply_tokens=120, temperature=0.0)
    return ChatService(
        ConversationStore(database),
        MemoryService.over(database, broker, prompts),
        broker,
        prompts,
        settings,
    )


class StopAfterFirstPiece(Recorder):
    """A listener that presses Stop as soon as the reply's first piece arrives."""

    def __init__(self, stop: Callable[[], None]) -> None:
        super().__init__()
        self._stop = stop

    def text(self, piece: str) -> None:
        super().text(piece)
        self._stop()


def test_a_chat_turn_on_the_server_streams_and_stop_cuts_it(
    llama_server: LlamaServer,
    secrets: SecretStore,
    broker: InferenceBroker,
    database: Database,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    secrets.set(api_key_name(llama_server.base_url), API_KEY)  # the server demands it
    _switch_to(broker, secrets, tmp_path, ModelSettings(chat=(_on(llama_server),)))
    chat = _chat_service(database, broker, prompts)
    conversation = chat.new_conversation()
    whole = Recorder()
    chat.run(chat.send(conversation.id, "Tell me about the sea in three sentences."), whole)
    turn = chat.send(conversation.id, "Now write a long story about a lighthouse keeper.")
    stopping = StopAfterFirstPiece(turn.cancel)

    chat.run(turn, stopping)

    [answer] = [reply for reply in whole.replies() if reply.kind == "answer"]
    assert answer.finish_reason in ("stop", "length") and answer.text.strip()
    assert len([e for e in whole.events if e[0] == "text"]) > 1  # streamed, piece by piece
    [stopped] = [reply for reply in stopping.replies() if reply.kind == "answer"]
    assert stopped.finish_reason == "cancelled"
    pieces = [e for e in stopping.events if e[0] == "text"]
    # Cut at once, not after the whole story (up to 512 tokens): what the
    # server streamed before Stop reached it is kept, six pieces on a busy machine.
    assert 1 <= len(pieces) <= 16
    assert stopped.message is not None and stopped.message.content == stopped.text


def test_a_dream_pass_on_the_server_gets_its_schema_bound_answer(
    llama_server: LlamaServer,
    secrets: SecretStore,
    broker: InferenceBroker,
    database: Database,
    prompts: PromptLibrary,
    tmp_path: Path,
    smollm2_path: Path,
) -> None:
    secrets.set(api_key_name(llama_server.base_url), API_KEY)
    local = Backend(kind="local", model=str(smollm2_path))
    settings = ModelSettings(context_length=2048, chat=(local,), background=(_on(llama_server),))
    _switch_to(broker, secrets, tmp_path, settings)
    memories = MemoryService.over(database, broker, prompts)
    first = add_memory(memories, "The user's cousin Ana moved to Porto in 2020.")
    second = add_memory(memories, "Ana, the user's cousin, moved to Porto in 2020.")
    dreamer = make_dreamer(
        database, memories, broker, prompts, tmp_path, DreamSettings(quiet_seconds=0)
    )
    answered_before = _completions(llama_server)

    report = dreamer.run("manual", DreamControl())

    assert report.run.status == "completed"
    assert _completions(llama_server) > answered_before  # the dream's calls went to the server
    [dedup] = [e for e in dreamer.dreams.log_entries(report.run.id) if e.pass_name == "dedup"]
    # "rolled_back" would mean an answer off its schema; "failed", a call that failed.
    assert dedup.outcome in ("applied", "nothing"), (dedup.message, dedup.raw_output)
    assert memories.store.get(first.id) is not None  # merged or not, never lost
    assert memories.store.get(second.id) is not None


def test_a_server_killed_mid_reply_keeps_what_was_said_and_says_why(
    killable_llama_server: LlamaServer,
    secrets: SecretStore,
    broker: InferenceBroker,
    database: Database,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    server = killable_llama_server
    _switch_to(broker, secrets, tmp_path, ModelSettings(chat=(_on(server),)))
    chat = _chat_service(database, broker, prompts)
    conversation = chat.new_conversation()
    turn = chat.send(conversation.id, "Write a long story about a lighthouse keeper.")

    class KillAfterFirstPiece(Recorder):
        def text(self, piece: str) -> None:
            super().text(piece)
            if server.process.poll() is None:
                server.kill()

    listener = KillAfterFirstPiece()
    with pytest.raises(ServerUnavailable) as caught:
        chat.run(turn, listener)

    assert server.base_url in str(caught.value)
    [partial] = listener.replies()
    assert partial.finish_reason == "error" and partial.text.strip()
    stored = ConversationStore(database).messages(conversation.id)
    assert (stored[-1].role, stored[-1].content) == ("assistant", partial.text)
    assert Stage.REPLYING in [e[1] for e in listener.events if e[0] == "stage"]


def test_background_work_on_the_server_goes_on_while_the_chat_answers_locally(
    llama_server: LlamaServer,
    secrets: SecretStore,
    broker: InferenceBroker,
    fresh_smollm2: Callable[[], LlamaChatModel],
    tmp_path: Path,
) -> None:
    secrets.set(api_key_name(llama_server.base_url), API_KEY)
    broker.load_chat_model(fresh_smollm2).result(TIMEOUT)
    maker = BackendMaker(ModelLibrary(tmp_path / "models", load_catalog()), secrets)
    settings = ModelSettings(chat=(Backend(),), background=(_on(llama_server),))
    broker.configure(Role.BACKGROUND, maker.for_role(Role.BACKGROUND, settings)).result(TIMEOUT)
    # A long prompt keeps the local model reading for several seconds.
    long_prompt = [ChatMessage("user", "Remember these words: " + "lighthouse keeper " * 700)]
    reading = threading.Event()
    local = broker.chat(long_prompt, GenerationOptions(max_tokens=8, temperature=0.0))
    local.add_done_callback(lambda _: reading.set())

    background: Job = broker.chat(
        [ChatMessage("user", "Say one word.")],
        GenerationOptions(max_tokens=4, temperature=0.0),
        Priority.BACKGROUND,
    )

    assert isinstance(background.result(TIMEOUT), str)
    assert not local.done()  # the server answered while the local model still read
    assert reading.wait(TIMEOUT)
    assert local.result() is not None
