"""Round 11's attacks on counting what the harvest finds.

- An edited message counted twice: the user's last message was harvested,
  then edited (``ChatService.edit_last``: the message goes for good, the
  corrected text is sent as a new one), and the harvest of the new message
  reinforced the fact again ("seen 2 times" for something said once).
- One harvest answer naming one fact twice in other words (capitals and
  "!", a lower-case answer with one word in capitals, "a lot" more) kept
  two memories from one message, which the next dream merged as "seen 2
  times": the batch is folded as the preference pass folds its answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore
from desktop.core.memory.harvest import Harvester
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.llama_embedder import LlamaEmbedder
from tests.fakes import Recorder, ScriptedChatModel
from tests.harvesters import Clock, harvest_answer, harvester_for, talk

BEES = "The user keeps bees."
TEA = "The user likes green tea."


def _harvester(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> Harvester:
    return harvester_for(store, memories, broker, prompts, Clock())


def _say(chat: ChatService, model: ScriptedChatModel, conversation_id: int, text: str) -> None:
    model.queue("Lovely.")
    chat.run(chat.send(conversation_id, text), Recorder())


def _edit(chat: ChatService, model: ScriptedChatModel, conversation_id: int, text: str) -> None:
    model.queue("Lovely.")
    chat.run(chat.edit_last(conversation_id, text), Recorder())


def _bees(memories: MemoryService) -> tuple[int, tuple[int, ...]]:
    [memory] = memories.store.listed()
    assert memory.content == BEES
    return memory.reinforcement_count, memories.store.sources(memory.id).message_ids


def test_an_edited_message_does_not_count_a_fact_it_said_again(
    chat: ChatService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    harvester = _harvester(store, memories, broker, prompts)
    conversation = chat.new_conversation()
    _say(chat, model, conversation.id, "I keep bees in the garden.")
    model.queue(harvest_answer((BEES, "other", [1])))
    harvester.harvest(conversation.id)

    _edit(chat, model, conversation.id, "I keep bees in the garden, two hives.")
    model.queue(harvest_answer((BEES, "other", [1])))
    report = harvester.harvest(conversation.id)

    edited = chat.last_user_message(conversation.id)
    assert edited is not None
    count, sources = _bees(memories)
    assert count == 1
    assert edited.id in sources  # the edit takes the old message's place
    assert report is not None and report.reinforced == ()


def test_an_edit_of_an_edit_read_only_at_the_end_counts_once(
    chat: ChatService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    harvester = _harvester(store, memories, broker, prompts)
    conversation = chat.new_conversation()
    _say(chat, model, conversation.id, "I keep bees.")
    model.queue(harvest_answer((BEES, "other", [1])))
    harvester.harvest(conversation.id)

    _edit(chat, model, conversation.id, "I keep bees in the garden.")  # not harvested
    _edit(chat, model, conversation.id, "I keep bees in the garden, two hives.")
    model.queue(harvest_answer((BEES, "other", [1])))
    harvester.harvest(conversation.id)

    assert _bees(memories)[0] == 1


def test_a_fact_said_again_after_an_edit_still_counts(
    chat: ChatService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    harvester = _harvester(store, memories, broker, prompts)
    conversation = chat.new_conversation()
    _say(chat, model, conversation.id, "I keep bees.")
    model.queue(harvest_answer((BEES, "other", [1])))
    harvester.harvest(conversation.id)

    _edit(chat, model, conversation.id, "I keep bees, two hives.")
    _say(chat, model, conversation.id, "Did I say I keep bees? I do.")
    model.queue(harvest_answer((BEES, "other", [1, 3])))
    harvester.harvest(conversation.id)

    assert _bees(memories)[0] == 2  # the later message said it again


def test_a_fact_said_again_after_a_regenerated_answer_still_counts(
    chat: ChatService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    harvester = _harvester(store, memories, broker, prompts)
    conversation = chat.new_conversation()
    _say(chat, model, conversation.id, "I keep bees.")
    model.queue(harvest_answer((BEES, "other", [1])))
    harvester.harvest(conversation.id)

    again = chat.regenerate(conversation.id)  # the answer goes, the message stays
    assert again is not None
    model.queue("Bees, lovely.")
    chat.run(again, Recorder())
    _say(chat, model, conversation.id, "Yes, I keep bees.")
    model.queue(harvest_answer((BEES, "other", [2])))
    harvester.harvest(conversation.id)

    assert _bees(memories)[0] == 2


@pytest.mark.parametrize(
    "again",
    [
        "THE USER LIKES GREEN TEA!",
        "the user likes GREEN tea",
        "The user likes  green\u200b tea.",
    ],
)
def test_one_answer_naming_a_fact_twice_in_other_words_keeps_it_once(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    again: str,
) -> None:
    conversation = store.create("c")
    said = talk(store, conversation.id, "I like green tea, really.", "Green tea, yes.")
    model.queue(harvest_answer((TEA, "other", [1]), (again, "other", [3])))

    report = _harvester(store, memories, broker, prompts).harvest(conversation.id)

    [memory] = memories.store.listed()
    assert (memory.content, memory.reinforcement_count) == (TEA, 1)
    assert memories.store.sources(memory.id).message_ids == (said[0].id, said[2].id)
    assert report is not None and [m.id for m in report.added] == [memory.id]


def test_a_fact_named_again_a_lot_more_is_kept_once_with_the_real_embedder(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    minilm_path: Path,
) -> None:
    # The attack's third wording.  A bag of words puts it too far away
    # (cosine 0.85, under the 0.9 of a near duplicate), so only the real
    # embedder says whether it is one fact (0.97): it is.
    broker.load_embedder(lambda: LlamaEmbedder(minilm_path)).result(timeout=60)
    conversation = store.create("c")
    talk(store, conversation.id, "I like green tea, really.")
    model.queue(
        harvest_answer((TEA, "other", [1]), ("The user likes green tea a lot.", "other", [1]))
    )

    _harvester(store, memories, broker, prompts).harvest(conversation.id)

    assert [(m.content, m.reinforcement_count) for m in memories.store.listed()] == [(TEA, 1)]


def test_two_facts_that_differ_in_a_word_are_both_kept(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    conversation = store.create("c")
    talk(store, conversation.id, "I like green tea and black tea.")
    model.queue(harvest_answer((TEA, "other", [1]), ("The user likes black tea.", "other", [1])))

    _harvester(store, memories, broker, prompts).harvest(conversation.id)

    assert sorted(m.content for m in memories.store.listed()) == [
        "The user likes black tea.",
        TEA,
    ]
