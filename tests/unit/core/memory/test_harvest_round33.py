"""Round 33 of issue 15 against the harvest: quitting under it.

The broker stops at quit and ends every job queued or running with
``GenerationCancelled``.  A harvest due then said, for each conversation it
owed, 'harvesting conversation N failed: ... the inference broker stopped'
at WARNING: work cut short by quitting read as failures in the log.  It is
a debug line now, the part stays owed (no try counted), and a real failure
(no chat model) is still a warning.
"""

from __future__ import annotations

import logging

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import ConversationStore
from desktop.core.memory.harvest import Harvester
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.errors import ModelUnavailable
from tests.fakes import ScriptedChatModel
from tests.harvesters import Clock, harvester_for, talk


@pytest.fixture
def harvester(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> Harvester:
    return harvester_for(store, memories, broker, prompts, Clock(), harvest_after_messages=1)


def _said(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.levelno > logging.DEBUG]


def test_a_harvest_cut_short_by_quitting_is_no_failure_and_stays_owed(
    harvester: Harvester,
    store: ConversationStore,
    broker: InferenceBroker,
    caplog: pytest.LogCaptureFixture,
) -> None:
    owed = [store.create(title).id for title in ("tea", "garden")]
    for conversation_id, said in zip(owed, ("I like tea a lot.", "I grow tomatoes."), strict=True):
        talk(store, conversation_id, said)
    broker.stop()  # quitting

    with caplog.at_level(logging.DEBUG):
        assert harvester.harvest_due() == []

    assert _said(caplog) == []
    assert harvester.due() == owed
    assert all(store.harvest_retry(conversation_id) is None for conversation_id in owed)


def test_a_harvest_that_fails_for_want_of_a_model_still_says_so(
    harvester: Harvester,
    store: ConversationStore,
    model: ScriptedChatModel,
    caplog: pytest.LogCaptureFixture,
) -> None:
    conversation = store.create("tea")
    talk(store, conversation.id, "I like tea a lot.")
    model.queue(ModelUnavailable("The chat model file is corrupt."))

    with caplog.at_level(logging.DEBUG):
        assert harvester.harvest_due() == []

    assert (
        "WARNING",
        f"harvesting conversation {conversation.id} failed: the model could not read"
        " the conversation: The chat model file is corrupt.",
    ) in _said(caplog)
