"""Round 30 of issue 15 against the chat window: a very long conversation.

Opening a conversation put its last ``SHOWN_AT_ONCE`` messages on screen,
yet read every message it had to find them (and read them all again for
each "Show earlier"): a conversation of 50,000 messages read 50,000 rows
and held them all in memory to show 50.  It now reads the page it shows,
and the next page when asked."""

from __future__ import annotations

from functools import partial

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore, Database
from desktop.core.db.conversations import ImportedMessage
from desktop.ui.chat.history import SHOWN_AT_ONCE
from desktop.ui.chat.window import ChatWindow
from tests.reads import rows_read_by

LONG = 50_000


def _conversation(database: Database, store: ConversationStore, messages: int) -> int:
    """A conversation of *messages* alternating questions and answers; its id."""
    conversation = store.create(f"{messages} messages")
    said = [
        ImportedMessage("user" if n % 2 == 0 else "assistant", f"message {n}", 1e9 + n)
        for n in range(messages)
    ]
    with database.transaction() as tx:
        store.add_imported_messages(conversation.id, said, tx)
    return conversation.id


@pytest.fixture
def conversations(database: Database, store: ConversationStore) -> tuple[int, int]:
    """A conversation a few pages long, and one of ``LONG`` messages."""
    return _conversation(database, store, 3 * SHOWN_AT_ONCE), _conversation(database, store, LONG)


def test_opening_a_long_conversation_reads_the_page_it_shows(
    window: ChatWindow, database: Database, conversations: tuple[int, int]
) -> None:
    short, long = conversations

    read = [rows_read_by(partial(window.show_conversation, c), database) for c in (short, long)]

    assert read[1] == read[0] < 2 * SHOWN_AT_ONCE
    shown = [view.text for view in window.transcript.messages]
    assert shown == [f"message {n}" for n in range(LONG - SHOWN_AT_ONCE, LONG)]
    assert (
        f"{LONG - SHOWN_AT_ONCE:,} earlier messages are not shown."
        in window.transcript.plain_text()
    )


def test_showing_earlier_messages_reads_the_next_page(
    window: ChatWindow, database: Database, conversations: tuple[int, int]
) -> None:
    window.show_conversation(conversations[1])

    read = rows_read_by(window.transcript._earlier_button.click, database)

    assert read < 2 * SHOWN_AT_ONCE
    shown = [view.text for view in window.transcript.messages]
    assert shown == [f"message {n}" for n in range(LONG - 2 * SHOWN_AT_ONCE, LONG)]


def test_scrolling_to_the_top_shows_the_earlier_page(
    qtbot: QtBot, window: ChatWindow, conversations: tuple[int, int]
) -> None:
    window.resize(700, 600)
    window.show_conversation(conversations[1])
    bar = window.transcript.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)

    bar.setValue(bar.minimum())  # as the wheel or the scroll bar does

    qtbot.waitUntil(lambda: len(window.transcript.messages) == 2 * SHOWN_AT_ONCE)
    assert window.transcript.messages[0].text == f"message {LONG - 2 * SHOWN_AT_ONCE}"
