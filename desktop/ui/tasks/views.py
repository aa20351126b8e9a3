"""The pieces of the tasks window: the words for a task's status, schedule
and run times, the grouping by conversation, and the detail pane that edits
one task or, as the New task form, a task still to add (the same fields, so
the same schedule field and its live reading).

They show what they are given and change nothing; ``desktop.ui.tasks.window``
does the changing.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.base.errors import ReverieError
from desktop.core.base.text import cut
from desktop.core.db import Conversation
from desktop.core.db.schedules import WEEKDAYS, Daily, Interval, Monthly, Once, Schedule, Weekly
from desktop.core.db.tasks import DEFAULT_PRIORITY, LOW, URGENT, Task, TaskStatus
from desktop.core.tasks.schedules import TYPED_EXAMPLES, check_upcoming, listed, parse_schedule
from desktop.core.tasks.service import schedule_words
from desktop.ui.widgets.bidi import stored_order
from desktop.ui.widgets.direction_guard import guarded
from desktop.ui.widgets.labels import count, named, plain_label, plain_tip
from desktop.ui.widgets.line_breaks import breakable
from desktop.ui.widgets.theme import active_palette

ROW_ROLE = Qt.ItemDataRole.UserRole
"""The item data role holding a row's ``Task``, or a group row's ``TaskGroup``."""
COLUMNS = ("Priority", "Task", "Kind", "Schedule", "Next run", "Status")
PRIORITY, TEXT, KIND, SCHEDULE, NEXT_RUN, STATUS = range(len(COLUMNS))
STATUS_WORDS: dict[TaskStatus, str] = {
    "active": "Active",
    "paused": "Paused",
    "completed": "Completed",
    "deleted": "Deleted",
}
NO_CONVERSATION = "Not from a conversation"
NONE = "—"
SCHEDULE_HINT = f"Write it in words, e.g. {TYPED_EXAMPLES}; leave it empty for no schedule."
SCHEDULE_PLACEHOLDER = "e.g. weekdays at 8:30, tomorrow 9 (empty: none)"
NO_SCHEDULE = "No schedule: it waits until you or Reverie act on it."
TITLE_CHARS = 120
"""How much of a task's text the detail pane's heading shows."""


TEXT_LEAST = 160
"""The task column's least width in pixels when the list is narrow: about
twenty characters of the task's own words (it shrank to "…" at 900 pixels
while the schedule took its room)."""
TEXT_SHARE = 0.4
"""The task column's share of the room left beside the short columns."""
ELIDED_LEAST = 90
"""The least width of the schedule and next run columns, cut with "…" (their tips say all)."""
SHORT_COLUMNS = (PRIORITY, KIND, STATUS)
"""As wide as their words, always."""


def column_widths(room: int, wanted: Sequence[int]) -> list[int]:
    """The width of each column in a list *room* pixels wide, each wanting
    *wanted* (its words' width): the short columns as wide as their words;
    the task at least ``TEXT_LEAST`` (or its share of the rest), the
    schedule and next run as wide as their words if the rest allows, else
    shared out in proportion and cut (at least ``ELIDED_LEAST``); the task
    takes what is left.  Wider than *room* only when even that does not fit
    (the list then scrolls sideways)."""
    widths = list(wanted)
    rest = room - sum(wanted[c] for c in SHORT_COLUMNS)
    text_least = min(wanted[TEXT], max(TEXT_LEAST, int(rest * TEXT_SHARE)))
    elided = (SCHEDULE, NEXT_RUN)
    left = rest - text_least
    asked = sum(wanted[c] for c in elided)
    for column in elided:
        if asked > left:
            share = left * wanted[column] // max(asked, 1)
            widths[column] = max(ELIDED_LEAST, min(wanted[column], share))
    widths[TEXT] = max(text_least, rest - sum(widths[c] for c in elided))
    return widths


def _zone_name(zone: tzinfo, moment: datetime) -> str:
    return str(getattr(zone, "key", None) or moment.tzname() or zone)


def when_words(timestamp: float | None, now: datetime, zone: tzinfo) -> str:
    """*timestamp* as the user reads a run time: "today 09:00", "tomorrow
    09:00", "Mon 9 Mar, 09:00", with the year when it is not this one and the
    zone's name when it is not the system's; "—" for none."""
    if timestamp is None:
        return NONE
    moment = datetime.fromtimestamp(timestamp, zone)
    today = now.astimezone(zone).date()
    clock = f"{moment:%H:%M}"
    if moment.date() == today:
        said = f"today {clock}"
    elif moment.date() == today + timedelta(days=1):
        said = f"tomorrow {clock}"
    elif moment.date() == today - timedelta(days=1):
        said = f"yesterday {clock}"
    elif moment.year == today.year:
        said = f"{moment:%a} {moment.day} {moment:%b}, {clock}"
    else:
        said = f"{moment:%a} {moment.day} {moment:%b %Y}, {clock}"
    return said + _zone_note(moment, zone)


def _zone_note(moment: datetime, zone: tzinfo) -> str:
    """The zone's name in brackets, e.g. " (Europe/Berlin)", when *zone* is
    not the system's at *moment*; else nothing."""
    system = moment.astimezone()
    return "" if system.utcoffset() == moment.utcoffset() else f" ({_zone_name(zone, moment)})"


def run_words(moment: datetime, now: datetime, zone: tzinfo) -> str:
    """A run time in full: "tomorrow (Wed 25 Nov) at 09:00", "Mon 30 Nov at
    09:00", with the year when it is not this one and the zone's name when
    it is not the system's."""
    moment = moment.astimezone(zone)
    today = now.astimezone(zone).date()
    day = f"{moment:%a} {moment.day} {moment:%b}"
    if moment.year != today.year:
        day += f" {moment.year}"
    if moment.date() == today:
        day = f"today ({day})"
    elif moment.date() == today + timedelta(days=1):
        day = f"tomorrow ({day})"
    return f"{day} at {moment:%H:%M}{_zone_note(moment, zone)}"


def habit_words(schedule: Daily | Weekly | Monthly | Interval) -> str:
    """How often a schedule runs, as the reading under the field says it."""
    if isinstance(schedule, Daily):
        every = "every day" if schedule.every == 1 else f"every {schedule.every} days"
        return f"{every} at {schedule.at:%H:%M}"
    if isinstance(schedule, Weekly):
        days = listed([WEEKDAYS[weekday] for weekday in schedule.weekdays])
        if schedule.weekdays == (0, 1, 2, 3, 4):
            days = "weekday (Monday to Friday)"
        return f"every {days} at {schedule.at:%H:%M}"
    if isinstance(schedule, Monthly):
        shorter = " (the last day in shorter months)" if schedule.day > 28 else ""
        return f"every month on day {schedule.day} at {schedule.at:%H:%M}{shorter}"
    hours, minutes = divmod(schedule.minutes, 60)
    if minutes:
        every = "every minute" if schedule.minutes == 1 else f"every {schedule.minutes} minutes"
    else:
        every = "every hour" if hours == 1 else f"every {hours} hours"
    window = schedule.window
    return every + (f" from {window.start:%H:%M} to {window.end:%H:%M}" if window else "")


def schedule_reading(schedule: Schedule, upcoming: datetime, now: datetime, zone: tzinfo) -> str:
    """What a schedule reads as, with the time it runs (next): "Once, tomorrow
    (Wed 25 Nov) at 09:00", "Every weekday (Monday to Friday) at 08:30; next
    run tomorrow (Wed 25 Nov) at 08:30"."""
    if isinstance(schedule, Once):
        return f"Once, {run_words(upcoming, now, zone)}"
    habit = habit_words(schedule)
    return f"{habit[:1].upper()}{habit[1:]}; next run {run_words(upcoming, now, zone)}"


def next_run_words(task: Task, now: datetime, zone: tzinfo) -> str:
    """When the task runs next; "—" if it will not (no schedule, not active)."""
    if task.status != "active" or task.next_run_at is None:
        return NONE
    said = when_words(task.next_run_at, now, zone)
    return f"due since {said}" if task.next_run_at <= now.timestamp() else said


def task_line(task: Task, now: datetime, zone: tzinfo) -> str:
    """A task as one sentence (for screen readers and tests)."""
    kind = "routine" if task.is_routine else "task"
    return (
        f"Priority {task.priority} {kind}: {task.text}; "
        f"schedule {schedule_words(task) or 'none'}; {STATUS_WORDS[task.status].lower()}; "
        f"next run {next_run_words(task, now, zone).replace(NONE, 'none')}"
    )


@dataclass(frozen=True)
class TaskGroup:
    """The tasks of one conversation (``conversation`` None: of none)."""

    conversation_id: int | None
    title: str
    tasks: tuple[Task, ...]


def conversation_title(conversation: Conversation | None, conversation_id: int | None) -> str:
    if conversation_id is None:
        return NO_CONVERSATION
    if conversation is None:
        return f"Conversation #{conversation_id}"
    title = f"“{conversation.title}”" if conversation.title else "Untitled conversation"
    return title + (" (deleted)" if conversation.deleted_at is not None else "")


def grouped(tasks: Sequence[Task], find: Callable[[int], Conversation | None]) -> list[TaskGroup]:
    """*tasks* by conversation, each group most urgent first; the group with
    the most urgent task first, tasks from no conversation last among equals."""
    by_conversation: dict[int | None, list[Task]] = {}
    for task in sorted(tasks, key=lambda t: (t.priority, t.id)):
        by_conversation.setdefault(task.conversation_id, []).append(task)
    groups = [
        TaskGroup(key, conversation_title(None if key is None else find(key), key), tuple(listed))
        for key, listed in by_conversation.items()
    ]
    return sorted(groups, key=lambda g: (g.tasks[0].priority, g.conversation_id is None, g.title))


def group_line(group: TaskGroup) -> str:
    return f"{stored_order(group.title)} · {count(len(group.tasks), 'task', 'tasks')}"


def group_row(group: TaskGroup, now: datetime, zone: tzinfo, font: QFont) -> QTreeWidgetItem:
    """A group's row (in *font*) with its tasks' rows under it."""
    item = QTreeWidgetItem([group_line(group)])
    item.setData(0, ROW_ROLE, group)
    item.setFont(0, font)
    item.setData(0, Qt.ItemDataRole.AccessibleTextRole, group_line(group))
    for task in group.tasks:
        item.addChild(task_row(task, now, zone))
    return item


def task_row(task: Task, now: datetime, zone: tzinfo) -> QTreeWidgetItem:
    """A task's row: priority, text, kind, schedule, next run and status."""
    item = QTreeWidgetItem(
        [
            f"P{task.priority}",
            stored_order(task.text),
            "Routine" if task.is_routine else "Task",
            schedule_words(task) or NONE,
            next_run_words(task, now, zone),
            STATUS_WORDS[task.status],
        ]
    )
    item.setData(0, ROW_ROLE, task)
    item.setToolTip(TEXT, plain_tip(task.text))
    for column in (SCHEDULE, NEXT_RUN):  # cut with "…" in a narrow list
        item.setToolTip(column, plain_tip(item.text(column)))
    if task.ai_prompt is not None:
        item.setToolTip(
            KIND, plain_tip(f"When it runs, Reverie asks the model: “{task.ai_prompt}”")
        )
    line = task_line(task, now, zone)
    for column in range(len(COLUMNS)):
        item.setData(column, Qt.ItemDataRole.AccessibleDescriptionRole, line)
    item.setTextAlignment(PRIORITY, Qt.AlignmentFlag.AlignCenter)
    if task.status != "active":  # it does not run: greyed
        faint = active_palette().colour("text_faint")
        for column in range(len(COLUMNS)):
            item.setForeground(column, faint)
    return item


def counted(tasks: Sequence[Task]) -> str:
    """How many tasks are listed, and how many of them paused."""
    paused = sum(task.status == "paused" for task in tasks)
    said = count(len(tasks), "task", "tasks")
    return f"{said}, {paused} paused" if paused else said


def facts_line(task: Task, now: datetime, zone: tzinfo) -> str:
    """When the task was added, last ran and was completed."""
    facts = [f"Added {when_words(task.created_at, now, zone)}"]
    if task.last_run_at is not None:
        facts.append(f"last ran {when_words(task.last_run_at, now, zone)}")
    if task.completed_at is not None:
        facts.append(f"completed {when_words(task.completed_at, now, zone)}")
    if task.status == "paused" and task.schedule is not None:
        facts.append("paused: it runs again once resumed")
    return " · ".join(facts)


@dataclass(frozen=True)
class ScheduleReading:
    """What the typed schedule says: a schedule (None: no schedule) and its
    next run, or why it cannot be used."""

    schedule: Schedule | None = None
    next_run: datetime | None = None
    problem: str = ""

    def said(self, now: datetime, zone: tzinfo) -> str:
        """The reading as the line under the field says it."""
        if self.problem or self.schedule is None or self.next_run is None:
            return self.problem or NO_SCHEDULE
        return schedule_reading(self.schedule, self.next_run, now, zone)


def read_schedule(text: str, now: datetime, zone: tzinfo) -> ScheduleReading:
    """*text* read as a schedule at *now* (in *zone*, the user's), with its
    next run after *now*, as saving it would."""
    try:
        schedule = parse_schedule(text, now.astimezone(zone))
        upcoming = None if schedule is None else check_upcoming(schedule, now, zone)
    except ReverieError as error:
        return ScheduleReading(problem=str(error))
    return ScheduleReading(schedule, upcoming)


def stored_reading(task: Task, now: datetime, zone: tzinfo) -> str:
    """What a task's own schedule reads as, with its stored next run; "" if
    it does not run (no schedule, not active, a ``once`` that ran)."""
    if task.schedule is None or task.status != "active" or task.next_run_at is None:
        return ""
    if task.next_run_at <= now.timestamp():
        return f"Due since {when_words(task.next_run_at, now, zone)}"
    upcoming = datetime.fromtimestamp(task.next_run_at, zone)
    return schedule_reading(task.schedule, upcoming, now, zone)


class TaskDetail(QWidget):
    """The right pane: one task, its fields to edit and its actions (buttons
    the window connects); the New task form (the same fields, empty, with
    Add task and Cancel); or a line saying what to do."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("task-detail")
        self.task: Task | None = None
        self.creating = False
        """Is the pane the New task form?"""
        self.title = named(plain_label(), "task-detail-title")
        self.title.setWordWrap(True)
        self.origin = named(plain_label(), "task-origin")
        self.origin.setWordWrap(True)
        self.open_button = named(
            QPushButton("Open conversation"), "task-open-conversation", "Open the conversation"
        )
        self.open_button.setToolTip("Show the conversation this task came from")
        self.text_edit = named(QLineEdit(), "task-text", "What to do")
        self.text_edit.setPlaceholderText("What to do, in one line")
        self.text_edit.setAccessibleDescription("The task, in one line")
        self.priority_box = named(QSpinBox(), "task-priority", "Priority, 1 urgent to 10 low")
        self.priority_box.setAccessibleDescription("1 is urgent, 10 low")
        self.priority_box.setRange(URGENT, LOW)
        self.priority_box.setValue(DEFAULT_PRIORITY)
        self.priority_box.setPrefix("P")
        self.schedule_edit = named(QLineEdit(), "task-schedule", "Schedule, in words")
        self.schedule_edit.setPlaceholderText(SCHEDULE_PLACEHOLDER)
        self.schedule_edit.setToolTip(SCHEDULE_HINT)
        self.schedule_hint = named(QLabel(), "task-schedule-hint", "What the schedule reads as")
        self.edit_problem = named(QLabel(), "task-edit-problem", "Why the task was not saved")
        self.revert_button = named(QPushButton("Revert"), "task-revert", "Undo my changes")
        self.revert_button.setToolTip("Put the task's own text, priority and schedule back")
        self.save_button = named(QPushButton("Save"), "task-save", "Save the task")
        self.save_button.setToolTip("Save (Ctrl+S, or Enter in a field)")
        self.cancel_button = named(
            QPushButton("Cancel"), "task-cancel-new", "Cancel the new task, adding nothing"
        )
        self.cancel_button.setToolTip("Close the form without adding the task")
        self.create_button = named(QPushButton("Add task"), "task-create", "Add the task")
        self.create_button.setToolTip("Add the task (Ctrl+S, or Enter in a field)")
        self.pause_button = named(QPushButton("Pause"), "task-pause", "Pause the task")
        self.complete_button = named(QPushButton("Complete"), "task-complete", "Mark it done")
        self.complete_button.setToolTip("Mark the task done; the Completed filter shows it")
        self.delete_button = named(QPushButton("Delete"), "task-delete", "Delete the task")
        self.delete_button.setToolTip("Delete (Del); restorable from the Deleted filter")
        self.restore_button = named(QPushButton("Restore"), "task-restore", "Restore the task")
        self.restore_button.setToolTip("Bring the task back as it was")
        self.erase_button = named(
            QPushButton("Delete now…"), "task-erase", "Delete the task now, for good"
        )
        self.erase_button.setToolTip("Erase it for good now, not restorable (asks first)")
        self.can_erase = False
        """Whether a deleted task can be erased for good from here (an eraser was given)."""
        self.routine = named(QLabel(), "task-routine", "What the routine asks")
        self.facts = named(QLabel(), "task-facts")
        for label in (self.schedule_hint, self.edit_problem, self.routine, self.facts):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
        self.routine.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.edit_problem.hide()
        self.cancel_button.hide()
        self.create_button.hide()
        self._lay_out()
        self._order_tabs()

    def _lay_out(self) -> None:
        origin = QHBoxLayout()
        origin.addWidget(self.origin, 1)
        origin.addWidget(self.open_button)
        priority = QHBoxLayout()
        priority.addWidget(self.priority_box)
        priority.addWidget(named(QLabel("1 is urgent, 10 low"), "task-priority-note"), 1)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for text, field in (("&Task", self.text_edit), ("&Schedule", self.schedule_edit)):
            label = QLabel(text)
            label.setBuddy(field)
            label.setFixedHeight(field.sizeHint().height())  # level with the field, bar or not
            form.addRow(label, guarded(field))
        priority_label = QLabel("&Priority")
        priority_label.setBuddy(self.priority_box)
        form.insertRow(1, priority_label, priority)
        edit_buttons = QHBoxLayout()
        edit_buttons.addStretch(1)
        for button in (
            self.revert_button,
            self.save_button,
            self.cancel_button,
            self.create_button,
        ):
            edit_buttons.addWidget(button)
        actions = QHBoxLayout()
        for button in (self.pause_button, self.complete_button, self.delete_button):
            actions.addWidget(button)
        actions.addWidget(self.restore_button)
        actions.addWidget(self.erase_button)
        actions.addStretch(1)
        self.single = QWidget()
        single = QVBoxLayout(self.single)
        single.setContentsMargins(0, 4, 0, 0)
        single.addLayout(form)
        # Under the form, not in it: a form row keeps the height it had for the
        # first line, so a reading of several lines was cut at both ends.
        single.addWidget(self.schedule_hint)
        single.addWidget(self.edit_problem)
        single.addLayout(edit_buttons)
        single.addSpacing(8)
        single.addLayout(actions)
        single.addWidget(self.routine)
        single.addWidget(self.facts)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.addWidget(self.title)
        layout.addLayout(origin)
        layout.addWidget(self.single)
        layout.addStretch(1)

    def _order_tabs(self) -> None:
        """Tab goes as one reads: the conversation, the fields, their buttons, the actions."""
        chain = (
            self.open_button,
            self.text_edit,
            self.priority_box,
            self.schedule_edit,
            self.revert_button,
            self.save_button,
            self.cancel_button,
            self.create_button,
            self.pause_button,
            self.complete_button,
            self.delete_button,
            self.restore_button,
            self.erase_button,
        )
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    # -- what is shown -------------------------------------------------------
    def fields(self) -> tuple[str, int, str]:
        """The text, priority and schedule words as typed."""
        return (
            self.text_edit.text(),
            self.priority_box.value(),
            self.schedule_edit.text(),
        )

    def base(self) -> tuple[str, int, str]:
        """The shown task's own text, priority and schedule words."""
        task = self.task
        if task is None:
            return ("", DEFAULT_PRIORITY, "")
        return (task.text, task.priority, schedule_words(task) or "")

    def dirty(self) -> bool:
        """Has the user changed a field of the shown task (or typed in the New task form)?"""
        if self.task is None and not self.creating:
            return False
        text, priority, words = self.fields()
        base_text, base_priority, base_words = self.base()
        return (
            text.strip() != base_text
            or priority != base_priority
            or " ".join(words.split()) != base_words
        )

    def show_task(self, task: Task, origin: str, facts: str) -> None:
        """Show *task*; fields the user changed for this same task keep what
        they typed, the others follow the task (the model may have changed it)."""
        same = self.task is not None and self.task.id == task.id
        typed, before = self.fields(), self.base()
        self.task = task
        self._leave_form()
        status = "" if task.status == "active" else f" · {STATUS_WORDS[task.status].lower()}"
        # Named by its own words, as the list shows it: "Task #1" was a
        # number the list does not show; a long text is cut, the tip has it all.
        self.title.setText(breakable(cut(" ".join(task.text.split()), TITLE_CHARS)) + status)
        self.title.setToolTip(plain_tip(task.text))
        self.origin.setText(
            breakable(f"From {origin}" if task.conversation_id is not None else origin)
        )
        self.origin.show()
        self.open_button.setVisible(task.conversation_id is not None)
        if same:
            self._follow(typed, before)
        else:
            self.reset_fields()
        editable = task.status in ("active", "paused")
        for line in (self.text_edit, self.schedule_edit):
            line.setReadOnly(not editable)
            line.style().polish(line)  # the style sheet greys a read-only field
        self.schedule_edit.setPlaceholderText(SCHEDULE_PLACEHOLDER if editable else "no schedule")
        self.priority_box.setReadOnly(not editable)
        self.priority_box.setButtonSymbols(
            QSpinBox.ButtonSymbols.UpDownArrows if editable else QSpinBox.ButtonSymbols.NoButtons
        )
        why = {"completed": "A completed task is kept as it was.", "deleted": "Restore it to edit."}
        for field in (self.text_edit, self.priority_box, self.schedule_edit):
            field.setToolTip(why.get(task.status, ""))
        self.schedule_edit.setToolTip(why.get(task.status, SCHEDULE_HINT))
        self.pause_button.setText("Resume" if task.status == "paused" else "Pause")
        self.pause_button.setAccessibleName(
            "Resume the task" if task.status == "paused" else "Pause the task"
        )
        self.pause_button.setVisible(editable)
        self.complete_button.setVisible(editable)
        self.delete_button.setVisible(task.status != "deleted")
        self.restore_button.setVisible(task.status == "deleted")
        self.erase_button.setVisible(task.status == "deleted" and self.can_erase)
        self.revert_button.setVisible(editable)
        self.save_button.setVisible(editable)
        self.routine.setText(
            breakable(f"A routine: when it runs, Reverie asks the model: “{task.ai_prompt}”")
            if task.ai_prompt is not None
            else ""
        )
        self.routine.setVisible(task.ai_prompt is not None)
        self.facts.setText(facts)
        self.single.show()

    def _follow(self, typed: tuple[str, int, str], before: tuple[str, int, str]) -> None:
        """Each field not changed by the user takes the task's value now."""
        text, priority, words = self.base()
        if typed[0].strip() == before[0] and typed[0] != text:
            self.text_edit.setText(text)
        if typed[1] == before[1]:
            self.priority_box.setValue(priority)
        if " ".join(typed[2].split()) == before[2] and typed[2] != words:
            self.schedule_edit.setText(words)

    def reset_fields(self) -> None:
        """The fields as the shown task has them."""
        text, priority, words = self.base()
        self.text_edit.setText(text)
        self.priority_box.setValue(priority)
        self.schedule_edit.setText(words)
        self.edit_problem.hide()

    def show_new(self) -> None:
        """The New task form: the fields empty and editable, with Add task and Cancel."""
        self.task = None
        self.creating = True
        self.title.setText("New task")
        self.title.setToolTip("")
        self.origin.setText("Added by you, not from a conversation.")
        self.origin.show()
        self.open_button.hide()
        self.reset_fields()
        for field in (self.text_edit, self.schedule_edit):
            field.setReadOnly(False)
            field.style().polish(field)
        self.priority_box.setReadOnly(False)
        self.priority_box.setButtonSymbols(QSpinBox.ButtonSymbols.UpDownArrows)
        self.text_edit.setToolTip("")
        self.priority_box.setToolTip("")
        self.schedule_edit.setToolTip(SCHEDULE_HINT)
        self.schedule_edit.setPlaceholderText(SCHEDULE_PLACEHOLDER)
        for widget in self._task_only():
            widget.hide()
        self.cancel_button.show()
        self.create_button.show()
        self.single.show()

    def _task_only(self) -> tuple[QWidget, ...]:
        """What shows only with a task: its editing buttons, actions and facts."""
        return (
            self.revert_button,
            self.save_button,
            self.pause_button,
            self.complete_button,
            self.delete_button,
            self.restore_button,
            self.erase_button,
            self.routine,
            self.facts,
        )

    def _leave_form(self) -> None:
        if self.creating:
            self.creating = False
            self.cancel_button.hide()
            self.create_button.hide()
            self.facts.show()

    def show_summary(self, text: str, origin: str = "", conversation: bool = False) -> None:
        """No single task: say *text* (how to start, or a group's *origin*,
        with Open conversation if it has a *conversation*)."""
        self.task = None
        self._leave_form()
        self.title.setText(breakable(text))  # a group names its conversation
        self.title.setToolTip("")
        self.origin.setText(origin)
        self.origin.setVisible(bool(origin))
        self.open_button.setVisible(conversation)
        self.single.hide()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # The reading stands under the schedule's field, where the form put it.
        left = self.schedule_edit.geometry().left()
        if left != self.schedule_hint.contentsMargins().left():
            self.schedule_hint.setContentsMargins(left, 0, 0, 0)

    def show_hint(self, text: str, *, problem: bool = False) -> None:
        """Say under the schedule what it reads as (its next run), or why it cannot be used."""
        self.schedule_hint.setText(text)
        self.schedule_edit.setAccessibleDescription(text)  # heard with the field, not after it
        self.schedule_hint.setProperty("problem", problem)
        self.schedule_hint.style().polish(self.schedule_hint)  # the style sheet colours a problem
        self.schedule_hint.setVisible(bool(text))

    def show_problem(self, text: str) -> None:
        """Say why the task was not saved (this says it already: the hint goes)."""
        self.edit_problem.setText(text)
        self.edit_problem.setVisible(bool(text))
        if text and self.schedule_hint.property("problem"):
            self.schedule_hint.hide()
