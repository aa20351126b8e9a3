"""Round 22's attacks on what the user does while a harvest is reading.

- A message edited while the model read it: the fact drawn from the old
  words ("allergic to penicillin", edited to "not allergic to anything")
  was stored after the edit, resting on a message that no longer exists.
- A value named a secret while a fact holding it was being embedded ("when
  the NAS asks, type X", then "the NAS password is X"): the message and the
  memories were swept, then the harvest stored the fact with X in it.
- A memory erased for good ("Delete now") while the model read a message
  saying it again: a deletion leaves a row the harvest refuses the fact by,
  an erasure none, so the harvest stored it again at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.erasure import Eraser
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.interfaces import ChatMessage
from tests.fakes import HashingEmbedder, Recorder, ScriptedChatModel
from tests.harvesters import Clock, harvest_answer, harvester_for

SECRET = "Qz2Fv84Mt"


class MeanwhileModel(ScriptedChatModel):
    """A scripted model that, asked with a marker in its prompt, first lets the user act."""

    def __init__(self) -> None:
        super().__init__(default="Noted.")
        self.meanwhile: dict[str, Callable[[], object]] = {}

    def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
        for marker in [m for m in self.meanwhile if any(m in c.content for c in messages)]:
            self.meanwhile.pop(marker)()
        return super()._next_reply(messages)


class MeanwhileEmbedder(HashingEmbedder):
    """A hashing embedder that, asked to embed a text with a marker, first lets the user act."""

    def __init__(self) -> None:
        super().__init__()
        self.meanwhile: dict[str, Callable[[], object]] = {}

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        for marker in [m for m in self.meanwhile if any(m in t for t in texts)]:
            self.meanwhile.pop(marker)()
        return super().embed(texts)


def test_a_fact_from_a_message_edited_while_the_model_read_it_is_not_kept(
    chat: ChatService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> None:
    model = MeanwhileModel()
    broker.load_chat_model(lambda: model).result(timeout=5)
    conversation = chat.new_conversation()
    chat.run(chat.send(conversation.id, "I am allergic to penicillin."), Recorder())
    harvester = harvester_for(store, memories, broker, prompts, Clock())
    model.queue(harvest_answer(("The user is allergic to penicillin.", "health", [1])))
    model.meanwhile["allergic to penicillin"] = lambda: chat.edit_last(
        conversation.id, "I am not allergic to anything."
    )

    report = harvester.harvest(conversation.id)

    assert not model.meanwhile, "the edit was made while the model read the message"
    assert memories.store.listed() == []
    assert report is not None and [text for text, _ in report.refused] == [
        "The user is allergic to penicillin."
    ]
    edited = chat.last_user_message(conversation.id)
    assert edited is not None and edited.content == "I am not allergic to anything."
    assert store.harvest_backlog()[0].conversation_id == conversation.id  # the edit is read next


def test_a_fact_keeps_no_value_named_a_secret_while_it_was_embedded(
    chat: ChatService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    database: Database,
) -> None:
    embedder = MeanwhileEmbedder()
    broker.load_embedder(lambda: embedder).result(timeout=5)
    conversation = chat.new_conversation()
    chat.run(chat.send(conversation.id, f"When the NAS asks, type {SECRET} and wait."), Recorder())
    harvester = harvester_for(store, memories, broker, prompts, Clock())
    fact = f"When the NAS asks, the user types {SECRET} and waits."
    model.queue(harvest_answer((fact, "other", [1])))
    embedder.meanwhile[f"user types {SECRET}"] = lambda: chat.send(
        conversation.id, f"the NAS password is {SECRET}"
    )

    report = harvester.harvest(conversation.id)

    assert not embedder.meanwhile, "the secret was named while the fact was embedded"
    [memory] = memories.store.listed()
    assert memory.content == "When the NAS asks, the user types [redacted password] and waits."
    assert report is not None and [m.id for m in report.added] == [memory.id]
    held = database.fetch_value(
        "SELECT count(*) FROM memories WHERE instr(content, ?)", (SECRET,)
    ) + database.fetch_value(
        "SELECT count(*) FROM memory_history"
        " WHERE instr(coalesce(old_content, '') || coalesce(new_content, ''), ?)",
        (SECRET,),
    )
    assert held == 0
    assert memory.embedding_model is None  # its vector was made of the old text
    assert database.fetch_value("SELECT count(*) FROM memory_embeddings") == 0


def test_a_memory_erased_while_the_model_read_it_said_again_is_not_learned_again(
    chat: ChatService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    eraser: Eraser,
) -> None:
    model = MeanwhileModel()
    broker.load_chat_model(lambda: model).result(timeout=5)
    allergy = "The user is allergic to penicillin."
    kept = memories.remember(allergy, source_kind="user_explicit", actor="user")
    conversation = chat.new_conversation()
    chat.run(chat.send(conversation.id, "I am allergic to penicillin."), Recorder())
    harvester = harvester_for(store, memories, broker, prompts, Clock())
    model.queue(harvest_answer((allergy, "health", [1])))
    model.meanwhile["allergic to penicillin"] = lambda: eraser.erase_memories([kept.memory.id])

    report = harvester.harvest(conversation.id)

    assert not model.meanwhile, "the memory was erased while the model read the message"
    assert memories.store.listed() == []
    assert report is not None and [text for text, _ in report.refused] == [allergy]
    harvested = store.get(conversation.id)
    assert harvested is not None and harvested.harvested_through_message_id is not None
