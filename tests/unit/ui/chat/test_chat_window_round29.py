"""Round 29: showing a conversation again (as each batch of background
work's reports does, the open conversation getting a report) read all of
its messages five times: once for the transcript, three times to find the
user's last message and the answer to it (what Edit and Regenerate are
offered on), once to see whether anything had been said.  They are now
read once, the others by the messages they need (and since round 30, only
the page shown is read: ``test_chat_window_round30``)."""

from __future__ import annotations

from desktop.core.db import Database
from desktop.ui.chat.history import SHOWN_AT_ONCE
from desktop.ui.chat.window import ChatWindow
from tests.reads import rows_read_by
from tests.unit.ui.chat.test_chat_window import _actions

MESSAGES = 2_000


def test_showing_a_long_conversation_again_reads_its_messages_once(
    window: ChatWindow, database: Database
) -> None:
    shown = window.conversation_id
    assert shown is not None
    with database.transaction() as tx:
        for n in range(MESSAGES):
            role = "user" if n % 2 else "assistant"
            tx.execute(
                "INSERT INTO messages (conversation_id, role, content, created_at)"
                " VALUES (?, ?, ?, 0)",
                (shown, role, f"Message number {n}"),
            )

    read = rows_read_by(lambda: window.open_conversation(shown), database)

    assert read < 2 * SHOWN_AT_ONCE
    labels = _actions(window)  # still offered on the last exchange alone
    assert labels[f"Message number {MESSAGES - 1}"] == ["Edit", "Regenerate"]  # unanswered
    assert labels[f"Message number {MESSAGES - 3}"] == []
