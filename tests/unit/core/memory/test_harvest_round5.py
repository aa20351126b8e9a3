"""Round 5 of the attacks on the harvest and the memory tool: a fact is
stored as readable text (no bidirectional overrides, zero-width or tag
characters), and a fact about the user rests on the user's own words."""

from __future__ import annotations

import json

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.text import readable
from desktop.core.chat.tools.memory import memory_tools
from desktop.core.chat.tools.toolbox import Toolbox, ToolContext
from desktop.core.db import ConversationStore, MemoryQuery
from desktop.core.memory.gate import MemoryRefused
from desktop.core.memory.harvest import Harvester, NotTheUsersWords
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel
from tests.harvesters import Clock, harvest_answer, harvester_for, talk

HIDDEN = [
    "\u202a",  # left-to-right embedding
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\u2067",
    "\u2068",
    "\u2069",  # pop directional isolate
    "\u200b",  # zero-width space
    "\u200e",  # left-to-right mark
    "\u2060",  # word joiner
    "\ufeff",  # zero-width no-break space
    "\u00ad",  # soft hyphen
    "\U000e0069",  # tag letter i: invisible ASCII a model still reads
    "\ufff9",  # interlinear annotation anchor (a format character, not default-ignorable)
]
POISONED = (
    "The user's sister \u202eInes\u202c lives in \u2066Porto\u2069.\u200b\U000e0069\U000e0067"
)


@pytest.fixture
def harvester(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> Harvester:
    return harvester_for(store, memories, broker, prompts, Clock())


@pytest.mark.parametrize("hidden", HIDDEN, ids=lambda c: f"U+{ord(c):04X}")
def test_readable_drops_every_invisible_format_character(hidden: str) -> None:
    assert readable(f"The user{hidden} likes tea.{hidden}") == "The user likes tea."


@pytest.mark.parametrize(
    "kept",
    [
        pytest.param("\U0001f468\u200d\U0001f469\u200d\U0001f467", id="family emoji (ZWJ)"),
        pytest.param("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", id="Persian (ZWNJ)"),
        pytest.param("\u2764\ufe0f", id="red heart (variation selector)"),
        pytest.param("line one\nline two\ttab", id="line breaks and tabs"),
    ],
)
def test_readable_keeps_joiners_that_shape_emoji_and_scripts(kept: str) -> None:
    assert readable(kept) == kept


def test_a_harvested_fact_is_stored_without_invisible_characters(
    harvester: Harvester, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = store.create("c")
    talk(store, conversation.id, "My sister Ines moved to Porto.")
    model.queue(harvest_answer((POISONED, "people", [1])))

    report = harvester.harvest(conversation.id)

    assert report is not None
    assert [m.content for m in report.added] == ["The user's sister Ines lives in Porto."]


def test_a_fact_citing_only_reverie_is_refused_and_counted(
    harvester: Harvester,
    store: ConversationStore,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    conversation = store.create("c")
    said = talk(store, conversation.id, "I moved last spring.", "I work nights.")
    model.queue(
        harvest_answer(
            # Reverie's own words ("Noted: ...") are no evidence about the user.
            ("The user has a dog named Rex.", "people", [2]),
            ("The user works night shifts.", "work", [3, 4]),
        )
    )

    report = harvester.harvest(conversation.id)

    assert report is not None
    assert [m.content for m in report.added] == ["The user works night shifts."]
    [(text, reason)] = report.refused
    assert text == "The user has a dog named Rex."
    assert "only on Reverie's own messages" in reason
    assert [m.content for m in memories.browse(MemoryQuery(statuses=()))] == [
        "The user works night shifts."
    ]
    assert store.get(conversation.id).harvested_through_message_id == said[-1].id  # type: ignore[union-attr]


def test_the_refusal_of_a_fact_citing_only_reverie_is_a_memory_refusal() -> None:
    # Typed like the write gate's refusals, so every caller counts it as one.
    assert issubclass(NotTheUsersWords, MemoryRefused)


def test_a_fact_saved_by_the_memory_tool_is_stored_without_invisible_characters(
    store: ConversationStore, memories: MemoryService, prompts: PromptLibrary
) -> None:
    conversation = store.create("tools")
    said = "My sister Ines lives in Porto."
    message = store.add_message(conversation.id, "user", said)
    toolbox = Toolbox(memory_tools(memories), prompts)
    call = json.dumps({"name": "append_memory", "arguments": {"content": POISONED}})

    context = ToolContext(conversation.id, (message.id,), said=said)
    result = toolbox.call(call, context, {"append_memory"})

    assert result.result.ok
    assert [m.content for m in memories.browse(MemoryQuery(statuses=()))] == [
        "The user's sister Ines lives in Porto."
    ]
