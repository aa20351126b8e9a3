"""Reading a Claude conversation: its text, its times, the branch ending
with the newest message, and nothing assumed present."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.transfer import claude
from desktop.core.transfer.foreign import ForeignConversation, Unusable, timestamp
from tests.unit.core.transfer.exports import claude as conversation_of


def _read(item: object) -> ForeignConversation:
    read = claude.conversation(item)
    assert isinstance(read, ForeignConversation), read
    return read


def test_the_text_times_ids_and_title_are_read() -> None:
    read = _read(conversation_of("u1", "Seeds", "when to sow?", "In March."))
    assert [(m.role, m.text) for m in read.messages] == [
        ("user", "when to sow?"),
        ("assistant", "In March."),
    ]
    assert [m.created_at for m in read.messages] == [
        timestamp("2024-05-01T12:00:00Z"),
        timestamp("2024-05-01T12:01:00Z"),
    ]
    assert (read.source, read.external_id, read.title) == ("claude", "u1", "Seeds")
    assert read.created_at == timestamp("2024-05-01T12:00:00Z")
    assert read.updated_at == timestamp("2024-05-01T12:01:00Z")


def test_text_blocks_are_kept_and_tools_thinking_and_attachments_counted() -> None:
    item = conversation_of("u1", "Files", "read this", "Done.")
    human, assistant = item["chat_messages"]
    human["attachments"] = [{"file_name": "notes.txt", "extracted_content": "..."}]
    human["files"] = [{"file_name": "photo.png"}]
    assistant["content"] = [
        {"type": "thinking", "thinking": "hm"},
        {"type": "tool_use", "name": "search", "input": {}},
        {"type": "tool_result", "content": []},
        {"type": "text", "text": "Done."},
        {"type": "text", "text": "Anything else?"},
    ]
    read = _read(item)
    assert read.messages[1].text == "Done.\n\nAnything else?"
    assert read.left_out == (
        "2 attachments (images, files)",
        "2 tool calls and results",
        "1 part of another kind (code output, reasoning)",
    )


def test_text_alone_is_read_without_content_blocks() -> None:
    item = conversation_of("u1", "Old", "hello", "hi")
    for message in item["chat_messages"]:
        del message["content"]
    assert [m.text for m in _read(item).messages] == ["hello", "hi"]


def test_of_branches_the_one_ending_with_the_newest_message_is_kept() -> None:
    root = "00000000-0000-4000-8000-000000000000"
    item = conversation_of("u1", "Retried", "q", "first answer", "q again", "second answer")
    first_q, first_a, second_q, second_a = item["chat_messages"]
    first_q["parent_message_uuid"] = root
    first_a["parent_message_uuid"] = first_q["uuid"]
    second_q["parent_message_uuid"] = root  # the question edited: a branch beside the first
    second_a["parent_message_uuid"] = second_q["uuid"]
    assert [m.text for m in _read(item).messages] == ["q again", "second answer"]


def test_unknown_senders_and_empty_messages_are_left_out() -> None:
    item = conversation_of("u1", "t", "hello", "", "again")
    item["chat_messages"][1]["content"] = []
    item["chat_messages"].append({"sender": "system", "text": "instructions"})
    assert [m.text for m in _read(item).messages] == ["hello", "again"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda c: c.pop("name"),
        lambda c: c.update(name=None),
        lambda c: c.pop("uuid"),
        lambda c: c.pop("created_at"),
        lambda c: c.update(created_at="not a time"),
        lambda c: c.pop("updated_at"),
        lambda c: c.update(chat_messages=None),
        lambda c: c.update(chat_messages="oops"),
        lambda c: c["chat_messages"].append(None),
        lambda c: c["chat_messages"][0].pop("sender"),
        lambda c: c["chat_messages"][0].pop("created_at"),
        lambda c: c["chat_messages"][0].update(content=[None, "x", {"type": "text"}]),
        lambda c: c["chat_messages"][0].update(text=None, content=None),
        lambda c: c["chat_messages"][0].update(attachments=None, files="x"),
        lambda c: c["chat_messages"][0].update(parent_message_uuid=c["chat_messages"][1]["uuid"]),
    ],
)
def test_any_field_may_be_missing_or_odd(damage: Any) -> None:
    item = conversation_of("u1", "t", "hello", "hi", "bye")
    damage(item)
    assert isinstance(claude.conversation(item), ForeignConversation | Unusable)


def test_a_conversation_with_nothing_usable_is_skipped_with_its_reason() -> None:
    empty = claude.conversation(conversation_of("u1", "Nothing"))
    assert empty == Unusable("Nothing", "u1", "no message with text")
    assert isinstance(claude.conversation("text"), Unusable)


def test_a_message_without_a_time_has_the_one_before_it() -> None:
    item = conversation_of("u1", "t", "hello", "hi")
    del item["chat_messages"][1]["created_at"]
    read = _read(item)
    assert read.messages[1].created_at == read.messages[0].created_at
