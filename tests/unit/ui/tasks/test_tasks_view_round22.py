"""Round 22: what the tasks window shows of a task written in HTML's characters."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.base.time_zones import local_zone
from desktop.core.db import ConversationStore, Database
from desktop.core.db.schedules import Interval
from desktop.core.db.tasks import TaskStore
from desktop.core.tasks.service import TaskService
from desktop.ui.tasks.views import KIND, TEXT
from desktop.ui.tasks.window import TasksWindow
from tests.tooltips import HOSTILE_TEXTS, tip_shows


@pytest.fixture
def tasks(database: Database) -> TaskService:
    return TaskService(TaskStore(database), local_zone())


@pytest.fixture
def view(qtbot: QtBot, tasks: TaskService, store: ConversationStore) -> Iterator[TasksWindow]:
    window = TasksWindow(tasks, store)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()


def test_a_tasks_tooltips_show_its_text_and_prompt_as_written(
    tasks: TaskService, view: TasksWindow
) -> None:
    """A task or a routine's prompt holding a tag was read as HTML in the
    row's tooltips: "<b>Budget</b> for the R&D trip" showed as a bold
    "Budget for the R&D trip"."""
    for text in HOSTILE_TEXTS:
        tasks.add(text, conversation_id=None, schedule=Interval(30), ai_prompt=f"Say: {text}")
    view.refresh()

    rows = view._task_items()
    assert {tip_shows(item.toolTip(TEXT)) for item in rows} == set(HOSTILE_TEXTS)
    assert {tip_shows(item.toolTip(KIND)) for item in rows} == {
        f"When it runs, Reverie asks the model: “Say: {text}”" for text in HOSTILE_TEXTS
    }
