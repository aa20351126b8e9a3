"""Round 28: the Tasks window at 900 pixels gave the schedule column all the
room its words wanted, and the task's own words shrank to "…"; the detail
pane's heading named the task "Task #1", a number the list does not show.

The list now shares its width out: the task keeps room for its words, a
long schedule or next run is cut with "…" and its tip says it whole, and
what does not fit is reached by scrolling sideways.  The heading is the
task's own words (a long text cut, its tip whole)."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from desktop.core.tasks.schedules import parse_schedule
from desktop.core.tasks.service import TaskService
from desktop.ui.tasks.views import NEXT_RUN, SCHEDULE, STATUS, TEXT
from desktop.ui.tasks.window import TasksWindow
from desktop.ui.widgets.line_breaks import unbroken
from tests.on_screen import label_shows, tip_shows
from tests.unit.ui.tasks.test_tasks_view import clock, select, tasks, view

__all__ = ["clock", "tasks", "view"]  # the fixtures, as the window's own tests have them

WEEKLY = "every Monday, Wednesday and Friday at 8:30"


def test_at_900_pixels_the_tasks_words_show_and_a_long_schedule_is_cut_with_its_tip(
    view: TasksWindow, tasks: TaskService
) -> None:
    task = tasks.add(
        "Water the ferns on the balcony",
        conversation_id=None,
        schedule=parse_schedule(WEEKLY, tasks.now()),
    )
    view.resize(900, 600)
    view.refresh()
    QApplication.processEvents()  # the new width reaches the list
    item = view._item(("task", task.id))
    assert item is not None
    metrics = view.tree.fontMetrics()

    assert view.tree.columnWidth(TEXT) >= metrics.horizontalAdvance("Water the ferns")
    schedule = item.text(SCHEDULE)
    assert view.tree.columnWidth(SCHEDULE) < metrics.horizontalAdvance(schedule)  # cut...
    assert tip_shows(item.toolTip(SCHEDULE)) == schedule  # ...and said whole
    assert tip_shows(item.toolTip(NEXT_RUN)) == item.text(NEXT_RUN)
    # What does not fit is reached by scrolling sideways.
    header, bar = view.tree.header(), view.tree.horizontalScrollBar()
    status_end = header.sectionPosition(STATUS) + header.sectionSize(STATUS)
    assert status_end <= view.tree.viewport().width() + bar.maximum()
    assert bar.maximum() == 0 or bar.isVisible()


def test_a_wide_window_shows_every_column_whole(view: TasksWindow, tasks: TaskService) -> None:
    task = tasks.add(
        "Water the ferns", conversation_id=None, schedule=parse_schedule(WEEKLY, tasks.now())
    )
    view.resize(1920, 1080)
    view.refresh()
    QApplication.processEvents()
    item = view._item(("task", task.id))
    assert item is not None
    metrics = view.tree.fontMetrics()

    for column in (TEXT, SCHEDULE, NEXT_RUN, STATUS):
        assert view.tree.columnWidth(column) >= metrics.horizontalAdvance(item.text(column))
    assert view.tree.horizontalScrollBar().maximum() == 0


def test_the_detail_heading_is_the_tasks_own_words_not_its_number(
    view: TasksWindow, tasks: TaskService
) -> None:
    short = tasks.add("Call the office", conversation_id=None)
    long_text = "Renew " + "the passport and " * 40 + "book the photo"
    long = tasks.add(long_text, conversation_id=None)
    tasks.pause(long.id)
    view.refresh()

    select(view, short.id)
    assert label_shows(view.detail.title) == "Call the office"
    select(view, long.id)
    heading = unbroken(label_shows(view.detail.title))
    assert heading.startswith("Renew the passport and") and heading.endswith("… · paused")
    assert f"#{long.id}" not in heading and len(heading) < len(long_text)
    assert tip_shows(view.detail.title.toolTip()) == long_text
