"""Round 33: the background summary of a long imported history, across a restart.

A turn in a conversation whose older messages hold more than a context
owes it a compaction, done in the background a bounded batch at a time.
What was owed was kept only in memory, and imported conversations are
left out of the idle compaction (never summarised unless gone on with):
after a restart the rest of the history was never summarised until a
turn in it noticed again.  What is owed is now read from the database.
And a background summary that quitting stopped under the model raised
('chat work failed' with a traceback, 'maintenance failed'): it is no failure.
"""

from __future__ import annotations

import logging
import threading

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, ModelSettings
from desktop.core.chat.service import BACKGROUND_BATCHES, ChatService
from desktop.core.db import ConversationStore
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from tests.bench.long_history import imported
from tests.fakes import Recorder, ScriptedChatModel, StepGate

TIMEOUT = 10.0


@pytest.fixture
def model_settings() -> ModelSettings:
    """A small context, so that a batch summarises some dozens of messages."""
    return ModelSettings(context_length=2048, max_reply_tokens=64)


def test_a_summary_owed_before_a_restart_goes_on_after_it(
    chat: ChatService,
    store: ConversationStore,
    model: ScriptedChatModel,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model_settings: ModelSettings,
    chat_settings: ChatSettings,
) -> None:
    conversation = imported(store, 2_500)
    untouched = imported(store, 2_400)
    chat.run(chat.send(conversation, "hi"), Recorder())  # too long: owed
    model.default = "They planned the garden."
    assert chat.compact_idle() == 1  # a bounded run: more is left
    assert len(store.messages(conversation)) > 10

    # The app restarts: a chat service built again on the same database.
    again = ChatService(store, memories, broker, prompts, model_settings, chat_settings)
    asked = len(model.requests)

    assert again.compaction_owed() == [conversation]
    assert again.compact_idle() == 1
    assert 0 < len(model.requests) - asked <= BACKGROUND_BATCHES
    while again.compact_idle():
        pass
    assert len(store.messages(conversation)) == 10  # all but the last ten summarised
    assert again.compaction_owed() == []
    assert len(store.messages(untouched)) == 2_400  # never gone on with: never summarised


def test_a_background_summary_cut_short_by_quitting_is_no_failure(
    chat: ChatService,
    store: ConversationStore,
    broker: InferenceBroker,
    model: ScriptedChatModel,
    caplog: pytest.LogCaptureFixture,
) -> None:
    conversation = imported(store, 2_500)
    chat.run(chat.send(conversation, "hi"), Recorder())  # too long: owed
    model.gate = gate = StepGate()
    compacted: list[int] = []
    with caplog.at_level(logging.DEBUG):
        run = threading.Thread(target=lambda: compacted.append(chat.compact_idle()))
        run.start()
        gate.wait_for_arrival(1, TIMEOUT)  # the summary is being written
        broker.stop()  # quitting
        run.join(TIMEOUT)

    assert compacted == [0]  # where it raised 'the compaction was stopped'
    assert [r.getMessage() for r in caplog.records if r.levelno > logging.DEBUG] == []
    assert store.get(conversation).summary is None  # type: ignore[union-attr]  # nothing half-written
