"""Round 23: ``/memory`` lists what the model is given about the user.

A memory goes with the message it first became relevant to and stays
there, read by every later reply (``contexts``); ``/memory`` listed only
the memories relevant to the last message, so after "What is my dog
called?" then "Where does my sister live?" the model was given both the
dog and the sister, and ``/memory`` named the sister alone."""

from __future__ import annotations

import re

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, ModelSettings
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from tests.fakes import Recorder, ScriptedChatModel


def test_memory_lists_every_memory_the_next_reply_reads(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    settings = ChatSettings(memories_top_k=1)
    chat = ChatService(store, memories, broker, prompts, ModelSettings(), settings)
    dog = chat.remember("My dog is called Rex.").memory
    sister = chat.remember("My sister Ines lives in Porto.").memory
    conversation = chat.new_conversation()
    chat.run(chat.send(conversation.id, "What is my dog called?"), Recorder())
    chat.run(chat.send(conversation.id, "Where does my sister live?"), Recorder())
    prompt = "\n".join(m.content for m in model.requests[-1][0])
    given = {int(i) for i in re.findall(r"\(#(\d+)\)", prompt)}
    assert given == {dog.id, sister.id}

    listed = [m.id for m in chat.given_memories(conversation.id)]

    assert listed == [sister.id, dog.id]  # the one relevant now first
    chat.forget(f"#{dog.id}")
    assert [m.id for m in chat.given_memories(conversation.id)] == [sister.id]
