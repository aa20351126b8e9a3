"""Round 26: a tool's result too long for the context leaves the question in.

The newest message of a prompt that did not fit was kept alone, cut in the
middle, and every message before it left out: after a call whose result
was long (a skill read with a small context), the model read the cut
result and not the user's message it was answering, so it answered
nothing it was asked.  The user's message now stays, and the result is cut
to what is left.
"""

from __future__ import annotations

import json

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ModelSettings
from desktop.core.chat.service import ChatService
from desktop.core.chat.tools.toolbox import Tool, Toolbox, ToolContext, ToolResult
from desktop.core.db import ConversationStore
from desktop.core.db.message_kinds import TOOL_CALL_START
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from tests.fakes import Recorder, ScriptedChatModel
from tests.unit.core.chat.test_chat_tools import SEARCH_TEA, _Query

QUESTION = "Which tea did I say I like best, and why?"


def _long_result(arguments: _Query, context: ToolContext) -> ToolResult:
    return ToolResult(True, {"memories": ["tea " * 3000]}, "Found.")


def test_the_question_stays_in_the_prompt_when_a_tools_result_is_too_long(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    tool = Tool("search_memory", _Query, _long_result)
    settings = ModelSettings(context_length=2048)
    chat = ChatService(store, memories, broker, prompts, settings, toolbox=Toolbox([tool], prompts))
    model.queue(f"Let me look. {TOOL_CALL_START}{json.dumps(SEARCH_TEA)}", "Green tea.")
    conversation = chat.new_conversation()
    store.add_message(conversation.id, "user", "An older message about coffee.")
    recorder = Recorder()

    chat.run(chat.send(conversation.id, QUESTION), recorder)

    system, *read = model.requests[-1][0]
    assert any(QUESTION in m.content for m in read)
    assert all("coffee" not in m.content for m in read)  # an older message left out instead
    assert "tea tea" in read[-1].content  # the result, cut to what is left
    words = sum(len(m.content.split()) for m in (system, *read))
    assert words <= settings.context_length - settings.max_reply_tokens
