"""Round 32: the first reply in a conversation of thousands of messages
never summarised (a long chat export imported, then gone on with).

The turn read the whole history twice, redacted every message for the
prompt, then compacted all but the last ten before the reply: every
message read and redacted again for the summariser, one model call per
chunk.  With 50,000 messages the reply started after 45 seconds (with a
scripted model; a real one summarises for far longer).  Now a turn reads
the newest messages that fit, says once that the older ones are
summarised in the background, and the background summarises them a
bounded batch at a time, each written before the next is read.
"""

from __future__ import annotations

import pytest

from desktop.core.base.settings import ModelSettings
from desktop.core.chat.service import BACKGROUND_BATCHES, ChatService, Stage
from desktop.core.chat.tail import PAGE
from desktop.core.db import ConversationStore, Database
from tests.bench.long_history import imported
from tests.fakes import Recorder, ScriptedChatModel
from tests.reads import rows_read_by

TOO_MANY = "older messages are too many to summarise before a reply"


@pytest.fixture
def model_settings() -> ModelSettings:
    """A small context, so that a batch summarises some dozens of messages."""
    return ModelSettings(context_length=2048, max_reply_tokens=64)


def _first_turn(
    chat: ChatService, database: Database, conversation_id: int
) -> tuple[int, Recorder]:
    recorder = Recorder()
    turn = chat.send(conversation_id, "hi")
    return rows_read_by(lambda: chat.run(turn, recorder), database), recorder


def test_the_first_turn_reads_what_fits_however_long_the_history(
    chat: ChatService, store: ConversationStore, database: Database, model: ScriptedChatModel
) -> None:
    shorter = imported(store, 2_000)
    longer = imported(store, 4_000)

    read_shorter, _ = _first_turn(chat, database, shorter)
    read_longer, recorder = _first_turn(chat, database, longer)

    # The same tail, whatever is before it (a page more at most: the numbers
    # in the messages count more tokens as they grow).
    assert read_shorter < 1_000 and read_longer <= read_shorter + PAGE
    assert len(model.requests) == 2  # the replies alone: nothing summarised first
    assert ("stage", Stage.COMPACTING) not in recorder.events
    [notice] = recorder.notices()
    assert TOO_MANY in notice
    prompt = model.requests[-1][0]
    assert prompt[-1].content.endswith("hi")
    assert prompt[-2].content.endswith("(3999)")
    assert not any("(0)" in m.content for m in prompt)
    assert len(store.messages(longer)) == 4_000 + 2  # nothing archived, nothing lost


def _rows_listing(chat: ChatService, database: Database, conversation_id: int) -> int:
    """The rows ``/memory`` reads in the conversation."""
    return rows_read_by(lambda: chat.given_memories(conversation_id), database)


def test_it_is_said_once_and_the_next_turns_read_no_more(
    chat: ChatService, store: ConversationStore, database: Database, model: ScriptedChatModel
) -> None:
    conversation = imported(store, 3_000)
    first, _ = _first_turn(chat, database, conversation)

    again, recorder = _first_turn(chat, database, conversation)

    assert recorder.notices() == []
    assert again <= first + 2  # the two messages the first turn added


def test_memory_lists_what_the_next_reply_reads_without_reading_the_whole_history(
    chat: ChatService, store: ConversationStore, database: Database
) -> None:
    shorter = imported(store, 1_000)
    longer = imported(store, 3_000)

    read = [_rows_listing(chat, database, c) for c in (shorter, longer)]

    assert read[0] < 1_000 and read[1] <= read[0] + PAGE


def test_the_background_summarises_the_rest_a_bounded_batch_at_a_time(
    chat: ChatService, store: ConversationStore, database: Database, model: ScriptedChatModel
) -> None:
    conversation = imported(store, 2_500)
    _first_turn(chat, database, conversation)  # finds the history too long, owes it
    asked = len(model.requests)
    model.default = "They planned the garden."

    assert chat.compact_idle() == 1
    summarised = model.requests[asked:]

    assert len(summarised) == BACKGROUND_BATCHES
    prompts = [messages[0].content for messages, _ in summarised]
    assert "[PRIOR SUMMARY]\n(none yet)\n\n[NEW MESSAGES]\nUser: Can you help" in prompts[0]
    assert all("[PRIOR SUMMARY]\nThey planned the garden." in p for p in prompts[1:])
    live = store.messages(conversation)
    archived = len(store.messages(conversation, include_archived=True)) - len(live)
    folded = "".join(prompts)
    assert all(f"({n})" in folded for n in range(archived))
    assert f"({archived})" not in folded  # what is summarised is archived, no more
    assert live[0].content.endswith(f"({archived})")

    while chat.compact_idle():  # a run after another, until nothing is owed
        pass

    live = store.messages(conversation)
    assert len(live) == 10  # the last ten stay word for word
    assert len(store.messages(conversation, include_archived=True)) == 2_500 + 2
    calls = len(model.requests)
    assert chat.compact_idle() == 0 and len(model.requests) == calls  # no longer owed


def test_an_imported_history_no_one_goes_on_with_is_not_summarised(
    chat: ChatService, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = imported(store, 2_500)

    assert chat.compact_idle() == 0
    assert model.requests == []
    assert len(store.messages(conversation)) == 2_500
