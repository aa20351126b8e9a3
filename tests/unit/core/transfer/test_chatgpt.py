"""Reading a ChatGPT conversation: the branch the user saw last, only what
they saw as messages, and nothing assumed present."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.transfer import chatgpt
from desktop.core.transfer.foreign import ForeignConversation, Unusable
from tests.unit.core.transfer.exports import START, chatgpt_line, node
from tests.unit.core.transfer.exports import chatgpt as conversation_of


def _read(item: object) -> ForeignConversation:
    read = chatgpt.conversation(item)
    assert isinstance(read, ForeignConversation), read
    return read


def _said(read: ForeignConversation) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in read.messages]


def _branched() -> dict[str, Any]:
    """The user edited their first message (a new branch), then asked for
    the answer again (another): the second answer to the edit is current."""
    nodes = [
        node("root", None, parent=None, children=["q1", "q1-edited"]),
        node("q1", "user", ["What is 2+2?"], parent="root", children=["a1"], create_time=START),
        node("a1", "assistant", ["4"], parent="q1", create_time=START + 1),
        node(
            "q1-edited",
            "user",
            ["What is 3+3?"],
            parent="root",
            children=["a2", "a2-again"],
            create_time=START + 2,
        ),
        node("a2", "assistant", ["5, no: 6"], parent="q1-edited", create_time=START + 3),
        node("a2-again", "assistant", ["6"], parent="q1-edited", create_time=START + 4),
    ]
    return conversation_of("branched", "Sums", nodes, "a2-again")


def test_only_the_branch_of_the_current_node_is_kept() -> None:
    read = _read(_branched())
    assert _said(read) == [("user", "What is 3+3?"), ("assistant", "6")]
    assert [m.created_at for m in read.messages] == [START + 2, START + 4]
    assert (read.external_id, read.title) == ("branched", "Sums")


def test_without_a_current_node_the_newest_branch_is_kept() -> None:
    item = _branched()
    for current in (None, "no-such-node"):
        item["current_node"] = current
        assert _said(_read(item)) == [("user", "What is 3+3?"), ("assistant", "6")]


def test_hidden_system_tool_and_empty_nodes_are_left_out_and_attachments_counted() -> None:
    image = {"content_type": "image_asset_pointer", "asset_pointer": "file-service://x"}
    nodes = [
        node("root", None, parent=None, children=["sys"]),
        node("sys", "system", ["You are ChatGPT"], parent="root", children=["ctx"]),
        node(
            "ctx",
            "user",
            ["custom instructions"],
            parent="sys",
            children=["q"],
            metadata={"is_visually_hidden_from_conversation": True},
        ),
        node(
            "q",
            "user",
            [image, "What is in this picture?"],
            parent="ctx",
            children=["call"],
            content={
                "content_type": "multimodal_text",
                "parts": [image, "What is in this picture?"],
            },
        ),
        node(
            "call",
            "assistant",
            parent="q",
            children=["result"],
            recipient="python",
            content={"content_type": "code", "language": "python", "text": "look()"},
        ),
        node("result", "tool", ["a cat"], parent="call", children=["blank"]),
        node("blank", "assistant", [""], parent="result", children=["thinking"]),
        node(
            "thinking",
            "assistant",
            parent="blank",
            children=["answer"],
            content={"content_type": "thoughts", "thoughts": []},
        ),
        node("answer", "assistant", ["A cat."], parent="thinking", children=["only-image"]),
        node("only-image", "user", [image], parent="answer"),
    ]
    read = _read(conversation_of("c", "Picture", nodes, "only-image"))
    assert _said(read) == [("user", "What is in this picture?"), ("assistant", "A cat.")]
    assert read.left_out == (
        "2 attachments (images, files)",
        "2 tool calls and results",
        "1 part of another kind (code output, reasoning)",
    )


def test_a_missing_create_time_is_the_parents_or_the_conversations() -> None:
    item = chatgpt_line("c", "t", "first", "second", "third")
    item["mapping"]["c-1"]["message"]["create_time"] = None
    item["mapping"]["c-0"]["message"]["create_time"] = None
    times = [m.created_at for m in _read(item).messages]
    assert times == [START, START, START + 20]  # the conversation's, then the parent's
    item["create_time"] = None
    read = _read(item)
    assert [m.created_at for m in read.messages] == [START + 20] * 3
    assert read.created_at == START + 20


def test_a_conversation_with_no_time_at_all_has_none() -> None:
    item = chatgpt_line("c", "t", "hello")
    item["create_time"] = item["update_time"] = None
    item["mapping"]["c-0"]["message"]["create_time"] = None
    read = _read(item)
    assert (read.created_at, read.updated_at, read.messages[0].created_at) == (None, None, None)


@pytest.mark.parametrize(
    "damage",
    [
        lambda c: c.pop("title"),
        lambda c: c.update(title=None),
        lambda c: c.update(title=17),
        lambda c: c.pop("create_time"),
        lambda c: c.update(create_time="yesterday"),
        lambda c: c.update(create_time=float("nan")),
        lambda c: c.pop("update_time"),
        lambda c: c.pop("conversation_id"),
        lambda c: c.pop("current_node"),
        lambda c: c.update(current_node=["odd"]),
        lambda c: c["mapping"]["c-1"].pop("parent"),
        lambda c: c["mapping"]["c-1"].pop("children"),
        lambda c: c["mapping"]["c-1"].update(children="c-2"),
        lambda c: c["mapping"]["c-1"]["message"].pop("author"),
        lambda c: c["mapping"]["c-1"]["message"].pop("content"),
        lambda c: c["mapping"]["c-1"]["message"]["content"].pop("parts"),
        lambda c: c["mapping"]["c-1"]["message"]["content"].update(parts=None),
        lambda c: c["mapping"]["c-1"]["message"].update(metadata=None),
        lambda c: c["mapping"]["c-1"]["message"].update(id=None),
        lambda c: c["mapping"].update({"c-1": "not a node"}),
        lambda c: c["mapping"]["c-1"].update(message="not a message"),
    ],
)
def test_any_field_may_be_missing_or_odd(damage: Any) -> None:
    item = chatgpt_line("c", "t", "first", "second", "third")
    damage(item)
    read = chatgpt.conversation(item)
    assert isinstance(read, ForeignConversation | Unusable)


def test_a_conversation_with_nothing_usable_is_skipped_with_its_reason() -> None:
    empty = chatgpt.conversation({})
    assert isinstance(empty, Unusable) and empty.reason == "no message with text"
    assert isinstance(chatgpt.conversation([1, 2]), Unusable)
    only_images = conversation_of(
        "img",
        "Pictures",
        [node("q", "user", [{"content_type": "image_asset_pointer"}], parent=None)],
        "q",
    )
    skipped = chatgpt.conversation(only_images)
    assert skipped == Unusable(
        "Pictures", "img", "no message with text (left out: 1 attachment (image, file))"
    )


def test_a_conversation_without_an_id_gets_the_same_one_each_time() -> None:
    item = chatgpt_line("c", "t", "hello")
    del item["conversation_id"], item["id"]
    first, again = _read(item).external_id, _read(item).external_id
    assert first == again and first.startswith("sha256:")
    item["title"] = "another"
    assert _read(item).external_id != first


def test_a_cycle_of_parents_ends() -> None:
    nodes = [
        node("a", "user", ["one"], parent="b", children=["b"]),
        node("b", "assistant", ["two"], parent="a", children=["a"]),
    ]
    assert len(_read(conversation_of("loop", "t", nodes, "b")).messages) == 2
    assert isinstance(
        chatgpt.conversation(conversation_of("loop", "t", nodes, None)),
        ForeignConversation | Unusable,
    )


def test_odd_unicode_is_kept_as_valid_text() -> None:
    said = "\u202eevil\u202c \u200f\u05e9\u05dc\u05d5\u05dd 😀👩‍👩‍👧 \ud83d lone\x00nul"
    read = _read(chatgpt_line("c", "t\ud800itle", said))
    text = read.messages[0].text
    assert text == "\u202eevil\u202c \u200f\u05e9\u05dc\u05d5\u05dd 😀👩‍👩‍👧 \ufffd lonenul"
    assert read.title == "t\ufffditle"
    text.encode("utf-8")  # no lone surrogate left
