"""Round 24 of issue 15 against the chat window: a long conversation.

Each message is a widget rendering its Markdown, and opening a conversation
put every one in: a conversation of 1,000 turns held the window for more
than a minute on this machine.  It now opens with its last
``SHOWN_AT_ONCE`` messages; a row at the top counts the rest and shows them,
that many at a time, above."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore
from desktop.ui.chat.history import SHOWN_AT_ONCE
from desktop.ui.chat.window import ChatWindow

TURNS = 65  # 130 messages: the last 50, then 50 more, then the last 30


@pytest.fixture
def long_conversation(window: ChatWindow, store: ConversationStore) -> list[int]:
    """A new conversation of ``TURNS`` exchanges; its message ids, in order."""
    conversation = store.create("A long one")
    ids = []
    for turn in range(TURNS):
        ids.append(store.add_message(conversation.id, "user", f"question {turn}").id)
        ids.append(store.add_message(conversation.id, "assistant", f"answer {turn}").id)
    window.show_conversation(conversation.id)
    return ids


def _shown(window: ChatWindow) -> list[str]:
    return [view.text for view in window.transcript.messages]


def _earlier_row(window: ChatWindow) -> str:
    text = window.transcript.plain_text()
    return text.split("\n\n")[0] if "not shown" in text.split("\n\n")[0] else ""


def _press_show_earlier(window: ChatWindow) -> None:
    window.transcript._earlier_button.click()


def test_a_long_conversation_opens_at_its_end_and_shows_the_rest_on_asking(
    window: ChatWindow, long_conversation: list[int]
) -> None:
    everything = [f"{kind} {turn}" for turn in range(TURNS) for kind in ("question", "answer")]
    assert _shown(window) == everything[-SHOWN_AT_ONCE:]
    assert _earlier_row(window) == "80 earlier messages are not shown."

    _press_show_earlier(window)
    assert _shown(window) == everything[-2 * SHOWN_AT_ONCE :]
    assert _earlier_row(window) == "30 earlier messages are not shown."

    _press_show_earlier(window)
    assert _shown(window) == everything
    assert _earlier_row(window) == ""
    # The transcript's rows are in the conversation's order too, not only its list.
    text = window.transcript.plain_text()
    assert text.index("question 0") < text.index("answer 29") < text.index("question 30")


def test_a_message_asked_for_in_the_hidden_part_is_shown(
    window: ChatWindow, long_conversation: list[int]
) -> None:
    asked = long_conversation[10]  # "question 5": long before the last 50
    conversation = window.conversation_id
    assert conversation is not None
    window.open_conversation(conversation, asked)

    view = window.transcript.view_of(asked)
    assert view is not None and view.text == "question 5"
    assert view.property("found")
    assert _earlier_row(window) == "5 earlier messages are not shown."


def test_the_row_read_before_earlier_messages_came_stays_in_view(
    qtbot: QtBot, window: ChatWindow, long_conversation: list[int]
) -> None:
    window.resize(700, 600)
    transcript = window.transcript
    bar = transcript.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(0)  # the user scrolled to the top, to the offer
    first = transcript.messages[0]
    content = transcript.widget()
    assert content is not None

    _press_show_earlier(window)

    def first_in_view() -> bool:
        top = first.mapTo(content, first.rect().topLeft()).y()
        return bar.value() <= top < bar.value() + transcript.viewport().height()

    qtbot.waitUntil(first_in_view)
    assert transcript.messages[0] is not first  # earlier ones came above it
    assert not transcript.following
