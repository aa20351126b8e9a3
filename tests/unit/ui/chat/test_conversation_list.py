"""Conversations in the side list: new, switch, search, rename, delete."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore
from desktop.core.db.conversations import TITLE_LIMIT
from desktop.ui.chat import conversation_actions
from desktop.ui.chat.window import ChatWindow
from tests.unit.ui.conftest import WAIT_MS, say


def titles(window: ChatWindow) -> list[str]:
    items = window.conversation_list.items
    return [items.item(row).text() for row in range(items.count())]


def test_the_first_message_names_the_conversation(qtbot: QtBot, window: ChatWindow) -> None:
    assert titles(window) == ["New conversation"]
    say(qtbot, window, "Plan my trip to Lisbon\nwith details")
    assert titles(window) == ["Plan my trip to Lisbon"]


def test_ctrl_n_starts_a_new_conversation_and_the_list_switches_between_them(
    qtbot: QtBot, window: ChatWindow
) -> None:
    say(qtbot, window, "First topic")
    first = window.conversation_id
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):  # Reverie greets first
        qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.conversation_id != first
    assert [view.role for view in window.transcript.messages] == ["seed"]
    say(qtbot, window, "Second topic")
    assert titles(window) == ["Second topic", "First topic"]

    items = window.conversation_list.items
    qtbot.mouseClick(
        items.viewport(),
        Qt.MouseButton.LeftButton,
        pos=items.visualItemRect(items.item(1)).center(),
    )
    assert window.conversation_id == first
    assert "First topic" in window.transcript.plain_text()
    assert "Second topic" not in window.transcript.plain_text()


def test_search_filters_by_title_and_message_text(qtbot: QtBot, window: ChatWindow) -> None:
    say(qtbot, window, "Roasting a pumpkin")
    window.new_conversation()
    say(qtbot, window, "Tax forms")
    with qtbot.waitSignal(window.conversation_list.search_changed, timeout=WAIT_MS):
        window.conversation_list.search.setText("pumpkin")
    assert titles(window) == ["Roasting a pumpkin"]
    with qtbot.waitSignal(window.conversation_list.search_changed, timeout=WAIT_MS):
        window.conversation_list.search.clear()
    assert titles(window) == ["Tax forms", "Roasting a pumpkin"]
    assert not window.conversation_list.nothing_found.isVisible()


def test_a_search_that_finds_nothing_says_so(qtbot: QtBot, window: ChatWindow) -> None:
    say(qtbot, window, "Roasting a pumpkin")
    with qtbot.waitSignal(window.conversation_list.search_changed, timeout=WAIT_MS):
        window.conversation_list.search.setText("zucchini")

    assert titles(window) == []
    said = window.conversation_list.nothing_found
    assert said.isVisible() and said.text() == "No conversation matches “zucchini”."


def test_rename_asks_for_the_new_name(
    qtbot: QtBot, window: ChatWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conversation_actions, "ask_text", lambda *args: ("Holiday", True))
    assert window.conversation_id is not None
    window.conversations.rename(window.conversation_id)
    assert titles(window) == ["Holiday"]


def test_a_name_longer_than_is_kept_is_cut_and_said(
    qtbot: QtBot, window: ChatWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert window.conversation_id is not None
    monkeypatch.setattr(conversation_actions, "ask_text", lambda *args: ("Trip " * 60, True))
    window.conversations.rename(window.conversation_id)
    (title,) = titles(window)
    assert len(title) == TITLE_LIMIT and title.endswith("…")
    assert window.statusBar().currentMessage() == (
        f"Names are kept to {TITLE_LIMIT} characters: the rest was left out."
    )

    name = "Trip " * 39 + "Rome"  # 199 characters: nothing is left out, nothing said
    monkeypatch.setattr(conversation_actions, "ask_text", lambda *args: (name, True))
    window.set_status("Ready")
    window.conversations.rename(window.conversation_id)
    assert titles(window) == [name]
    assert window.statusBar().currentMessage() == "Ready"


def test_delete_asks_first_and_a_no_keeps_the_conversation(
    qtbot: QtBot, window: ChatWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    say(qtbot, window, "Keep me")
    current = window.conversation_id
    assert current is not None
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    window.conversations.delete(current)
    assert titles(window) == ["Keep me"]

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    window.conversations.delete(current)
    assert titles(window) == ["New conversation"]  # a fresh one replaces the deleted current
    assert window.conversation_id != current


def test_the_list_and_new_button_have_accessible_names(window: ChatWindow) -> None:
    conversations = window.conversation_list
    assert conversations.search.accessibleName() == "Search conversations"
    assert conversations.items.accessibleName() == "Conversations"
    assert conversations.new_button.accessibleName() == "New conversation"


def test_f2_and_delete_keys_act_on_the_selected_conversation(
    qtbot: QtBot, window: ChatWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conversation_actions, "ask_text", lambda *args: ("Renamed", True))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    items = window.conversation_list.items
    items.setFocus()
    qtbot.keyClick(items, Qt.Key.Key_F2)
    assert titles(window) == ["Renamed"]
    first = window.conversation_id
    qtbot.keyClick(items, Qt.Key.Key_Delete)
    assert window.conversation_id != first
    assert titles(window) == ["New conversation"]


def test_an_imported_conversation_says_where_it_came_from(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore
) -> None:
    with store.transaction() as tx:
        store.create_imported(
            "Tulips",
            imported_from="chatgpt",
            external_id="c-1",
            created_at=1_700_000_000.0,
            updated_at=1_700_000_000.0,
            tx=tx,
        )
    window.conversations.refresh()
    qtbot.waitUntil(lambda: any("Tulips" in t for t in titles(window)), timeout=WAIT_MS)
    [entry] = [t for t in titles(window) if "Tulips" in t]
    assert entry == "Tulips  · from ChatGPT"
    items = window.conversation_list.items
    [item] = [items.item(i) for i in range(items.count()) if "Tulips" in items.item(i).text()]
    assert item.toolTip() == "Tulips\nImported from ChatGPT"
