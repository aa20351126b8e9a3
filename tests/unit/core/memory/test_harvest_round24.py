"""Round 24's attacks on the harvest's reading of what the user passed on.

- A friend's news quoted in single quotes, German or Japanese quotation
  marks ("Jo texted: 'I'm pregnant with twins'"): only straight and English
  curly double quotes marked a quotation, so a model that drew "The user
  is pregnant with twins" from it had the fact stored about the user.
- A message with an opening quote and no closing one hung the harvest
  (the quotation pattern backtracked over every way to split the line).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import ConversationStore, Database
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.llama_chat import LlamaChatModel
from tests.fakes import ScriptedChatModel
from tests.harvesters import Clock, harvest_answer, harvester_for, real_harvester, talk


@pytest.mark.parametrize(
    "quoted",
    [
        "'I'm pregnant with twins, due in May'",
        "\u201eIch bin schwanger\u201c, so: \u201aI am pregnant with twins\u2018",
        "\u300cI am pregnant with twins\u300d",
    ],
)
def test_a_friends_news_in_quotation_marks_is_no_fact_about_the_user(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    quoted: str,
) -> None:
    conversation = store.create()
    talk(store, conversation.id, f"Jo texted me this morning: {quoted} So happy for her.")
    model.queue(harvest_answer(("The user is pregnant with twins.", "health", [1])))

    report = harvester_for(store, memories, broker, prompts, Clock()).harvest(conversation.id)

    assert memories.store.listed() == []
    assert report is not None and [text for text, _ in report.refused] == [
        "The user is pregnant with twins."
    ]


def test_the_users_own_words_beside_an_unclosed_quote_are_learned(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    said = (
        'I moved to Porto in March. My sister wrote "we should meet at the cafe near the '
        "station on Tuesday, the trains are late this week"
    )
    conversation = store.create()
    talk(store, conversation.id, said)
    model.queue(harvest_answer(("The user moved to Porto in March.", "personal", [1])))

    report = harvester_for(store, memories, broker, prompts, Clock()).harvest(conversation.id)

    assert [m.content for m in memories.store.listed()] == ["The user moved to Porto in March."]
    assert report is not None and report.refused == ()


@pytest.mark.model
@pytest.mark.slow
def test_the_real_small_model_learns_nothing_of_a_friends_quoted_news(
    fresh_smollm2: Callable[[], LlamaChatModel],
    database: Database,
    store: ConversationStore,
    prompts: PromptLibrary,
) -> None:
    """Whatever SmolLM2 draws from the message, nothing about a pregnancy
    is kept: the words are Jo's, in single quotes.  (In round 24's trials it
    drew other things, its prompt's examples and Reverie's words, each
    refused; the scripted answers above are where the defect was seen.)"""
    with real_harvester(fresh_smollm2, database, store, prompts, Clock()) as (
        harvester,
        memories,
    ):
        conversation = store.create("c")
        said = talk(
            store,
            conversation.id,
            "Jo texted me: 'I am pregnant with twins and due in May'. So happy for her!",
            "I live in Leeds and I teach maths.",
        )

        report = harvester.harvest(conversation.id)

        assert report is not None and report.through_message_id == said[-1].id
        kept = [m.content.casefold() for m in memories.store.listed()]
        assert not any("pregnan" in m or "twins" in m for m in kept), kept
