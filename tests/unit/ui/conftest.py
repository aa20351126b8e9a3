"""The chat window on a real database and broker thread, with a scripted
model; every top-level window, each with something in it; their focus stops."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings, Settings
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.dedup import DedupPass
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.dreaming.erasure import Eraser
from desktop.core.dreaming.fading import DecayPass, StalePass
from desktop.core.memory.service import MemoryService
from desktop.core.privacy import known_words
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from desktop.ui.chat.window import ChatWindow
from desktop.ui.dreaming.report import DreamReportWindow
from desktop.ui.memory.browser import MemoryBrowser
from desktop.ui.settings.window import SettingsWindow
from desktop.ui.skills.editor import SkillEditorWindow
from desktop.ui.tasks.window import TasksWindow
from desktop.ui.workers.window import WorkWindow
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel
from tests.work import five_workers, workers_over

WAIT_MS = 10_000
Windows = dict[str, QWidget]


@pytest.fixture(scope="session", autouse=True)
def _word_lists_read() -> None:
    """The redactor's word lists read before a window opens, as the app reads
    them at start: read at a window's first reply instead, they took longer
    than ``WAIT_MS`` on a busy machine, in a test run of one file."""
    known_words.load()


@pytest.fixture
def window(
    qtbot: QtBot, chat: ChatService, model: ScriptedChatModel, eraser: Eraser
) -> Iterator[ChatWindow]:
    win = ChatWindow(chat, chat.latest_or_new_conversation().id, hide_on_close=False, eraser=eraser)
    qtbot.addWidget(win)
    try:  # shut down even when the greeting times out: a running thread's window aborts
        with qtbot.waitSignal(win.turn_ended, timeout=WAIT_MS):  # the conversation's greeting
            win.set_chat_available(True, "")
        model.requests.clear()  # each test counts its own
        win.show()
        yield win
    finally:
        win.shutdown()
    assert not win._worker.qthread.isRunning()


@pytest.fixture
def browser(
    qtbot: QtBot, memories: MemoryService, store: ConversationStore, eraser: Eraser
) -> Iterator[MemoryBrowser]:
    """The memory browser with "Delete now" (it has an eraser)."""
    window = MemoryBrowser(memories, store, eraser=eraser)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()


def say(qtbot: QtBot, window: ChatWindow, text: str, *, wait_ms: int = WAIT_MS) -> None:
    """Type *text* and press Enter; return once the turn ended."""
    window.input.setPlainText(text)
    with qtbot.waitSignal(window.turn_ended, timeout=wait_ms):
        qtbot.keyClick(window.input, Qt.Key.Key_Return)


def send_by_enter(qtbot: QtBot, window: ChatWindow, text: str) -> None:
    """Type *text* and press Enter; return once the message was stored (the
    reply may still be on its way)."""
    window.input.setFocus()
    qtbot.keyClicks(window.input, text)
    qtbot.keyClick(window.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.reading, timeout=WAIT_MS)


@pytest.fixture
def dreamer(
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> Dreamer:
    return Dreamer(
        database,
        memories,
        broker,
        prompts,
        DreamSettings(quiet_seconds=0),
        [DecayPass(), DedupPass(), StalePass()],
        snapshots_dir=tmp_path / "snapshots",
        working_set_file=tmp_path / "MEMORIES.md",
    )


@pytest.fixture
def windows(
    qtbot: QtBot,
    window: ChatWindow,
    memories: MemoryService,
    store: ConversationStore,
    dreamer: Dreamer,
    skill_library: SkillLibrary,
    task_service: TaskService,
    tmp_path: Path,
    database: Database,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> Iterator[Windows]:
    """Every top-level window Reverie has, each with something in it, shown."""
    memories.remember("The user likes green tea", source_kind="user_explicit", actor="user")
    task_service.add("Water the plants", conversation_id=None)
    skill_library.directory.mkdir(parents=True, exist_ok=True)
    (skill_library.directory / "tea.md").write_text("# Brew the tea\n\nSteep it.\n", "utf-8")
    window.notice("Dream finished: 1 change.")
    workers = workers_over(database, broker, prompts)
    five_workers(workers, database)
    built: Windows = {
        "chat": window,
        "memory browser": MemoryBrowser(memories, store),
        "dream report": DreamReportWindow(dreamer.dreams, dreamer.book, memories),
        "skill editor": SkillEditorWindow(skill_library),
        "tasks": TasksWindow(task_service, store),
        "settings": SettingsWindow(Settings(), tmp_path / "config" / "settings.json"),
        "work": WorkWindow(workers),
    }
    for widget in built.values():
        if widget is not window:
            qtbot.addWidget(widget)
        widget.show()
    yield built
    for name, widget in built.items():
        if name != "chat":
            widget.shutdown()  # type: ignore[attr-defined]  # every window beside the chat has one


def focus_stops(window: QWidget) -> list[QWidget]:
    """The visible widgets Tab stops at (a spin box, not the field inside it)."""
    return [
        widget
        for widget in window.findChildren(QWidget)
        if widget.isVisible()
        and widget.isEnabled()
        and widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        and not isinstance(widget.parentWidget(), QAbstractSpinBox | QComboBox)
    ]
