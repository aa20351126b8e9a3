"""Round 31 of issue 15 against the chat window: opening a long conversation
at an old message (a recall chip, a search hit, a memory's source).

The window read from that message to the conversation's end: opened at its
100th message, a conversation of 50,000 read 49,906 rows and put as many
widgets on screen.  It now reads one page around the message, and the
next page either way when asked for or scrolled to."""

from __future__ import annotations

from functools import partial

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore, Database
from desktop.ui.chat.history import SHOWN_AT_ONCE
from desktop.ui.chat.window import ChatWindow
from tests.reads import rows_read_by
from tests.unit.ui.chat.test_chat_window_round30 import _conversation as conversation_of

LONG = 50_000
ASKED = 100
"""The position of the message asked for: long before the last page."""


def _conversation(
    database: Database, store: ConversationStore, messages: int
) -> tuple[int, list[int]]:
    """A conversation of *messages* ("message 0", …): its id and its messages' ids."""
    conversation = conversation_of(database, store, messages)
    return conversation, [m.id for m in store.page(conversation, messages).messages]


@pytest.fixture
def long(database: Database, store: ConversationStore) -> tuple[int, list[int]]:
    return _conversation(database, store, LONG)


def _shown(window: ChatWindow) -> list[str]:
    return [view.text for view in window.transcript.messages]


def test_opening_at_an_old_message_reads_a_page_around_it(
    window: ChatWindow, database: Database, long: tuple[int, list[int]]
) -> None:
    conversation, ids = long

    read = rows_read_by(partial(window.open_conversation, conversation, ids[ASKED]), database)

    assert read < 2 * SHOWN_AT_ONCE
    shown = _shown(window)
    assert len(shown) == SHOWN_AT_ONCE and "message 100" in shown
    assert shown[0] == "message 95"  # a few before it, for its context
    view = window.transcript.view_of(ids[ASKED])
    assert view is not None and view.property("found")
    text = window.transcript.plain_text()
    assert "95 earlier messages are not shown." in text
    assert f"{LONG - 95 - SHOWN_AT_ONCE:,} later messages are not shown." in text


def test_showing_later_messages_reads_the_next_page(
    window: ChatWindow, database: Database, long: tuple[int, list[int]]
) -> None:
    conversation, ids = long
    window.open_conversation(conversation, ids[ASKED])

    read = rows_read_by(window.transcript._later_button.click, database)

    assert read < 2 * SHOWN_AT_ONCE
    assert _shown(window) == [f"message {n}" for n in range(95, 95 + 2 * SHOWN_AT_ONCE)]
    assert f"{LONG - 95 - 2 * SHOWN_AT_ONCE:,} later messages are not shown." in (
        window.transcript.plain_text()
    )


def test_scrolling_to_the_bottom_shows_the_later_page(
    qtbot: QtBot, window: ChatWindow, long: tuple[int, list[int]]
) -> None:
    window.resize(700, 600)
    conversation, ids = long
    window.open_conversation(conversation, ids[ASKED])
    bar = window.transcript.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)

    bar.setValue(bar.maximum())  # as the wheel or the scroll bar does

    qtbot.waitUntil(lambda: len(window.transcript.messages) == 2 * SHOWN_AT_ONCE)
    assert _shown(window)[-1] == f"message {95 + 2 * SHOWN_AT_ONCE - 1}"
    text = window.transcript.plain_text()
    assert text.index("message 144") < text.index("message 145") < text.index("later messages")


def test_jumping_to_the_latest_shows_the_conversations_end(
    window: ChatWindow, long: tuple[int, list[int]]
) -> None:
    conversation, ids = long
    window.open_conversation(conversation, ids[ASKED])

    window.transcript.jump_button.click()

    assert _shown(window) == [f"message {n}" for n in range(LONG - SHOWN_AT_ONCE, LONG)]
    assert "later messages" not in window.transcript.plain_text()


def test_a_message_sent_from_an_old_page_comes_after_the_conversations_end(
    qtbot: QtBot, window: ChatWindow, database: Database, store: ConversationStore
) -> None:
    messages = 4 * SHOWN_AT_ONCE  # a turn reads what the model reads: kept short
    conversation, ids = _conversation(database, store, messages)
    window.open_conversation(conversation, ids[ASKED])

    window.input.setPlainText("And now?")
    with qtbot.waitSignal(window.turn_ended, timeout=10_000):
        window.send()

    shown = _shown(window)
    assert shown[-3:] == [f"message {messages - 1}", "And now?", "Hello there, friend."]
    assert "later messages" not in window.transcript.plain_text()


def test_a_notice_waits_for_the_conversations_end_to_be_shown(
    window: ChatWindow, long: tuple[int, list[int]]
) -> None:
    conversation, ids = long
    window.open_conversation(conversation, ids[ASKED])

    window.notice("Reminder of task #3: water the plants.")

    assert "message 100" in _shown(window)  # what the user reads stays
    assert "water the plants" not in window.transcript.plain_text()
    assert window.statusBar().currentMessage() == "Reminder of task #3: water the plants."
    window.transcript.jump_button.click()
    text = window.transcript.plain_text()
    assert text.index(f"message {LONG - 1}") < text.index("water the plants")


def test_the_last_exchange_offers_edit_and_regenerate_once_reached_by_show_later(
    window: ChatWindow, database: Database, store: ConversationStore
) -> None:
    conversation, ids = _conversation(database, store, 4 * SHOWN_AT_ONCE)
    window.open_conversation(conversation, ids[ASKED])
    assert window._actions == []  # the last exchange is not shown

    while window.transcript.later_hidden:
        window.transcript._later_button.click()

    assert _shown(window)[-1] == f"message {4 * SHOWN_AT_ONCE - 1}"
    assert [button.text() for button in window._actions] == ["Edit", "Regenerate"]
