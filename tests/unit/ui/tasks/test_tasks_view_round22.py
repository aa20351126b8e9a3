"""Round 22: what the tasks window shows of a task, or its conversation's title,
written in HTML's characters."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QScrollArea
from pytestqt.qtbot import QtBot

from desktop.core.base.time_zones import local_zone
from desktop.core.db import ConversationStore, Database
from desktop.core.db.schedules import Interval
from desktop.core.db.tasks import TaskStore
from desktop.core.tasks.service import TaskService
from desktop.ui.tasks.views import KIND, ROW_ROLE, TEXT, TaskGroup, group_line
from desktop.ui.tasks.window import TasksWindow
from desktop.ui.widgets.line_breaks import unbroken
from tests.on_screen import HOSTILE_TEXTS, label_shows, tip_shows


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


def test_a_conversations_title_is_shown_as_written_over_its_tasks(
    tasks: TaskService, store: ConversationStore, view: TasksWindow
) -> None:
    """A conversation titled with a tag ("<h1>Budget</h1> ...", the model
    titles a conversation from what was said) was read as HTML in the
    detail pane: a huge heading over the group, and over each of its tasks'
    "From ..." line, an <img> loading a local file."""
    for text in HOSTILE_TEXTS:
        conversation = store.create(text)
        tasks.add("Pay the rent", conversation_id=conversation.id)
    view.refresh()

    for item in view._items():
        view.tree.setCurrentItem(item)
        row = item.data(0, ROW_ROLE)
        if isinstance(row, TaskGroup):
            assert unbroken(label_shows(view.detail.title)) == group_line(row)
        else:
            title = store.get(row.conversation_id).title  # type: ignore[union-attr]  # each task has one
            assert unbroken(label_shows(view.detail.origin)) == f"From “{title}”"


LONG_LINK = "https://example.com/feeds/" + "".join(f"Zm9vYmFy{n}_" for n in range(120))


def test_a_long_link_in_a_routine_or_a_title_wraps_and_save_stays_in_view(
    tasks: TaskService, store: ConversationStore, view: TasksWindow
) -> None:
    """A routine asking "Open <a 1,300-character link> and summarise" (or a
    conversation titled with such a link) made the task pane as wide as the
    link: every field ran off the right edge and Save and Revert could only
    be found by scrolling sideways."""
    conversation = store.create(LONG_LINK)
    tasks.add(
        "Read the feed",
        conversation_id=conversation.id,
        schedule=Interval(30),
        ai_prompt=f"Open {LONG_LINK} and summarise",
    )
    view.refresh()
    scroll = view.findChild(QScrollArea, "task-detail-scroll")
    assert scroll is not None

    for item in view._items():
        view.tree.setCurrentItem(item)
        # As narrow as the pane of the window at its least size (the fields and
        # buttons whole), which the scroll area was made to hold.
        assert view.detail.minimumSizeHint().width() < scroll.minimumWidth()
    detail = view.detail
    assert (
        unbroken(label_shows(detail.routine))
        == f"A routine: when it runs, Reverie asks the model: “Open {LONG_LINK} and summarise”"
    )
    assert unbroken(label_shows(detail.origin)) == f"From “{conversation.title}”"
    assert conversation.title.startswith(LONG_LINK[:100])  # kept to a title's length
