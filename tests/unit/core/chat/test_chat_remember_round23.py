"""Round 23: ``/remember`` followed by a long paste.

The command was read for secrets and stored as the memory's source before
the memory gate saw the text, which then refused it as too long for one
memory: a megabyte took minutes to read (about 10 s for 100 KB on a
loaded 2-core machine) for a refusal the gate gives at once.  The gate now
answers first; what reads the text for secrets is watched."""

from __future__ import annotations

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ModelSettings
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore
from desktop.core.memory.gate import MemoryRefused
from desktop.core.memory.service import MemoryService
from desktop.core.privacy.redaction import Redactor
from models.broker import InferenceBroker


class _Watched(Redactor):
    """A redactor noting how long each text it was asked to read was."""

    def __init__(self) -> None:
        super().__init__()
        self.lengths: list[int] = []

    def text(self, text: str) -> str:
        self.lengths.append(len(text))
        return super().text(text)


def test_a_paste_too_long_for_a_memory_is_refused_before_it_is_read(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> None:
    watched = _Watched()
    chat = ChatService(store, memories, broker, prompts, ModelSettings(), redactor=watched)
    conversation = chat.new_conversation()
    paste = "A line of a log file I pasted by mistake. " * 2_500  # 107 KB

    with pytest.raises(MemoryRefused, match="Too long"):
        chat.remember(paste, conversation.id)

    assert not [n for n in watched.lengths if n > 10_000]  # never read whole
    assert store.messages(conversation.id) == []  # no source of nothing kept


def test_a_memory_that_fits_keeps_its_command_as_its_source(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> None:
    chat = ChatService(store, memories, broker, prompts, ModelSettings(), redactor=_Watched())
    conversation = chat.new_conversation()

    remembered = chat.remember("My dog Rex is a beagle.", conversation.id)

    assert remembered.source is not None
    assert remembered.source.content == "/remember My dog Rex is a beagle."
