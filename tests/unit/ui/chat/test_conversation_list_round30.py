"""Round 30: a title that shows nothing (accents with no letter, a blank
braille cell), kept by a version before round 30, showed as an empty row
in the list and in Recently deleted; it shows as "Untitled" now, as an
empty title does."""

from __future__ import annotations

from desktop.core.db import ConversationStore, Database
from desktop.ui.chat.window import ChatWindow

NOTHING_SHOWN = "\u0301\u0302 \u2800"


def _kept_by_an_older_version(database: Database, store: ConversationStore) -> int:
    conversation = store.create("Trip")
    with database.transaction() as tx:
        tx.execute(
            "UPDATE conversations SET title = ? WHERE id = ?", (NOTHING_SHOWN, conversation.id)
        )
    return conversation.id


def _rows(window: ChatWindow) -> list[str]:
    items = window.conversation_list.items
    return [items.item(n).text() for n in range(items.count())]


def test_a_title_that_shows_nothing_is_listed_as_untitled(
    window: ChatWindow, database: Database, store: ConversationStore
) -> None:
    old = _kept_by_an_older_version(database, store)
    window.conversations.refresh()
    assert "Untitled" in _rows(window)

    store.delete(old)
    window.conversation_list.deleted_button.click()

    assert _rows(window)[0].startswith("Untitled  · until ")
