"""The tasks window driven like a user would, on a real database, with the
task service's clock held at a Sunday noon in the system's own zone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from desktop.core.base.time_zones import local_zone
from desktop.core.db import ConversationStore, Database
from desktop.core.db.schedules import Daily, Interval
from desktop.core.db.tasks import EVERY_STATUS, Task, TaskStore
from desktop.core.tasks.schedules import parse_schedule
from desktop.core.tasks.service import TaskService
from desktop.ui.tasks.views import NO_CONVERSATION, when_words
from desktop.ui.tasks.window import EMPTY_TASKS, TasksWindow

ZONE = local_zone()
NOON = datetime(2026, 11, 22, 12, 0, tzinfo=ZONE)  # a Sunday


class Clock:
    """An aware clock that moves only when told to."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(NOON)


@pytest.fixture
def tasks(database: Database, clock: Clock) -> TaskService:
    store = TaskStore(database, clock=lambda: clock().timestamp())
    return TaskService(store, ZONE, clock=clock)


@pytest.fixture
def view(qtbot: QtBot, tasks: TaskService, store: ConversationStore) -> Iterator[TasksWindow]:
    window = TasksWindow(tasks, store)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()


def get(tasks: TaskService, task_id: int) -> Task:
    task = tasks.get(task_id)
    assert task is not None
    return task


def click(qtbot: QtBot, button: QAbstractButton) -> None:
    assert button.isVisible() and button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def select(view: TasksWindow, task_id: int) -> None:
    item = view._item(("task", task_id))
    assert item is not None, task_id
    view.tree.setCurrentItem(item)


def answer(qtbot: QtBot, view: TasksWindow, choice: str) -> None:
    """Answer the unsaved-changes question with the button named *choice*."""
    dialog = view.unsaved_dialog
    assert dialog is not None and dialog.isVisible()
    buttons = {button.text(): button for button in dialog.findChildren(QPushButton)}
    click(qtbot, buttons[choice])
    assert view.unsaved_dialog is None


def edit(view: TasksWindow, text: str | None = None, schedule: str | None = None) -> None:
    if text is not None:
        view.detail.text_edit.setText(text)
    if schedule is not None:
        view.detail.schedule_edit.setText(schedule)


# -- the list -------------------------------------------------------------------
def test_no_tasks_says_how_to_start(view: TasksWindow) -> None:
    assert view.windowTitle() == "Tasks — Reverie"
    assert view.list_stack.currentWidget() is view.empty_label
    assert view.empty_label.text() == EMPTY_TASKS


def test_tasks_are_grouped_by_conversation_most_urgent_first_with_their_next_run(
    view: TasksWindow, tasks: TaskService, store: ConversationStore
) -> None:
    garden, work, trip = store.create("Garden"), store.create("Work week"), store.create("Trip")
    water = tasks.add(
        "Water the plants", conversation_id=garden.id, priority=3, schedule=Daily(time(9))
    )
    compost = tasks.add("Order compost", conversation_id=garden.id, priority=6)
    stretch = tasks.add(
        "Stretch",
        conversation_id=work.id,
        priority=2,
        schedule=Interval(30),
        ai_prompt="Say: stretch!",
    )
    grandma = tasks.add("Call grandma", conversation_id=None, priority=3)
    passport = tasks.add("Renew the passport", conversation_id=trip.id, priority=8)
    store.delete(trip.id)
    view.refresh()

    assert view.group_titles() == [
        "“Work week” · 1 task",
        "“Garden” · 2 tasks",
        f"{NO_CONVERSATION} · 1 task",
        "“Trip” (deleted) · 1 task",
    ]
    assert view.task_ids() == [stretch.id, water.id, compost.id, grandma.id, passport.id]
    assert view.row_texts(water.id) == [
        "P3",
        "Water the plants",
        "Task",
        "daily at 09:00",
        "tomorrow 09:00",
        "Active",
    ]
    assert view.row_texts(stretch.id) == [
        "P2",
        "Stretch",
        "Routine",
        "every 30 minutes",
        "today 12:30",
        "Active",
    ]
    assert view.row_texts(compost.id)[3:] == ["—", "—", "Active"]
    assert view.count_label.text() == "5 tasks"
    select(view, stretch.id)
    assert (
        view.detail.routine.text()
        == "A routine: when it runs, Reverie asks the model: “Say: stretch!”"
    )
    assert view.detail.origin.text() == "From “Work week”"


def test_run_times_read_as_days_and_name_a_zone_that_is_not_the_systems() -> None:
    now = NOON
    assert when_words(None, now, ZONE) == "—"
    assert when_words((now + timedelta(days=1)).timestamp(), now, ZONE) == "tomorrow 12:00"
    assert when_words((now + timedelta(days=3)).timestamp(), now, ZONE) == "Wed 25 Nov, 12:00"
    assert when_words((now + timedelta(days=60)).timestamp(), now, ZONE) == "Thu 21 Jan 2027, 12:00"
    elsewhere: tzinfo = ZoneInfo("Pacific/Kiritimati")  # +14: never the test machine's zone
    if elsewhere.utcoffset(now.replace(tzinfo=None)) == now.utcoffset():
        elsewhere = ZoneInfo("America/Anchorage")
    said = when_words(now.timestamp(), now, elsewhere)
    assert said.endswith(f"({elsewhere})")


# -- editing --------------------------------------------------------------------
def test_editing_saves_text_priority_and_schedule_with_its_new_next_run(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    task = tasks.add("Water plants", conversation_id=None)
    view.refresh()
    select(view, task.id)
    assert not view.detail.save_button.isEnabled()

    edit(view, "Water the balcony plants", "weekly on wed at 8:30")
    view.detail.priority_box.setValue(2)
    assert view.detail.schedule_hint.text() == (
        "Every Wednesday at 08:30; next run Wed 25 Nov at 08:30"
    )
    with qtbot.waitSignal(view.tasks_changed):
        click(qtbot, view.detail.save_button)

    saved = get(tasks, task.id)
    assert (saved.text, saved.priority) == ("Water the balcony plants", 2)
    assert saved.next_run_at == datetime(2026, 11, 25, 8, 30, tzinfo=ZONE).timestamp()
    assert view.notice.text() == f"Saved task #{task.id}."
    assert view.row_texts(task.id)[3:5] == ["weekly on Wednesday at 08:30", "Wed 25 Nov, 08:30"]
    assert view.detail.schedule_edit.text() == "weekly on Wednesday at 08:30"
    assert not view.detail.dirty()


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("daily at 25:00", "'25:00' is not a time of day"),
        ("once on 2020-01-01 09:00", "Once on 2020-01-01 09:00 is in the past"),
        ("every 30 minutes 08:00-08:00", "The time window 08:00-08:00 is empty"),
        ("whenever you like", "'whenever you like' is not a schedule Reverie understands"),
    ],
)
def test_a_schedule_that_cannot_be_used_is_said_inline_and_nothing_is_saved(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService, typed: str, reason: str
) -> None:
    task = tasks.add("Stand up", conversation_id=None, schedule=Daily(time(9)))
    view.refresh()
    select(view, task.id)

    edit(view, "Stand up and stretch", typed)
    assert view.detail.schedule_hint.text().startswith(reason)  # while typing
    assert view.detail.schedule_hint.property("problem") is True
    click(qtbot, view.detail.save_button)

    assert view.detail.edit_problem.isVisible()
    assert view.detail.edit_problem.text().startswith(f"Not saved: {reason}")
    assert get(tasks, task.id) == task  # nothing changed, not even the text
    assert view.detail.fields() == ("Stand up and stretch", 5, typed)  # the typing stays


def test_empty_text_is_refused_and_no_schedule_is_a_choice(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    task = tasks.add("Stand up", conversation_id=None, schedule=Daily(time(9)))
    view.refresh()
    select(view, task.id)

    edit(view, "   ")
    qtbot.keyClick(view.detail.text_edit, Qt.Key.Key_Return)  # Enter saves
    assert view.detail.edit_problem.text() == "Not saved: A task needs some text saying what to do."
    assert get(tasks, task.id) == task

    edit(view, "Stand up", "")
    assert view.detail.schedule_hint.text().startswith("No schedule")
    assert view.save()
    assert get(tasks, task.id).schedule is None
    assert view.row_texts(task.id)[3:5] == ["—", "—"]


def test_pause_resume_complete_and_the_completed_filter(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService, clock: Clock
) -> None:
    task = tasks.add("Stand up", conversation_id=None, schedule=Daily(time(9)))
    view.refresh()
    select(view, task.id)

    click(qtbot, view.detail.pause_button)
    assert get(tasks, task.id).status == "paused"
    assert view.row_texts(task.id)[4:] == ["—", "Paused"]
    assert view.detail.pause_button.text() == "Resume"
    assert "paused: it runs again once resumed" in view.detail.facts.text()
    clock.now += timedelta(days=2)  # resumed later, it skips the runs it missed
    click(qtbot, view.detail.pause_button)
    assert view.row_texts(task.id)[4:] == ["tomorrow 09:00", "Active"]

    click(qtbot, view.detail.complete_button)
    assert get(tasks, task.id).status == "completed"
    assert view.task_ids() == [] and view.notice.text().startswith(f"Completed task #{task.id}.")
    view.filter_box.setCurrentIndex(view.filter_box.findData("completed"))
    assert view.task_ids() == [task.id]
    assert view.detail.text_edit.isReadOnly() and not view.detail.save_button.isVisible()
    assert view.detail.facts.text().endswith("completed today 12:00")


def test_del_deletes_softly_and_the_deleted_filter_restores(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    first = tasks.add("Stand up", conversation_id=None, priority=1)
    second = tasks.add("Sit down", conversation_id=None, priority=2)
    view.refresh()
    view.activateWindow()
    select(view, first.id)
    view.tree.setFocus()

    qtbot.keyClick(view.tree, Qt.Key.Key_Delete)

    assert get(tasks, first.id).status == "deleted"
    assert view.task_ids() == [second.id] and view.detail.task == get(tasks, second.id)
    assert view.notice.text().endswith("You can restore it from the Deleted filter.")
    view.filter_box.setCurrentIndex(view.filter_box.findData("deleted"))
    assert view.task_ids() == [first.id]
    assert view.detail.restore_button.isVisible() and not view.detail.delete_button.isVisible()
    click(qtbot, view.detail.restore_button)
    assert get(tasks, first.id).status == "active"
    assert view.empty_label.text() == "No deleted tasks."


def test_del_in_a_field_deletes_nothing(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    task = tasks.add("Stand up", conversation_id=None)
    view.refresh()
    view.activateWindow()
    view.detail.text_edit.setFocus()
    qtbot.keyClick(view.detail.text_edit, Qt.Key.Key_Delete)
    assert get(tasks, task.id).status == "active"


def test_a_refused_step_is_said_and_the_list_catches_up(
    view: TasksWindow, tasks: TaskService
) -> None:
    task = tasks.add("Stand up", conversation_id=None)
    view.refresh()
    tasks.complete(task.id)  # the model completed it meanwhile

    view.toggle_pause()

    assert view.problem.text() == (
        f"That did not work: Task #{task.id} is completed; only active tasks can be paused."
    )
    assert view.task_ids() == []


# -- adding a task by hand ------------------------------------------------------
def open_form(qtbot: QtBot, view: TasksWindow) -> None:
    click(qtbot, view.new_button)
    assert view.detail.creating
    assert view.detail.title.text() == "New task"


def test_new_task_adds_what_was_typed_and_shows_it_selected(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    other = tasks.add("Stand up", conversation_id=None, priority=1)
    view.refresh()
    select(view, other.id)

    open_form(qtbot, view)
    detail = view.detail
    assert detail.fields() == ("", 5, "")
    assert view.tree.currentItem() is None  # no row is the one shown
    assert detail.create_button.isVisible() and detail.cancel_button.isVisible()
    assert not detail.save_button.isVisible() and not detail.delete_button.isVisible()
    edit(view, "Water the plants", "Tomorrow 9")
    detail.priority_box.setValue(3)
    assert detail.schedule_hint.text() == "Once, tomorrow (Mon 23 Nov) at 09:00"
    assert detail.schedule_edit.accessibleDescription() == detail.schedule_hint.text()
    with qtbot.waitSignal(view.tasks_changed):
        click(qtbot, detail.create_button)

    added = [task for task in tasks.list() if task.id != other.id]
    assert len(added) == 1
    task = added[0]
    assert (task.text, task.priority, task.conversation_id) == ("Water the plants", 3, None)
    assert task.next_run_at == datetime(2026, 11, 23, 9, tzinfo=ZONE).timestamp()
    assert not detail.creating and detail.task == task
    assert view.tree.currentItem() is view._item(("task", task.id))
    assert view.notice.text() == f"Added task #{task.id}."
    assert view.row_texts(task.id)[3:5] == ["once on 2026-11-23 09:00", "tomorrow 09:00"]


def test_a_secret_typed_into_a_task_is_stored_as_a_marker_and_the_notice_says_why(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    open_form(qtbot, view)
    edit(view, "Call the bank about the card, PIN 4822")
    with qtbot.waitSignal(view.tasks_changed):
        click(qtbot, view.detail.create_button)

    [task] = tasks.list()
    assert task.text == "Call the bank about the card, PIN [redacted password]"
    assert view.detail.fields()[0] == task.text
    assert view.notice.text() == (
        f"Added task #{task.id}. Reverie replaced a password with [redacted password]: "
        "secrets are never stored. Keep them in a password manager."
    )


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("every day at 13pm", "'13pm' is not a time of day: with am or pm the hour is 1 to 12"),
        ("today at 9am", "Once on 2026-11-22 09:00 is in the past"),
        ("monday and friday at 9", "'monday and friday at 9' could mean once or every week"),
        ("9am", "'9am' needs a day: write e.g. 'today at 9am'"),
        ("whenever", "'whenever' is not a schedule Reverie understands; write e.g. 'tomorrow"),
    ],
)
def test_a_new_task_with_a_bad_schedule_is_said_inline_and_not_added(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService, typed: str, reason: str
) -> None:
    open_form(qtbot, view)
    edit(view, "Water the plants", typed)
    assert view.detail.schedule_hint.text().startswith(reason)  # while typing
    assert view.detail.schedule_hint.property("problem") is True

    click(qtbot, view.detail.create_button)

    assert view.detail.edit_problem.isVisible()
    assert view.detail.edit_problem.text().startswith(f"Not added: {reason}")
    assert tasks.list(EVERY_STATUS) == []
    assert view.detail.creating and view.detail.fields() == ("Water the plants", 5, typed)


def test_cancel_adds_nothing_and_goes_back_to_the_task_shown_before(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    first = tasks.add("Stand up", conversation_id=None, priority=1)
    second = tasks.add("Sit down", conversation_id=None, priority=2)
    view.refresh()
    select(view, second.id)
    open_form(qtbot, view)
    edit(view, "Water the plants", "every day at 9am")

    click(qtbot, view.detail.cancel_button)

    assert [task.id for task in tasks.list(EVERY_STATUS)] == [first.id, second.id]
    assert not view.detail.creating and not view.detail.cancel_button.isVisible()
    assert view.detail.task == second
    assert view.tree.currentItem() is view._item(("task", second.id))


def test_ctrl_n_opens_the_form_and_enter_adds(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    view.activateWindow()
    view.tree.setFocus()
    qtbot.keyClick(view.tree, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert view.detail.creating
    assert QApplication.focusWidget() is view.detail.text_edit

    qtbot.keyClicks(view.detail.text_edit, "Stretch")
    view.detail.schedule_edit.setText("weekdays at 8:30")
    assert view.detail.schedule_hint.text() == (
        "Every weekday (Monday to Friday) at 08:30; next run tomorrow (Mon 23 Nov) at 08:30"
    )
    with qtbot.waitSignal(view.tasks_changed):
        qtbot.keyClick(view.detail.schedule_edit, Qt.Key.Key_Return)

    (task,) = tasks.list()
    assert task.text == "Stretch" and view.detail.task == task
    assert QApplication.focusWidget() is view.tree  # at the new task's row
    assert view.row_texts(task.id)[3] == "weekdays at 08:30"


def test_esc_closes_an_untouched_form_and_asks_about_a_typed_one(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    view.activateWindow()
    open_form(qtbot, view)
    qtbot.keyClick(view.detail.text_edit, Qt.Key.Key_Escape)
    assert not view.detail.creating and view.isVisible()  # the form went, not the window
    assert QApplication.focusWidget() is view.new_button  # no rows to go back to

    open_form(qtbot, view)
    qtbot.keyClicks(view.detail.text_edit, "Stretch")
    qtbot.keyClick(view.detail.text_edit, Qt.Key.Key_Escape)
    dialog = view.unsaved_dialog
    assert dialog is not None
    assert dialog.text() == (
        "You changed the new task and did not save it. Save before closing the form?"
    )
    answer(qtbot, view, "Keep editing")
    assert view.detail.creating and view.detail.text_edit.text() == "Stretch"

    qtbot.keyClick(view.detail.text_edit, Qt.Key.Key_Escape)
    answer(qtbot, view, "Discard changes")
    assert not view.detail.creating and tasks.list(EVERY_STATUS) == []


def test_choosing_a_task_while_the_form_has_typing_asks_first(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    task = tasks.add("Stand up", conversation_id=None)
    view.refresh()
    open_form(qtbot, view)
    edit(view, "Stretch", "every hour")

    select(view, task.id)
    answer(qtbot, view, "Keep editing")
    assert view.detail.creating and view.tree.currentItem() is None

    select(view, task.id)
    answer(qtbot, view, "Save")  # adds it, then goes where the user clicked
    assert [t.text for t in tasks.list()] == ["Stand up", "Stretch"]
    assert view.detail.task == get(tasks, task.id) and not view.detail.creating


def test_a_refresh_keeps_the_form_and_its_typing(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    open_form(qtbot, view)
    edit(view, "Stretch", "every hour")

    added = tasks.add("Drink water", conversation_id=None)  # the model, meanwhile
    view.refresh()

    assert view.task_ids() == [added.id] and view.tree.currentItem() is None
    assert view.detail.creating and view.detail.fields() == ("Stretch", 5, "every hour")
    assert view.detail.schedule_hint.text() == "Every hour; next run today (Sun 22 Nov) at 13:00"


def test_editing_a_task_with_unsaved_changes_asks_before_the_form_opens(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    task = tasks.add("Stand up", conversation_id=None)
    view.refresh()
    select(view, task.id)
    edit(view, "Stand up tall")

    click(qtbot, view.new_button)
    answer(qtbot, view, "Save")

    assert get(tasks, task.id).text == "Stand up tall"
    assert view.detail.creating and view.detail.fields() == ("", 5, "")


def test_a_task_added_under_another_filter_shows_in_to_do(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    view.filter_box.setCurrentIndex(view.filter_box.findData("completed"))
    open_form(qtbot, view)
    edit(view, "Stretch")
    click(qtbot, view.detail.create_button)

    (task,) = tasks.list()
    assert view.filter_box.currentData() == "open" and view.task_ids() == [task.id]
    assert view.detail.task == task and task.schedule is None


def test_a_task_added_by_hand_comes_due_like_any_other(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService, clock: Clock
) -> None:
    open_form(qtbot, view)
    edit(view, "Take the cake out", "in 20 minutes")
    assert view.detail.schedule_hint.text() == "Once, today (Sun 22 Nov) at 12:20"
    click(qtbot, view.detail.create_button)
    (task,) = tasks.list()

    clock.now += timedelta(minutes=19)
    assert tasks.due() == []
    clock.now += timedelta(minutes=1)
    assert [due.id for due in tasks.due()] == [task.id]  # what the scheduler's tick runs


def test_the_form_reads_in_order_and_names_its_controls(qtbot: QtBot, view: TasksWindow) -> None:
    view.activateWindow()
    view.filter_box.setFocus()
    detail = view.detail
    qtbot.keyClick(view.filter_box, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is view.new_button
    qtbot.keyClick(view.new_button, Qt.Key.Key_Space)
    assert QApplication.focusWidget() is detail.text_edit

    order = []
    for _ in range(4):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        order.append(QApplication.focusWidget())
    assert order == [
        detail.priority_box,
        detail.schedule_edit,
        detail.cancel_button,
        detail.create_button,
    ]
    for control in (view.new_button, detail.create_button, detail.cancel_button):
        assert control.accessibleName() and control.toolTip()


def test_at_its_least_size_the_form_and_its_buttons_show_whole(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    tasks.add("Stand up", conversation_id=None, schedule=Daily(time(9)))
    view.refresh()
    view.resize(1, 1)
    open_form(qtbot, view)
    edit(view, "Stretch", "monday and thursday at 9")  # the longest reading there is
    click(qtbot, view.detail.create_button)
    assert view.size() == view.minimumSize()
    assert view.detail.edit_problem.isVisible()

    viewport = view.detail.parentWidget()  # the scroll area's
    assert viewport is not None
    detail = view.detail
    for control in (
        detail.text_edit,
        detail.schedule_edit,
        detail.edit_problem,
        detail.cancel_button,
        detail.create_button,
    ):
        where = control.rect().translated(control.mapTo(viewport, QPoint(0, 0)))
        assert viewport.rect().contains(where), control.objectName()
    assert view.tree.width() >= 280  # the list stays a list


def test_an_unchanged_schedule_reads_with_its_stored_next_run(
    view: TasksWindow, tasks: TaskService
) -> None:
    task = tasks.add("Stand up", conversation_id=None, schedule=Daily(time(9)))
    view.refresh()
    select(view, task.id)
    assert view.detail.schedule_hint.text() == (
        "Every day at 09:00; next run tomorrow (Mon 23 Nov) at 09:00"
    )


# -- refreshing while the user types ----------------------------------------------
def test_refresh_shows_the_models_changes_and_keeps_the_typing(
    view: TasksWindow, tasks: TaskService
) -> None:
    task = tasks.add("Stand up", conversation_id=None, priority=5)
    view.refresh()
    edit(view, "Stand up straight")

    tasks.update(task.id, priority=1, schedule=parse_schedule("daily at 07:00"))
    added = tasks.add("Drink water", conversation_id=None, priority=2)
    view.refresh()  # as the app does after the model's tool calls

    assert view.task_ids() == [task.id, added.id]
    assert view.detail.fields() == ("Stand up straight", 1, "daily at 07:00")
    assert view.detail.dirty()

    tasks.complete(task.id)  # the model completes it while the user types
    view.refresh()
    assert view.task_ids() == [added.id]
    assert view.detail.task is not None and view.detail.task.id == task.id
    assert view.detail.text_edit.text() == "Stand up straight"


def test_show_task_brings_the_window_up_at_it_whatever_the_filter(
    view: TasksWindow, tasks: TaskService
) -> None:
    task = tasks.add("Stand up", conversation_id=None)
    tasks.delete(task.id)
    view.close()

    view.show_task(task.id)

    assert view.isVisible() and view.filter_box.currentData() == "all"
    assert view.detail.task is not None and view.detail.task.id == task.id
    view.show_task(999)
    assert view.problem.text() == "There is no task #999."


def test_open_conversation_asks_for_the_tasks_conversation(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService, store: ConversationStore
) -> None:
    garden = store.create("Garden")
    task = tasks.add("Water", conversation_id=garden.id)
    view.refresh()
    select(view, task.id)
    with qtbot.waitSignal(view.open_conversation_requested) as asked:
        click(qtbot, view.detail.open_button)
    assert asked.args == [garden.id]
    group = view._item(("group", garden.id))
    assert group is not None
    view.tree.setCurrentItem(group)
    assert view.detail.task is None and view.detail.open_button.isVisible()


# -- unsaved edits ----------------------------------------------------------------
def test_leaving_a_task_with_unsaved_edits_asks_first(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    first = tasks.add("Stand up", conversation_id=None, priority=1)
    second = tasks.add("Sit down", conversation_id=None, priority=2)
    view.refresh()
    select(view, first.id)
    edit(view, "Stand up now")

    select(view, second.id)
    answer(qtbot, view, "Keep editing")
    assert view.detail.task is not None and view.detail.task.id == first.id
    assert view.tree.currentItem() is view._item(("task", first.id))
    assert view.detail.text_edit.text() == "Stand up now"

    select(view, second.id)
    answer(qtbot, view, "Save")
    assert get(tasks, first.id).text == "Stand up now"
    assert view.detail.task is not None and view.detail.task.id == second.id

    edit(view, "Sit down now")
    select(view, first.id)
    answer(qtbot, view, "Discard changes")
    assert get(tasks, second.id).text == "Sit down"
    assert view.detail.task is not None and view.detail.task.id == first.id


def test_completing_with_unsaved_edits_asks_and_a_refused_save_stops_it(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    task = tasks.add("Stand up", conversation_id=None)
    view.refresh()
    edit(view, schedule="daily at 99:00")

    click(qtbot, view.detail.complete_button)
    dialog = view.unsaved_dialog
    assert dialog is not None
    assert dialog.text() == (
        f"You changed task #{task.id} and did not save it. Save before completing it?"
    )
    answer(qtbot, view, "Save")

    assert get(tasks, task.id).status == "active"  # the save was refused: nothing completed
    assert view.detail.edit_problem.text().startswith("Not saved: '99:00' is not a time")


def test_closing_with_unsaved_edits_asks_and_enter_saves(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    task = tasks.add("Stand up", conversation_id=None)
    view.refresh()
    edit(view, "Stand up tall")

    view.close()
    assert view.isVisible()
    dialog = view.unsaved_dialog
    assert isinstance(dialog, QMessageBox)
    assert dialog.defaultButton().text() == "Save"
    answer(qtbot, view, "Keep editing")
    assert view.isVisible()

    view.close()
    answer(qtbot, view, "Save")
    assert not view.isVisible() and get(tasks, task.id).text == "Stand up tall"


# -- keyboard and accessibility -------------------------------------------------
def test_esc_closes_and_every_control_has_an_accessible_name(
    qtbot: QtBot, view: TasksWindow, tasks: TaskService
) -> None:
    tasks.add("Stand up", conversation_id=None)
    view.refresh()
    buttons = view.findChildren(QPushButton)
    assert len(buttons) >= 7
    assert all(button.accessibleName() for button in buttons)
    assert view.tree.accessibleName() == "Tasks"
    assert view.detail.schedule_edit.accessibleName() == "Schedule, in words"
    view.activateWindow()
    view.tree.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert not view.isVisible()
    assert QApplication.activeModalWidget() is None


def test_a_long_reading_under_the_schedule_is_shown_whole(qtbot: QtBot, view: TasksWindow) -> None:
    open_form(qtbot, view)
    edit(view, "Bad one", "whenever the moon is blue")
    hint = view.detail.schedule_hint

    qtbot.waitUntil(lambda: hint.isVisible() and hint.width() > 0)
    qtbot.waitUntil(lambda: hint.height() >= hint.heightForWidth(hint.width()))
    assert hint.text().count(" ") > 20  # several lines at this width
