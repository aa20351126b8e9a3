"""A conversation that grows turn by turn is summarised in the background
before a turn has to wait for it.

A turn whose history no longer fitted summarised it first, in the user's
turn ("Compacting…"): a model call over most of the context, tens of
seconds with the 3-8B models users choose.  Now a turn after which the
next one may not fit (this reply at its longest and a message like this
one) owes the conversation a summary, which the background does between
turns (the app's ``compact_idle``, a minute after the turn).
"""

from __future__ import annotations

import pytest

from desktop.core.base.settings import ModelSettings
from desktop.core.chat.service import ChatService, Stage
from desktop.core.db import ConversationStore
from tests.fakes import Recorder, ScriptedChatModel

SAID = "Tell me more about the garden plan: " + "beds, paths and water " * 6
REPLY = "Here is more about it: " + "the beds face south and the paths stay dry " * 3


@pytest.fixture
def model_settings() -> ModelSettings:
    """A small context, so that some twenty turns fill it."""
    return ModelSettings(context_length=2048, max_reply_tokens=64)


def _turn(chat: ChatService, conversation_id: int) -> Recorder:
    recorder = Recorder()
    chat.run(chat.send(conversation_id, SAID), recorder)
    return recorder


def test_the_background_summarises_before_a_turn_must(
    chat: ChatService, store: ConversationStore, model: ScriptedChatModel
) -> None:
    model.default = REPLY
    conversation = chat.new_conversation().id
    owed_at: list[int] = []
    for turn in range(60):
        recorder = _turn(chat, conversation)
        assert ("stage", Stage.COMPACTING) not in recorder.events, f"turn {turn} waited"
        if chat.owes_compaction():  # the app: the background, a minute after the turn
            owed_at.append(turn)
            assert chat.compact_idle() == 1
            assert not chat.owes_compaction()
    stored = chat.conversation(conversation)
    assert stored is not None and stored.summary == REPLY.strip()  # the scripted summary
    assert len(owed_at) >= 2  # filled, summarised, filled again
    assert owed_at[0] > 5  # not before the context is nearly full


def test_without_the_background_the_turn_that_does_not_fit_still_summarises(
    chat: ChatService, model: ScriptedChatModel
) -> None:
    model.default = REPLY
    conversation = chat.new_conversation().id
    for _ in range(60):
        recorder = _turn(chat, conversation)
        if ("stage", Stage.COMPACTING) in recorder.events:
            break
    else:
        pytest.fail("no turn ever summarised the history")
    assert chat.owes_compaction()  # owed all along: the background never ran


def test_recent_messages_that_alone_fill_the_context_owe_no_summary(
    chat: ChatService, model: ScriptedChatModel
) -> None:
    """The last ``keep_recent`` messages are never summarised: a conversation
    of a few long messages was owed a summary after each turn, which found
    nothing to summarise."""
    model.default = REPLY
    conversation = chat.new_conversation().id
    for _ in range(4):  # 8 messages: fewer than the 10 kept word for word
        chat.run(chat.send(conversation, "a long paste " * 120), Recorder())
    assert chat.compactor.keep_recent == 10
    assert not chat.owes_compaction()
