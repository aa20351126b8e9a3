"""Round 26: a compaction racing a change to what it summarises.

The model writes the summary for seconds; the messages it was given were
read before.  A message deleted meanwhile (an edit), one a later message
took a secret out of, or a summary another compaction wrote meanwhile was
not looked at again: the summary written held the deleted message or the
secret (in every later prompt), or chained the same messages twice.  Now
nothing is written from what changed; the compaction is made again, once.
"""

from __future__ import annotations

import threading

from desktop.core.base.jobs import JobControl
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database, MessageRole
from tests.fakes import ScriptedChatModel, StepGate
from tests.unit.core.chat.test_chat_redaction import rows_holding

TIMEOUT = 10
SECRET = "Bn5Qt62Wx"


def _fill(store: ConversationStore, conversation_id: int, count: int, start: int = 0) -> None:
    for n in range(start, start + count):
        role: MessageRole = "user" if n % 2 == 0 else "assistant"
        store.add_message(conversation_id, role, f"message {n} about the garden")


def _compacting(
    chat: ChatService, conversation_id: int, model: ScriptedChatModel
) -> threading.Thread:
    """A compaction started and held at its model call."""
    gate = StepGate()
    model.gate = gate
    runner = threading.Thread(target=chat.compact, args=(conversation_id, JobControl()))
    runner.start()
    gate.wait_for_arrival(1)
    return runner


def _released(model: ScriptedChatModel, runner: threading.Thread) -> None:
    assert isinstance(model.gate, StepGate)
    model.gate.open()
    runner.join(TIMEOUT)
    assert not runner.is_alive()


def test_a_secret_named_while_its_message_is_summarised_never_reaches_the_summary(
    chat: ChatService, store: ConversationStore, model: ScriptedChatModel, database: Database
) -> None:
    conversation = chat.new_conversation()
    chat.send(conversation.id, SECRET)
    _fill(store, conversation.id, 13, start=1)
    chat.send(conversation.id, SECRET)
    model.queue(f"The user wrote {SECRET} about the garden.", "They talked about the garden.")
    runner = _compacting(chat, conversation.id, model)

    chat.send(conversation.id, "^ that's my email password")
    _released(model, runner)

    assert SECRET not in model.requests[-1][0][0].content
    summary = chat.conversation(conversation.id)
    assert summary is not None and summary.summary == "They talked about the garden."
    assert rows_holding(database, SECRET) == []


def test_a_message_deleted_while_it_is_summarised_is_not_in_the_summary(
    chat: ChatService, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = chat.new_conversation()
    _fill(store, conversation.id, 4)
    regretted = store.add_message(conversation.id, "user", "the pin of the safe is 4711")
    _fill(store, conversation.id, 12, start=5)
    model.queue("The safe's pin is 4711.", "They talked about the garden.")
    runner = _compacting(chat, conversation.id, model)

    store.delete_messages_from(conversation.id, regretted.id)
    _fill(store, conversation.id, 12, start=20)
    _released(model, runner)

    assert "4711" not in model.requests[-1][0][0].content
    compacted = chat.conversation(conversation.id)
    assert compacted is not None and compacted.summary == "They talked about the garden."


def test_a_summary_written_meanwhile_is_not_chained_with_the_same_messages_again(
    chat: ChatService, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = chat.new_conversation()
    _fill(store, conversation.id, 16)
    model.queue("They talked about the garden.")
    runner = _compacting(chat, conversation.id, model)

    # Another compaction (the background one) went first, from the same messages.
    folded = store.messages(conversation.id)[:6]
    store.apply_compaction(conversation.id, "The garden, summarised.", folded[-1].id)
    _released(model, runner)

    compacted = chat.conversation(conversation.id)
    assert compacted is not None and compacted.summary == "The garden, summarised."
    assert len(model.requests) == 1
