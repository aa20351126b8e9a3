"""Round 26: Stop during a tool call ends the turn.

Stopped while a tool ran, the turn went on to a second reply that the stop
cut at once: an empty "cancelled" reply the chat showed as Reverie's.
Stopped while the model wrote a call, the half-written call
(``<tool_call>{"name": "appe``) was stored as the reply, shown in the
transcript and read back by the model in the next turn's prompt.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ModelSettings
from desktop.core.chat.service import ChatService, Reply, Turn
from desktop.core.chat.tools.toolbox import Tool, Toolbox, ToolContext, ToolResult
from desktop.core.db import ConversationStore
from desktop.core.db.message_kinds import TOOL_CALL_START
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from tests.fakes import Recorder, ScriptedChatModel, StepGate
from tests.unit.core.chat.test_chat_tools import SEARCH_TEA, _Query

TIMEOUT = 10
CALL = f"Let me look. {TOOL_CALL_START}{json.dumps(SEARCH_TEA)}"


def _stored(store: ConversationStore, conversation_id: int) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in store.messages(conversation_id)]


def _searching(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    run: Callable[[_Query, ToolContext], ToolResult],
) -> ChatService:
    tool = Tool("search_memory", _Query, run)
    return ChatService(
        store, memories, broker, prompts, ModelSettings(), toolbox=Toolbox([tool], prompts)
    )


def test_stop_while_a_tool_runs_keeps_its_result_and_starts_no_second_reply(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    stopped: list[Turn] = []

    def search_then_stopped(arguments: _Query, context: ToolContext) -> ToolResult:
        stopped[0].cancel()  # the user presses Stop meanwhile
        return ToolResult(True, {"memories": []}, "Nothing found.")

    chat = _searching(store, memories, broker, prompts, search_then_stopped)
    model.queue(CALL, "Green tea.")
    conversation = chat.new_conversation()
    turn = chat.send(conversation.id, "What tea do I like?")
    stopped.append(turn)
    recorder = Recorder()

    chat.run(turn, recorder)

    assert [r.text for r in recorder.replies()] == ["Let me look."]
    assert len(model.requests) == 1
    roles = [role for role, _ in _stored(store, conversation.id)]
    assert roles == ["user", "assistant", "tool"]


class _StopOnCall(Recorder):
    """A listener whose user presses Stop as the reply with the call ends."""

    def __init__(self) -> None:
        super().__init__()
        self.turn: Turn | None = None

    def reply_finished(self, reply: Reply) -> None:
        super().reply_finished(reply)
        assert self.turn is not None
        self.turn.cancel()


def test_stop_before_a_tool_starts_runs_no_tool_and_no_second_reply(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    searched: list[str] = []

    def search(arguments: _Query, context: ToolContext) -> ToolResult:
        searched.append(arguments.query)
        return ToolResult(True, {"memories": []}, "Nothing found.")

    chat = _searching(store, memories, broker, prompts, search)
    model.queue(CALL, "Green tea.")
    conversation = chat.new_conversation()
    turn = chat.send(conversation.id, "What tea do I like?")
    recorder = _StopOnCall()
    recorder.turn = turn

    chat.run(turn, recorder)

    assert searched == []
    assert [r.text for r in recorder.replies()] == ["Let me look."]
    assert [role for role, _ in _stored(store, conversation.id)] == ["user", "assistant"]
    assert len(model.requests) == 1


def test_a_reply_stopped_while_writing_a_call_keeps_no_half_of_the_call(
    chat: ChatService, store: ConversationStore, model: ScriptedChatModel
) -> None:
    model.queue(
        f'Sure, noted. {TOOL_CALL_START}{{"name": "append_memory", "arguments": '
        '{"content": "The user\'s dog is called Rex.", "category": "people"}}',
        "Anything else?",
    )
    gate = StepGate(allowed=4)  # "Sure, ", "noted. ", the marker, '{"name": '
    model.gate = gate
    conversation = chat.new_conversation()
    turn = chat.send(conversation.id, "My dog is called Rex.")
    recorder = Recorder()
    runner = threading.Thread(target=chat.run, args=(turn, recorder))
    runner.start()
    gate.wait_for_arrival(5)

    turn.cancel()
    gate.open()
    runner.join(TIMEOUT)

    [reply] = recorder.replies()
    assert reply.finish_reason == "cancelled" and reply.text == "Sure, noted."
    assert _stored(store, conversation.id)[1:] == [("assistant", "Sure, noted.")]
    # The next turn's prompt holds no broken call either.
    chat.run(chat.send(conversation.id, "That's all."), Recorder())
    _, *history = model.requests[-1][0]  # after the system prompt, which names the tools
    assert not any(TOOL_CALL_START in m.content or "append_memory" in m.content for m in history)
