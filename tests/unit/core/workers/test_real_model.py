"""Once with the real small model (SmolLM2-135M): the chat model spawns a
worker through ``spawn_sub_session`` under the tool's schema, the worker
runs on the same model at background priority, and its result is reported
into the conversation as a system event.

SmolLM2 never opens a tool call by itself, so its first answer that may
call a tool is opened for it (``OpensACall``); from the marker on the
schema holds it, as after a marker of its own.  Everything else is real.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, ModelSettings, WorkerSettings
from desktop.core.chat.service import ChatService
from desktop.core.chat.tools.sub_sessions import SPAWN_TOOL, sub_session_tools
from desktop.core.chat.tools.toolbox import Toolbox
from desktop.core.db import ConversationStore, Database
from desktop.core.db.workers import WorkerStore
from desktop.core.memory.service import MemoryService
from desktop.core.workers.service import ConversationReporter, Workers
from models.broker import InferenceBroker
from models.llama_chat import LlamaChatModel
from tests.conftest import SMOLLM2_CONTEXT
from tests.fakes import HashingEmbedder, Recorder
from tests.tool_calls import OpensACall
from tests.unit.core.workers.conftest import BERLIN

pytestmark = pytest.mark.model


@pytest.fixture
def real_broker(fresh_smollm2: Callable[[], LlamaChatModel]) -> Iterator[InferenceBroker]:
    model = OpensACall(fresh_smollm2())
    broker = InferenceBroker()
    broker.start()
    broker.load_chat_model(lambda: model).result(timeout=60)
    broker.load_embedder(HashingEmbedder).result(timeout=5)
    yield broker
    broker.stop()


def test_the_real_model_spawns_a_worker_whose_result_reaches_the_conversation(
    real_broker: InferenceBroker, database: Database, prompts: PromptLibrary
) -> None:
    conversations = ConversationStore(database)
    store = WorkerStore(database)
    now = [time.time()]
    model_settings = ModelSettings(
        context_length=SMOLLM2_CONTEXT, max_reply_tokens=96, temperature=0.0
    )
    workers = Workers(
        store,
        conversations,
        real_broker,
        prompts,
        ConversationReporter(conversations),
        settings=WorkerSettings(quiet_seconds=0),
        model_settings=model_settings,
        zone=lambda: BERLIN,
        now=lambda: now[0],
    )
    chat = ChatService(
        conversations,
        MemoryService.over(database, real_broker, prompts),
        real_broker,
        prompts,
        model_settings,
        ChatSettings(),
        toolbox=Toolbox(sub_session_tools(workers), prompts),
    )
    conversation = chat.new_conversation()
    turn = chat.send(conversation.id, "In the background, list three fruits that are red.")
    chat.run(turn, Recorder())

    # What the model writes varies from run to run (llama.cpp on two busy
    # threads), and after its first call it may write another of its own:
    # every worker it spawned is followed to its end.
    tool_messages = [m for m in conversations.messages(conversation.id) if m.role == "tool"]
    result = tool_messages[0]
    assert result.metadata is not None and result.metadata["tool"] == SPAWN_TOOL
    assert result.metadata["ok"], result.content
    worker_id = json.loads(result.content)["worker_id"]
    spawned = store.list()
    assert spawned[0].id == worker_id and spawned[0].objective.strip()
    assert len(spawned) == sum(bool((m.metadata or {}).get("ok")) for m in tool_messages)
    while not all(w.final for w in store.list()):
        if not (ready := workers.ready()):
            # A start time the model chose (its call): the host's clock wakes then.
            wake = workers.next_wake()
            assert wake is not None, "a worker that waits on nothing"
            now[0] = wake
            continue
        for worker in ready:
            workers.run_one(worker, lambda: False)

    ended = store.get(worker_id)
    assert ended is not None and ended.state == "completed" and (ended.result or "").strip()
    events = [
        m
        for m in conversations.messages(conversation.id)
        if (m.metadata or {}).get("kind") == ConversationReporter.KIND
    ]
    assert [m.role for m in events] == ["event"] * len(spawned)
    assert events[0].content.startswith(f"[SYSTEM EVENT] Background worker #{worker_id}")
    assert (ended.result or "") in events[0].content
