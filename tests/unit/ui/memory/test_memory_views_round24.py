"""A memory's sources, its history and the forget preview (round 24): their
labels and buttons show with them, never as windows of their own for a
moment (a flash on screen, and a quit Qt had planned dropped)."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop.core.db import Database, MemoryStore
from desktop.ui.memory.views import ForgetPreview, HistoryView, SourceView
from tests.stray_windows import windows_opened


def test_a_source_and_a_history_step_open_no_window(qtbot: QtBot, database: Database) -> None:
    store = MemoryStore(database)
    memory = store.add(
        "The user's cat is Miso", embedding=None, source_kind="harvested", actor="harvest"
    )
    [added] = store.history(memory.id)

    with windows_opened() as opened:
        source = SourceView("“Pets” · you · today", "My cat is Miso", conversation_id=1)
        step = HistoryView(added)
    qtbot.addWidget(source)
    qtbot.addWidget(step)

    assert opened == []
    assert not source.body.isHidden() and not source.open_button.isHidden()
    assert not step.change.isHidden()
    assert SourceView("No source was recorded.").body.isHidden()  # what is empty stays hidden


def test_the_forget_preview_opens_as_one_window(qtbot: QtBot, database: Database) -> None:
    store = MemoryStore(database)
    memory = store.add("Miso is a cat", embedding=None, source_kind="harvested", actor="harvest")
    parent = QWidget()
    qtbot.addWidget(parent)

    with windows_opened() as opened:
        preview = ForgetPreview("Miso", [memory], parent, can_erase=True)
        preview.show()

    assert opened == ["forget-preview"]
    assert not preview.items.isHidden() and not preview.erase_button.isHidden()
    preview.close()
