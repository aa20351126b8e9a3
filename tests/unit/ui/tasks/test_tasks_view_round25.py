"""Round 25: a deleted task could not be erased for good from the Tasks window.

Memories and conversations have "Delete now"; a deleted task waited out
its restore window with no way to say "gone now".  Given the eraser, the
Tasks window offers "Delete now…" on a deleted task, asks first (Cancel
the default), and erases it from the database file on the worker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.erasure import Eraser
from desktop.core.tasks.service import TaskService
from desktop.ui.tasks.window import TasksWindow
from desktop.ui.widgets.erase_confirm import CANNOT_BE_UNDONE
from tests.unit.ui.memory.test_delete_now import WAIT_MS, answer, on_disk
from tests.unit.ui.tasks.test_tasks_view import click, clock, select, tasks

__all__ = ["clock", "tasks"]  # the fixtures, as the window's own tests have them

MARKER = b"vexillary"


@pytest.fixture
def view(
    qtbot: QtBot, tasks: TaskService, store: ConversationStore, eraser: Eraser
) -> Iterator[TasksWindow]:
    window = TasksWindow(tasks, store, eraser=eraser)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()


def test_a_deleted_task_is_erased_for_good_after_a_question(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService, database: Database
) -> None:
    flag = tasks.add("Call the Vexillary office about the permit", conversation_id=None)
    plants = tasks.add("Water the plants", conversation_id=None)
    view.refresh()
    select(view, flag.id)
    assert not view.detail.erase_button.isVisible()  # only a deleted task
    click(qtbot, view.detail.delete_button)
    view.filter_box.setCurrentIndex(view.filter_box.findData("deleted"))
    select(view, flag.id)
    erase = view.detail.erase_button
    assert erase.isVisible() and erase.text() == "Delete now…"

    click(qtbot, erase)
    assert view.erase_confirm is not None
    assert view.erase_confirm.informativeText() == CANNOT_BE_UNDONE
    answer(view.erase_confirm, "cancel")
    assert tasks.get(flag.id) is not None  # nothing without a yes

    click(qtbot, erase)
    answer(view.erase_confirm, "yes")
    qtbot.waitUntil(lambda: not view.busy, timeout=WAIT_MS)

    assert tasks.get(flag.id) is None
    assert tasks.get(plants.id) is not None
    assert view.notice.text() == "Erased 1 task for good."
    assert MARKER not in on_disk(database)
