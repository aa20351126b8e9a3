"""Round 22: a secret named while a dream waited to write what it drafted.

"When the NAS asks, the user types X" (twice, in other words), then, while
the dream that merges them waited for the user's chat turn, "the NAS
password is X": the turn took X out of both memories and out of the dream
tables, then the dream wrote its merge, X and all, into a new memory and
into the record of the change.  Taking X out changes no memory's
``updated_at`` (the text is taken out, not edited), so nothing told the
dream its draft was stale.
"""

from __future__ import annotations

import json

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.service import ChatService
from desktop.core.db import Database, MemoryStore
from desktop.core.dreaming.control import DreamControl, DreamProgress
from desktop.core.dreaming.dreamer import DreamReport
from desktop.core.memory.embedding import Embeddings
from desktop.core.memory.gate import WriteGate
from desktop.core.memory.service import MemoryService
from desktop.core.privacy.redaction import Redactor
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel
from tests.unit.core.db.conftest import FakeClock
from tests.unit.core.dreaming.conftest import Dreaming

SECRET = "Qz2Fv84Mt"
FIRST = f"When the NAS asks, the user types {SECRET}"
SECOND = f"When the NAS asks the user types {SECRET}"
MERGED = f"When the NAS asks, the user types {SECRET}."


@pytest.fixture
def memories(
    database: Database,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: FakeClock,
    redactor: Redactor,
) -> MemoryService:
    """As the application builds it: one redactor for the chat and the memories."""
    return MemoryService(
        MemoryStore(database, clock=clock),
        Embeddings(broker),
        WriteGate.for_prompts(prompts, redactor),
    )


class NamedWhileWaiting(DreamControl):
    """The user names the secret in a chat turn the dream waits for, once
    the model has answered (before the merge is written); then, if
    *pause*, the dream is paused there (the user goes on chatting): what it
    keeps to resume with is saved."""

    def __init__(self, chat: ChatService, model: ScriptedChatModel, *, pause: bool = False) -> None:
        super().__init__()
        self._chat = chat
        self._model = model
        self._pause = pause
        self.named = False

    def give_way(self, progress: DreamProgress) -> None:
        if self._model.requests and not self.named:
            self._chat.send(self._chat.new_conversation().id, f"the NAS password is {SECRET}")
            self.named = True
            if self._pause:
                self.stop("paused")
        super().give_way(progress)


def _merge_dreamed(
    dreaming: Dreaming, model: ScriptedChatModel, control: NamedWhileWaiting
) -> DreamReport:
    """A dream whose model merges the two memories holding the value."""
    dreaming.add(FIRST)
    dreaming.add(SECOND)
    saved = {"content": MERGED, "category": "other", "sourceIds": [1, 2]}
    model.queue(json.dumps({"toSave": [saved], "toDelete": [1, 2]}))
    return dreaming.dreamer.run("manual", control)


def test_a_merge_drafted_before_its_secret_was_named_is_not_written(
    dreaming: Dreaming, chat: ChatService, model: ScriptedChatModel, database: Database
) -> None:
    control = NamedWhileWaiting(chat, model)

    report = _merge_dreamed(dreaming, model, control)

    assert control.named
    held = [
        (table, row)
        for table in ("memories", "memory_history", "dream_changes", "dream_log")
        for row in database.fetch_all(f"SELECT * FROM {table}")  # our own table names
        if any(SECRET in str(value) for value in tuple(row))
    ]
    assert held == []
    assert {m.status for m in dreaming.memories.store.listed()} == {"active"}
    assert "left for the next dream" in report.outcomes["dedup"]


def test_a_dream_paused_after_a_secret_was_named_keeps_no_answer_holding_it(
    dreaming: Dreaming, chat: ChatService, model: ScriptedChatModel, database: Database
) -> None:
    control = NamedWhileWaiting(chat, model, pause=True)

    report = _merge_dreamed(dreaming, model, control)

    assert control.named and report.run.status == "paused"
    kept = database.fetch_value("SELECT group_concat(checkpoint) FROM dream_runs")
    assert "toSave" in kept  # the answer is kept, to resume with
    assert SECRET not in kept
