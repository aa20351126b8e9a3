"""The chat's tool-call loop on the real small model (SmolLM2-135M).

SmolLM2 never writes ``<tool_call>`` on its own, even when told to, so the
model here is made to open a call on its first answer (``OpensACall``
writes the marker, then lets SmolLM2 write the call under the tools'
schema, as it would after a marker of its own).  Everything else is real:
the grammar holding the model to a call, the toolbox checking and running
it, the result stored and read back in the next prompt, and the model's
answer after it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, ModelSettings
from desktop.core.chat.service import ChatService
from desktop.core.chat.tools.memory import memory_tools
from desktop.core.chat.tools.toolbox import Toolbox
from desktop.core.db import ConversationStore, Database, MemoryQuery
from desktop.core.db.message_kinds import TOOL_CALL_START
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.llama_chat import LlamaChatModel
from tests.conftest import SMOLLM2_CONTEXT
from tests.fakes import HashingEmbedder, Recorder
from tests.tool_calls import OpensACall

pytestmark = pytest.mark.model


@pytest.fixture
def real_chat(
    fresh_smollm2: Callable[[], LlamaChatModel], database: Database, prompts: PromptLibrary
) -> Iterator[Callable[[int], tuple[ChatService, OpensACall, MemoryService]]]:
    """Makes a chat over SmolLM2 offering ``append_memory`` alone, replies cut
    at the given number of tokens."""
    brokers: list[InferenceBroker] = []

    def make(reply_tokens: int) -> tuple[ChatService, OpensACall, MemoryService]:
        model = OpensACall(fresh_smollm2())
        broker = InferenceBroker()
        brokers.append(broker)
        broker.start()
        broker.load_chat_model(lambda: model).result(timeout=60)
        broker.load_embedder(HashingEmbedder).result(timeout=5)
        memories = MemoryService.over(database, broker, prompts)
        remember = [t for t in memory_tools(memories) if t.name == "append_memory"]
        chat = ChatService(
            ConversationStore(database),
            memories,
            broker,
            prompts,
            ModelSettings(
                context_length=SMOLLM2_CONTEXT, max_reply_tokens=reply_tokens, temperature=0.0
            ),
            ChatSettings(),
            toolbox=Toolbox(remember, prompts),
        )
        return chat, model, memories

    yield make
    for broker in brokers:
        broker.stop()


def _turn(chat: ChatService, text: str) -> tuple[int, Recorder]:
    conversation = chat.new_conversation()
    turn = chat.send(conversation.id, text)
    turn.seed = False
    recorder = Recorder()
    chat.run(turn, recorder)
    return conversation.id, recorder


def test_a_call_the_real_model_writes_in_a_turn_is_run_and_read_back_before_it_answers(
    real_chat: Callable[[int], tuple[ChatService, OpensACall, MemoryService]],
    store: ConversationStore,
) -> None:
    chat, model, memories = real_chat(96)

    conversation_id, recorder = _turn(chat, "Remember that my dog is called Rex.")

    messages = store.messages(conversation_id)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    # The call: written under the schema, its arguments of the right types, run.
    assert messages[1].content.startswith(TOOL_CALL_START)
    assert messages[2].metadata is not None
    assert messages[2].metadata["tool"] == "append_memory" and messages[2].metadata["ok"]
    arguments = messages[2].metadata["arguments"]
    assert isinstance(arguments["content"], str) and arguments["content"].strip()
    # What it did: the memory it named, from the user's message.
    [memory] = memories.browse(MemoryQuery())
    assert memory.content == arguments["content"]
    assert memories.store.sources(memory.id).message_ids == (messages[0].id,)
    assert json.loads(messages[2].content)["result"] == "added"
    # The result reached the next prompt, and the model answered in words.
    assert len(model.requests) == 2
    read_back = model.requests[1][0]
    as_read = json.dumps({"name": "append_memory", "arguments": arguments}, ensure_ascii=False)
    assert read_back[-2].content == TOOL_CALL_START + as_read  # the call as it was read
    assert read_back[-1].content.endswith(
        f"<tool_response>\n{messages[2].content}\n</tool_response>"
    )
    assert messages[3].content.strip() and TOOL_CALL_START not in messages[3].content
    [call] = [value for kind, value in recorder.events if kind == "tool"]
    assert call.result.remembered is not None
    assert call.result.remembered.memory.id == memory.id


def test_a_real_call_cut_short_is_reported_to_the_model_and_the_turn_goes_on(
    real_chat: Callable[[int], tuple[ChatService, OpensACall, MemoryService]],
    store: ConversationStore,
) -> None:
    chat, model, memories = real_chat(16)  # too few tokens to finish the call

    conversation_id, _ = _turn(chat, "Remember that my dog is called Rex.")

    messages = store.messages(conversation_id)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1].metadata == {"finish_reason": "length"}
    assert messages[2].metadata is not None and not messages[2].metadata["ok"]
    assert json.loads(messages[2].content) == {"error": "The tool call is not valid JSON."}
    assert memories.browse(MemoryQuery(statuses=())) == []
    assert model.requests[1][0][-1].content.endswith(
        f"<tool_response>\n{messages[2].content}\n</tool_response>"
    )
