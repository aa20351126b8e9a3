"""Round 26: the "Delete now" question about a task named it "task #1".

The list shows each task by its text, never by a number, so the question
did not say which task would be erased for good; nor was it true for a
task that its text is erased "from MEMORIES.md" (which lists memories).
The question now quotes the task's text, and says what holds any kind.
"""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.core.tasks.service import TaskService
from desktop.ui.tasks.window import TasksWindow
from tests.unit.ui.memory.test_delete_now import WAIT_MS, answer
from tests.unit.ui.tasks.test_tasks_view import click, clock, select, tasks
from tests.unit.ui.tasks.test_tasks_view_round25 import view

__all__ = ["clock", "tasks", "view"]  # the fixtures, as round 25's Delete now tests have them

LONG = "Call the Vexillary office about the permit for the parade flags " * 3


def test_the_question_names_the_task_by_its_text(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    flag = tasks.add(LONG, conversation_id=None)
    tasks.delete(flag.id)
    view.filter_box.setCurrentIndex(view.filter_box.findData("deleted"))
    select(view, flag.id)

    click(qtbot, view.detail.erase_button)
    question = view.erase_confirm
    assert question is not None
    asked = question.text()
    assert "“Call the Vexillary office about the permit" in asked
    assert f"#{flag.id}" not in asked
    assert len(asked) < 120  # a long text is quoted in part, the box stays small
    assert "MEMORIES.md" not in question.informativeText()  # it never held a task
    answer(question, "yes")
    qtbot.waitUntil(lambda: not view.busy, timeout=WAIT_MS)
    assert tasks.store.get(flag.id) is None
    assert view.notice.text() == "Erased 1 task for good."
