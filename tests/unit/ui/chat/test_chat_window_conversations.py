"""The chat window's conversation list, wired to the chat service: a
conversation erased for good (the open one too), restored from Recently
deleted, or its skipped part learned again."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore, Database
from desktop.ui.chat.window import ChatWindow

WAIT_MS = 10_000
MARKER = b"quillferonic"


def _on_disk(database: Database) -> bytes:
    return b"".join(
        path.read_bytes().lower() for path in database.path.parent.glob(f"{database.path.name}*")
    )


def test_erasing_the_open_conversation_opens_another_and_leaves_no_trace(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore, database: Database
) -> None:
    other = store.create("Tea")
    opened = window.conversation_id
    assert opened is not None
    store.add_message(opened, "user", "My neighbour Quillferonic plays the oboe at night")

    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        window.conversation_list.erase_requested.emit(opened)

    assert store.get(opened) is None
    assert window.conversation_id == other.id
    assert MARKER not in _on_disk(database)
    assert "Erased 1 conversation for good" in window.transcript.plain_text()


def test_recently_deleted_lists_the_deleted_and_restores_one(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore
) -> None:
    gone = store.create("Cousins")
    store.delete(gone.id)
    listed = window.conversation_list

    listed.deleted_button.click()
    assert [listed.items.item(r).text().split("  ·")[0] for r in range(listed.items.count())] == [
        "Cousins"
    ]
    assert "until" in listed.items.item(0).text()
    listed.restore_requested.emit(gone.id)

    restored = store.get(gone.id)
    assert restored is not None and restored.deleted_at is None
    assert listed.items.count() == 0  # still the deleted view, now empty
    listed.deleted_button.click()
    assert gone.id in [c.id for c in store.list()]


def test_learn_again_makes_the_skipped_part_due(
    window: ChatWindow, store: ConversationStore
) -> None:
    conversation = store.create("Garden")
    first = store.add_message(conversation.id, "user", "The roses need pruning in March")
    store.skip_harvest(conversation.id, first.id, first.id, attempts=4, reason="unusable")
    assert store.harvest_gaps(conversation.id, asked_again=True) == []

    window.conversation_list.learn_again_requested.emit(conversation.id)

    assert [g.conversation_id for g in store.harvest_gaps(conversation.id, asked_again=True)] == [
        conversation.id
    ]
    assert "read again" in window.statusBar().currentMessage()
