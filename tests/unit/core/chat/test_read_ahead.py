"""After a background summary, the chat model reads the conversation's new
prompt ahead, so the next reply reads only what the user adds.

A summary changes the start of the conversation's prompt (the system prompt
holds it), so the turn after one read the whole prompt again before its
first word: 13.0 s in the chat bench's loaded run against 5.4 s for a turn
read from the cache, and tens of seconds with the 3-8B models users choose.
The background now reads it into the chat's own context right after the
summary (``ChatService.read_ahead``), cut by the user like all background
work, and stopped by the next turn if it has not run yet.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import pytest

from desktop.core.chat.service import ChatService
from desktop.core.db import Database
from models.broker import InferenceBroker
from models.interfaces import ChatMessage, GenerationOptions
from models.jobs import Priority
from models.llama_chat import LlamaChatModel
from tests.fakes import Recorder, ScriptedChatModel
from tests.unit.core.chat.test_given_memories import _Reading, real_chat

TIMEOUT = 60.0
LATER = 10**7
"""Seconds on: every conversation idle long enough to be summarised."""


def _turns(chat: ChatService, conversation_id: int, texts: Sequence[str]) -> None:
    for text in texts:
        chat.run(chat.send(conversation_id, text), Recorder())


def _idle(chat: ChatService) -> int:
    return chat.compact_idle(now=time.time() + LATER)


def test_the_summarised_prompt_is_read_ahead_as_the_next_turn_begins(
    chat: ChatService, model: ScriptedChatModel
) -> None:
    model.default = "The user asks about the garden."  # each reply, and the summary
    conversation = chat.new_conversation().id
    _turns(chat, conversation, [f"Garden question number {n}?" for n in range(12)])
    assert _idle(chat) == 1
    assert chat.reading is not None
    chat.reading.result(TIMEOUT)
    [ahead] = model.reads
    summarised = chat.conversation(conversation)
    assert summarised is not None and summarised.summary == model.default
    assert model.default in ahead[0].content  # the system prompt, with the summary

    _turns(chat, conversation, ["And the roses?"])
    prompt = model.requests[-1][0]
    assert prompt[: len(ahead)] == ahead  # all of it, in the same order
    assert prompt[len(ahead) :][-1].role == "user" and len(prompt) == len(ahead) + 1


def test_a_turn_stops_a_read_that_has_not_run(
    chat: ChatService, model: ScriptedChatModel, broker: InferenceBroker
) -> None:
    conversation = chat.new_conversation().id
    _turns(chat, conversation, [f"Garden question number {n}?" for n in range(12)])
    held = broker.chat([ChatMessage("user", "hold")], GenerationOptions(), Priority.BACKGROUND)
    assert _idle(chat) == 1
    reading = chat.reading
    assert reading is not None
    _turns(chat, conversation, ["And the roses?"])
    held.result(TIMEOUT)
    assert reading.cancel_requested


def test_nothing_is_read_ahead_when_nothing_was_summarised(
    chat: ChatService, model: ScriptedChatModel
) -> None:
    conversation = chat.new_conversation().id
    _turns(chat, conversation, ["Just one question?"])
    assert _idle(chat) == 0
    assert chat.reading is None and model.reads == []


@pytest.mark.model
def test_the_real_model_reads_only_the_new_message_after_a_summary(
    fresh_smollm2: Callable[[], LlamaChatModel], database: Database
) -> None:
    """SmolLM2's own template, tokenizer and cache: the turn after a
    background summary reads the new message and a few tokens, as any turn
    does, not the whole prompt (as it did before: the summary is in the
    system prompt, so nothing after its start was reused)."""
    model = _Reading(fresh_smollm2())
    with real_chat(model, database) as chat:
        conversation = chat.new_conversation().id
        said = [f"Tell me one thing about planting tulips, tip {n}." for n in range(9)]
        _turns(chat, conversation, said)
        assert _idle(chat) == 1
        assert chat.reading is not None and chat.reading.result(TIMEOUT) is True

        asked = "And when do they flower?"
        _turns(chat, conversation, [asked])
        read, total = model.reading[-1]
        assert read - model.model.count_tokens(asked) <= 32, (read, total)
        assert total > 200  # the prompt read ahead, reused
