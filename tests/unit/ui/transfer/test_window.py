"""The Import and export window on a real database: an export written, a
ChatGPT export previewed then imported, a cancel, a refused file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore
from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.archive import export_archive
from desktop.core.transfer.imports import Imports
from desktop.ui.transfer.window import TransferWindow
from tests.unit.core.transfer.archive_world import World, fill, folder
from tests.unit.core.transfer.exports import chatgpt_line, write_json

WAIT_MS = 20_000


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    made = fill(folder(tmp_path / "data"))
    yield made
    made.database.close()


@pytest.fixture
def window(qtbot: QtBot, world: World) -> Iterator[TransferWindow]:
    database, paths = world.database, world.paths
    view = TransferWindow(
        Imports(database, paths, Redactor()),
        lambda target: export_archive(database, paths, target, overwrite=True),
    )
    qtbot.addWidget(view)
    view.show()
    yield view
    view.shutdown()


def _chatgpt(path: Path, count: int) -> Path:
    return write_json(
        path,
        [
            chatgpt_line(f"id{i}", f"Garden {i}", f"Tulips {i}?", f"In autumn {i}.")
            for i in range(count)
        ],
    )


def test_export_everything_writes_the_archive_and_says_what_is_in_it(
    qtbot: QtBot, window: TransferWindow, tmp_path: Path
) -> None:
    target = tmp_path / "everything.zip"
    window.export_to(target)
    assert not window.export_button.isEnabled()  # one job at a time
    qtbot.waitUntil(lambda: window.notice.text().startswith("Exported "), timeout=WAIT_MS)
    assert target.is_file() and str(target) in window.notice.text()
    assert window.export_button.isEnabled()


def test_an_export_is_previewed_before_anything_is_imported_then_imported(
    qtbot: QtBot, window: TransferWindow, world: World, tmp_path: Path
) -> None:
    store = ConversationStore(world.database)
    before = len(store.list())
    window.preview_file(_chatgpt(tmp_path / "conversations.json", 2))
    qtbot.waitUntil(window.preview.isVisible, timeout=WAIT_MS)
    assert window.preview.text().splitlines() == [
        "This is a ChatGPT export.",
        "It would add 2 conversations (4 messages).",
    ]
    assert window.learn.isVisible() and window.learn.isChecked()
    assert window.import_button.isEnabled() and len(store.list()) == before

    window.learn.setChecked(False)
    with qtbot.waitSignal(window.imported, timeout=WAIT_MS):
        window.import_button.click()
    qtbot.waitUntil(lambda: "imported from ChatGPT" in window.notice.text(), timeout=WAIT_MS)
    assert "Reverie will not learn from them" in window.notice.text()
    assert len(store.list()) == before + 2
    assert not window.import_button.isVisible()  # the preview is spent


def test_a_cancelled_import_keeps_only_whole_conversations(
    qtbot: QtBot, window: TransferWindow, world: World, tmp_path: Path
) -> None:
    store = ConversationStore(world.database)
    window.preview_file(_chatgpt(tmp_path / "conversations.json", 60))
    qtbot.waitUntil(window.import_button.isEnabled, timeout=WAIT_MS)
    window.start_import()
    window.cancel()
    qtbot.waitUntil(lambda: "cancelled" in window.notice.text(), timeout=WAIT_MS)
    added = [c for c in store.list() if c.imported_from == "chatgpt"]
    assert len(added) < 60
    for conversation in added:  # each whole: its question and its answer
        assert len(store.messages(conversation.id)) == 2


def test_a_file_that_is_no_export_is_refused_with_the_reason(
    qtbot: QtBot, window: TransferWindow, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.json"
    notes.write_text('{"shopping": ["milk"]}', encoding="utf-8")
    window.preview_file(notes)
    qtbot.waitUntil(window.problem.isVisible, timeout=WAIT_MS)
    assert "not a ChatGPT or Claude export" in window.problem.text()
    assert not window.import_button.isVisible()


def test_nothing_is_imported_while_the_app_refuses_writing_and_it_says_why(
    qtbot: QtBot, world: World, tmp_path: Path
) -> None:
    database, paths = world.database, world.paths
    view = TransferWindow(
        Imports(database, paths, Redactor()),
        lambda target: export_archive(database, paths, target),
        refusal=lambda: "Reverie's database is damaged.",
    )
    qtbot.addWidget(view)
    store = ConversationStore(database)
    before = len(store.list())
    view.preview_file(_chatgpt(tmp_path / "conversations.json", 2))
    qtbot.waitUntil(view.import_button.isEnabled, timeout=WAIT_MS)
    view.import_button.click()
    assert view.problem.text() == "Nothing was imported: Reverie's database is damaged."
    assert not view.busy and len(store.list()) == before
    view.shutdown()


def test_esc_closes_it_as_every_window(qtbot: QtBot, window: TransferWindow) -> None:
    # A keyboard user closed every other window so, and this one not (round 33).
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window.export_button, Qt.Key.Key_Escape)
    assert not window.isVisible()
