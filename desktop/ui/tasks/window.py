"""The tasks window: every task Reverie keeps, grouped by the conversation it
came from and most urgent first, to add by hand (New task, Ctrl+N), edit,
pause or resume, complete, delete and restore, with each one's schedule in
words and its next run.

Everything here is a quick read or write of the database, done in place; the
model is never asked.  A schedule is typed in words and read as the model's
are (``parse_schedule``, with the task service's clock for "tomorrow 9"):
what it reads as, with its next run or why it cannot be used, shows under it
while typing, and a schedule that cannot be used is refused on Save or Add
with the reason and nothing changed.  A task added here goes through the
same ``TaskService.add`` as the model's, so the same rules hold; the
scheduler finds it by its stored next run, as any other.  Deleting is soft:
the Deleted filter shows such tasks, with Restore.  ``refresh`` reads the
tasks again (the app calls it after the model's tool calls and routine
runs); it keeps what the user is typing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from PySide6.QtCore import QEvent, QKeyCombination, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QCloseEvent, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.base.errors import ReverieError
from desktop.core.db import Conversation, ConversationStore
from desktop.core.db.schedules import Schedule
from desktop.core.db.tasks import EVERY_STATUS, KEEP, OPEN, Keep, Task, TaskStatus
from desktop.core.dreaming.erasure import Eraser
from desktop.core.privacy.redaction import redaction_notice, taken_out
from desktop.core.tasks.schedules import parse_schedule
from desktop.core.tasks.service import TaskService, schedule_words
from desktop.ui.tasks.views import (
    COLUMNS,
    ROW_ROLE,
    TaskDetail,
    TaskGroup,
    column_widths,
    conversation_title,
    counted,
    facts_line,
    group_line,
    group_row,
    grouped,
    read_schedule,
    stored_reading,
)
from desktop.ui.widgets.app_window import AppWindow, ListOrEmpty
from desktop.ui.widgets.erase_confirm import one_named
from desktop.ui.widgets.erase_outcome import EraseNow
from desktop.ui.widgets.labels import named
from desktop.ui.widgets.unsaved import UnsavedGuard
from desktop.ui.widgets.worker import TaskQueue

FILTERS: dict[str, tuple[str, tuple[TaskStatus, ...]]] = {
    "open": ("To do", OPEN),
    "completed": ("Completed", ("completed",)),
    "deleted": ("Deleted", ("deleted",)),
    "all": ("Everything", EVERY_STATUS),
}
EMPTY_TASKS = (
    "No tasks yet. Ask Reverie to keep something to do, e.g. “remind me to water the "
    "plants every day at 9”, and it appears here."
)
_EMPTY_FILTER = {
    "open": "Nothing to do: every task is completed or deleted.",
    "completed": "No completed tasks.",
    "deleted": "No deleted tasks.",
    "all": EMPTY_TASKS,
}
LIST_MIN_WIDTH = 280
"""The list's least width: the priority and the start of each task's text."""
RowKey = tuple[str, int | None]
"""("task", id) or ("group", conversation id)."""


class TasksWindow(AppWindow):
    """The "Tasks — Reverie" window.

    Signals:
        open_conversation_requested(int): show this conversation (id), one
            a task came from.
        tasks_changed(): the user changed a task here (whoever schedules
            runs may want the next one again).
    """

    open_conversation_requested = Signal(int)
    tasks_changed = Signal()

    def __init__(
        self,
        tasks: TaskService,
        conversations: ConversationStore | None = None,
        parent: QWidget | None = None,
        *,
        eraser: Eraser | None = None,
    ) -> None:
        """Given an *eraser*, a deleted task can be erased for good ("Delete now")."""
        super().__init__(parent)
        self.setObjectName("tasks-view")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.setWindowTitle("Tasks — Reverie")
        self.resize(1180, 660)
        self._tasks = tasks
        self._conversations = conversations
        self._eraser = eraser
        self._erasing = TaskQueue("tasks-window", self)
        self._erase_now = EraseNow(self, self._erasing, self._on_erased)
        self._before_new: RowKey | None = None
        """The row shown before the New task form opened, to go back to on Cancel."""
        self._build()
        self.detail.can_erase = eraser is not None
        self.unsaved = UnsavedGuard(
            self,
            dirty=self.detail.dirty,
            what=self._editing_what,
            save=self.save,
            discard=self.revert,
        )
        self.refresh()

    # -- construction --------------------------------------------------------
    def _build(self) -> None:
        self.filter_box = named(QComboBox(), "task-filter", "Show")
        for key, (words, _) in FILTERS.items():
            self.filter_box.addItem(words, key)
        self.filter_box.setToolTip("Which tasks the list shows")
        self.count_label = named(QLabel(), "task-count")
        self.new_button = named(QPushButton("&New task…"), "task-new", "New task")
        self.new_button.setToolTip("Add a task by hand (Ctrl+N)")
        self.new_button.setAccessibleDescription("Opens an empty task form beside the list")
        self.build_status_lines("task")
        show_label = QLabel("S&how:")
        show_label.setBuddy(self.filter_box)
        top = QHBoxLayout()
        top.addWidget(show_label)
        top.addWidget(self.filter_box)
        top.addWidget(self.count_label, 1)
        top.addWidget(self.new_button)
        splitter = QSplitter()
        splitter.setChildrenCollapsible(False)  # neither pane shrinks to a sliver
        splitter.addWidget(self._build_list())
        splitter.addWidget(self._build_detail())
        splitter.setStretchFactor(0, 1)
        splitter.setSizes([800, 380])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.notice)
        layout.addWidget(self.problem)
        layout.addWidget(splitter, 1)
        QWidget.setTabOrder(self.filter_box, self.new_button)
        QWidget.setTabOrder(self.new_button, self.tree)
        QWidget.setTabOrder(self.tree, self.detail.open_button)
        self._connect()
        self._shortcuts()

    def _build_list(self) -> QWidget:
        self.tree = named(QTreeWidget(), "task-list", "Tasks")
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setItemsExpandable(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAllColumnsShowFocus(True)
        self.tree.setMinimumWidth(LIST_MIN_WIDTH)
        header = self.tree.header()
        header.setStretchLastSection(False)
        for column in range(len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
        self.tree.viewport().installEventFilter(self)  # its width sets the columns'
        self.list_stack = ListOrEmpty(self.tree, EMPTY_TASKS, "task-empty")
        self.empty_label = self.list_stack.empty_label
        return self.list_stack

    def _build_detail(self) -> QWidget:
        self.detail = TaskDetail()
        scroll = named(QScrollArea(), "task-detail-scroll")
        scroll.setAccessibleName("The task shown")
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.detail)
        # At the least size the fields and every button still show whole;
        # only a routine's long prompt may need the scroll bar.
        least = self.detail.minimumSizeHint()
        frame = 2 * scroll.frameWidth()
        bar = scroll.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        scroll.setMinimumSize(least.width() + frame + bar, least.height() + frame)
        return scroll

    def _connect(self) -> None:
        self.filter_box.currentIndexChanged.connect(self.refresh)
        self.new_button.clicked.connect(self.new_task)
        self.tree.currentItemChanged.connect(self._on_current_changed)
        detail = self.detail
        detail.open_button.clicked.connect(self._open_conversation)
        detail.save_button.clicked.connect(self.save)
        detail.revert_button.clicked.connect(self.revert)
        detail.pause_button.clicked.connect(self.toggle_pause)
        detail.complete_button.clicked.connect(self.complete)
        detail.delete_button.clicked.connect(self.delete)
        detail.restore_button.clicked.connect(self.restore)
        detail.erase_button.clicked.connect(self.ask_erase)
        detail.create_button.clicked.connect(self.add)
        detail.cancel_button.clicked.connect(self.cancel_new)
        detail.text_edit.returnPressed.connect(self.save)
        detail.schedule_edit.returnPressed.connect(self.save)
        for edited in (detail.text_edit.textChanged, detail.schedule_edit.textChanged):
            edited.connect(self._on_edited)
        detail.priority_box.valueChanged.connect(self._on_edited)

    def _shortcuts(self) -> None:
        QShortcut(QKeySequence(QKeyCombination(Qt.Key.Key_Escape)), self, self._escape)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Save), self, self.save)
        QShortcut(QKeySequence(QKeySequence.StandardKey.New), self, self.new_task)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Refresh), self, self.refresh)
        delete = QShortcut(QKeySequence(QKeyCombination(Qt.Key.Key_Delete)), self.tree)
        delete.setContext(Qt.ShortcutContext.WidgetShortcut)  # not while typing in a field
        delete.activated.connect(self.delete)

    # -- the list ------------------------------------------------------------
    def refresh(self) -> None:
        """Read the tasks again; the task being edited keeps what was typed."""
        key = self._current_key()
        before = self._task_items()
        position = next((n for n, item in enumerate(before) if self._key(item) == key), 0)
        try:
            tasks = self._tasks.list(FILTERS[self.filter_box.currentData()][1])
        except ReverieError as error:
            self.show_problem(f"The tasks could not be read: {error}")
            return
        # Read together: one read each cost a user with tasks from a
        # thousand conversations a thousand reads at every refresh.
        titles = self._titles(task.conversation_id for task in tasks)
        groups = grouped(tasks, titles.get)
        now = self._tasks.now()
        bold = QFont(self.tree.font())
        bold.setBold(True)
        self.tree.blockSignals(True)
        self.tree.clear()
        for group in groups:
            self.tree.addTopLevelItem(group_row(group, now, self._tasks.zone, bold))
        self.tree.expandAll()
        for item in self._items():
            item.setFirstColumnSpanned(isinstance(item.data(0, ROW_ROLE), TaskGroup))
        self._fit_columns()
        found = self._item(key)
        keep = self.detail.dirty() or self.detail.creating  # the pane stays as it is
        if found is None and not keep and (rows := self._task_items()):
            found = rows[min(position, len(rows) - 1)]  # where the one that went was
        if found is not None:
            self.tree.setCurrentItem(found)
        self.tree.blockSignals(False)
        self.count_label.setText(counted(tasks))
        if not tasks:  # else not shown
            self.empty_label.setText(self._empty_text())
        self.list_stack.setCurrentWidget(self.tree if tasks else self.empty_label)
        self._show_current(found, now)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.tree.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return super().eventFilter(watched, event)

    def _fit_columns(self) -> None:
        """Share the list's width out (``column_widths``): the task's words
        stay readable, a long schedule is cut with "…" and its tip."""
        header = self.tree.header()
        wanted = [
            max(self.tree.sizeHintForColumn(c), header.sectionSizeHint(c))
            for c in range(len(COLUMNS))
        ]
        for column, width in enumerate(column_widths(self.tree.viewport().width(), wanted)):
            header.resizeSection(column, width)

    def _items(self) -> list[QTreeWidgetItem]:
        """Every row, groups and tasks, top to bottom."""
        rows: list[QTreeWidgetItem] = []
        for index in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(index)
            if group is not None:
                rows.append(group)
                rows += filter(None, map(group.child, range(group.childCount())))
        return rows

    def _task_items(self) -> list[QTreeWidgetItem]:
        return [item for item in self._items() if isinstance(item.data(0, ROW_ROLE), Task)]

    @staticmethod
    def _key(item: QTreeWidgetItem) -> RowKey:
        data = item.data(0, ROW_ROLE)
        if isinstance(data, Task):
            return ("task", data.id)
        return ("group", data.conversation_id if isinstance(data, TaskGroup) else None)

    def _current_key(self) -> RowKey | None:
        item = self.tree.currentItem()
        if item is not None:
            return self._key(item)
        return None if self.detail.task is None else ("task", self.detail.task.id)

    def _item(self, key: RowKey | None) -> QTreeWidgetItem | None:
        return next((item for item in self._items() if self._key(item) == key), None)

    def task_ids(self) -> list[int]:
        """The ids of the tasks listed, top to bottom."""
        return [item.data(0, ROW_ROLE).id for item in self._task_items()]

    def group_titles(self) -> list[str]:
        """The groups listed, top to bottom, as they read."""
        return [item.text(0) for item in self._items() if item.parent() is None]

    def row_texts(self, task_id: int) -> list[str]:
        """What the row of task *task_id* shows, column by column."""
        item = self._item(("task", task_id))
        return [] if item is None else [item.text(c) for c in range(len(COLUMNS))]

    def _empty_text(self) -> str:
        try:
            if not self._tasks.count(EVERY_STATUS):
                return EMPTY_TASKS
        except ReverieError:
            return EMPTY_TASKS
        return _EMPTY_FILTER[self.filter_box.currentData()]

    def _titles(self, conversation_ids: Iterable[int | None]) -> dict[int, Conversation]:
        """The conversations *conversation_ids* name, by id; those that
        cannot be read are left out (their tasks show under their number)."""
        if self._conversations is None:
            return {}
        wanted = {i for i in conversation_ids if i is not None}
        try:
            return self._conversations.get_many(wanted)
        except ReverieError:
            return {}

    def _conversation(self, conversation_id: int) -> Conversation | None:
        if self._conversations is None:
            return None
        try:
            return self._conversations.get(conversation_id)
        except ReverieError:
            return None  # the task still shows, under the conversation's number

    # -- the detail ----------------------------------------------------------
    def _on_current_changed(
        self, current: QTreeWidgetItem | None, previous: QTreeWidgetItem | None
    ) -> None:
        shown = self.detail.task
        target = None if current is None else self._key(current)
        editing = ("task", shown.id) if shown is not None else None
        if self.detail.dirty() and (self.detail.creating or target != editing):
            self.tree.blockSignals(True)  # stay here until the user answers
            if previous is None:
                self.tree.setCurrentIndex(QModelIndex())
            else:
                self.tree.setCurrentItem(previous)
            self.tree.blockSignals(False)
            self.resolve_unsaved("leaving it", lambda: self._go_to(target))
            return
        self._show_current(current, self._tasks.now())

    def _go_to(self, key: RowKey | None) -> None:
        item = self._item(key)
        if item is not None:
            self.tree.setCurrentItem(item)
        self._show_current(self.tree.currentItem(), self._tasks.now())

    def _show_current(self, item: QTreeWidgetItem | None, now: datetime) -> None:
        data = None if item is None else item.data(0, ROW_ROLE)
        detail = self.detail
        zone = self._tasks.zone
        if detail.creating and data is None:
            pass  # the New task form stays, with what was typed
        elif isinstance(data, Task):
            detail.show_task(data, self._origin(data), facts_line(data, now, zone))
        elif isinstance(data, TaskGroup):
            detail.show_summary(
                group_line(data), "Select a task to edit it.", data.conversation_id is not None
            )
        elif detail.task is not None and detail.dirty():
            # The task being edited left the list (the model completed it, a
            # filter hides it): it stays here, as it is now, with the typing.
            latest = self._latest(detail.task.id)
            if latest is not None:
                detail.show_task(
                    latest, self._origin(latest), facts_line(latest, now, self._tasks.zone)
                )
        elif self.tree.topLevelItemCount():
            detail.show_summary("Select a task to edit, pause, complete or delete it.")
        else:
            detail.show_summary("")
        self._update_state()

    def _latest(self, task_id: int) -> Task | None:
        try:
            return self._tasks.get(task_id)
        except ReverieError:
            return None

    def _origin(self, task: Task) -> str:
        conversation_id = task.conversation_id
        found = None if conversation_id is None else self._conversation(conversation_id)
        return conversation_title(found, conversation_id)

    def _on_edited(self) -> None:
        self.detail.show_problem("")  # said of what was typed before
        self._update_state()

    def _update_state(self) -> None:
        """Keep the buttons and the schedule's reading in step with the typing."""
        detail, task = self.detail, self.detail.task
        dirty = detail.dirty()
        detail.save_button.setEnabled(dirty)
        detail.revert_button.setEnabled(dirty)
        if task is None and not detail.creating:
            return
        now, zone = self._tasks.now(), self._tasks.zone
        words = " ".join(detail.schedule_edit.text().split())
        if task is not None and (words == (schedule_words(task) or "") or task.status not in OPEN):
            detail.show_hint(stored_reading(task, now, zone))
            return
        reading = read_schedule(words, now, zone)
        detail.show_hint(reading.said(now, zone), problem=bool(reading.problem))

    # -- editing -------------------------------------------------------------
    def save(self) -> bool:
        """Save the typed text, priority and schedule; did it work (or was
        there nothing to save)?  What cannot be saved is said under the
        fields, and nothing is changed."""
        detail, task = self.detail, self.detail.task
        if detail.creating:
            return self.add()
        if task is None or not detail.dirty():
            return True
        text, priority, words = detail.fields()
        base_text, base_priority, base_words = detail.base()
        schedule: Schedule | Keep | None = KEEP
        if " ".join(words.split()) != base_words:
            try:
                schedule = parse_schedule(words, self._tasks.now())
            except ReverieError as error:
                detail.show_problem(f"Not saved: {error}")
                return False
        try:
            saved = self._tasks.update(
                task.id,
                text=None if text.strip() == base_text else text,
                priority=None if priority == base_priority else priority,
                schedule=schedule,
            )
        except ReverieError as error:
            detail.show_problem(f"Not saved: {error}")
            return False
        detail.task = saved
        detail.reset_fields()
        self._changed(_with_why(f"Saved task #{saved.id}.", text, saved.text))
        return True

    def revert(self) -> None:
        """Put the task's own text, priority and schedule back in the fields
        (in the New task form: close it, adding nothing)."""
        if self.detail.creating:
            self.cancel_new()
            return
        self.detail.reset_fields()
        self._update_state()

    # -- adding ----------------------------------------------------------------
    def new_task(self) -> None:
        """Open the New task form beside the list (asking first about unsaved
        edits of the task shown)."""
        self.present()
        if self.detail.creating:
            self.detail.text_edit.setFocus()
            return
        self.resolve_unsaved("starting a new task", self._open_form)

    def _open_form(self) -> None:
        self._before_new = self._current_key()
        self.tree.blockSignals(True)  # no row is the one shown while the form is open
        self.tree.setCurrentIndex(QModelIndex())
        self.tree.clearSelection()
        self.tree.blockSignals(False)
        self.detail.show_new()
        self._update_state()
        self.detail.text_edit.setFocus()

    def add(self) -> bool:
        """Add the task typed in the New task form, as the model's tool adds
        one; did it work?  What cannot be added is said under the fields,
        and nothing is added."""
        detail = self.detail
        if not detail.creating:
            return True
        text, priority, words = detail.fields()
        try:
            schedule = parse_schedule(words, self._tasks.now())
            task = self._tasks.add(text, conversation_id=None, priority=priority, schedule=schedule)
        except ReverieError as error:
            self.show_notice("")  # an earlier "Added task #2." is not about this one
            detail.show_problem(f"Not added: {error}")
            return False
        detail.show_summary("")  # the form closes; the new task is shown instead
        if "active" not in FILTERS[self.filter_box.currentData()][1]:
            self.filter_box.setCurrentIndex(self.filter_box.findData("open"))
        self._changed(_with_why(f"Added task #{task.id}.", text, task.text))
        self._go_to(("task", task.id))
        item = self.tree.currentItem()
        if item is not None:
            self.tree.scrollToItem(item)
        self._focus_list()
        return True

    def cancel_new(self) -> None:
        """Close the New task form, adding nothing; the row shown before comes back."""
        if not self.detail.creating:
            return
        self.detail.show_summary("")
        self._go_to(self._before_new)
        self._focus_list()

    def _focus_list(self) -> None:
        """Where the keyboard goes when the form closes under it: the list at
        the row now shown (New task if there are none)."""
        has_rows = self.list_stack.currentWidget() is self.tree
        (self.tree if has_rows else self.new_button).setFocus()

    def _escape(self) -> None:
        """Esc closes the New task form (asking first if something was typed), else the window."""
        if self.detail.creating:
            self.resolve_unsaved("closing the form", self.cancel_new)
        else:
            self.close()

    def _editing_what(self) -> str:
        """What the unsaved-changes question calls the edits."""
        if self.detail.creating:
            return "the new task"
        return f"task #{self.detail.task.id}" if self.detail.task else "the task"

    def toggle_pause(self) -> None:
        """Pause the task shown, or resume it if it is paused."""
        task = self.detail.task
        if task is None:
            return
        if task.status == "paused":
            self._act(lambda: self._tasks.resume(task.id), f"Resumed task #{task.id}.")
        else:
            self._act(
                lambda: self._tasks.pause(task.id),
                f"Paused task #{task.id}: it is left out of the chat and does not run.",
            )

    def complete(self) -> None:
        """Mark the task shown done (asking first about unsaved edits)."""
        task = self.detail.task
        if task is not None:
            self.resolve_unsaved(
                "completing it",
                lambda: self._act(
                    lambda: self._tasks.complete(task.id),
                    f"Completed task #{task.id}. The Completed filter shows it.",
                ),
            )

    def delete(self) -> None:
        """Delete the task shown, softly (asking first about unsaved edits)."""
        task = self.detail.task
        if task is not None and task.status != "deleted":
            self.resolve_unsaved(
                "deleting it",
                lambda: self._act(
                    lambda: self._tasks.delete(task.id),
                    f"Deleted task #{task.id}. You can restore it from the Deleted filter.",
                ),
            )

    def restore(self) -> None:
        """Bring the deleted task shown back as it was (a paused one active)."""
        task = self.detail.task
        if task is not None and task.status == "deleted":
            self._act(lambda: self._tasks.restore(task.id), f"Restored task #{task.id}.")

    def ask_erase(self) -> None:
        """Ask, then erase the deleted task shown for good."""
        task = self.detail.task
        if task is not None and task.status == "deleted" and self._eraser is not None:
            eraser = self._eraser
            # Named by its text, as the list shows it, not by a number the list does not show.
            what = one_named("task", task.text)
            self._erase_now.ask(what, lambda: eraser.erase_tasks([task.id]))

    @property
    def erase_confirm(self) -> QMessageBox | None:
        """The open "Delete now, for good?" question, if any."""
        return self._erase_now.question

    @property
    def busy(self) -> bool:
        """Whether an erasure is under way."""
        return self._erasing.busy

    def _on_erased(self) -> None:
        self.refresh()
        self.tasks_changed.emit()

    def _act(self, action: Callable[[], Task], said: str) -> None:
        try:
            action()
        except ReverieError as error:
            self.show_problem(f"That did not work: {error}")
            self.refresh()  # the task may have changed meanwhile
            return
        self._changed(said)

    def _changed(self, said: str) -> None:
        self.show_notice(said)
        self.refresh()
        self.tasks_changed.emit()

    def resolve_unsaved(self, doing: str, then: Callable[[], object]) -> None:
        """Run *then* once the task shown has no unsaved edits: at once, or
        after asking whether to save or discard them before *doing*."""
        self.unsaved.resolve(doing, then)

    @property
    def unsaved_dialog(self) -> QMessageBox | None:
        """The unsaved-changes question while it is open."""
        return self.unsaved.dialog

    # -- the window ----------------------------------------------------------
    def show_task(self, task_id: int) -> None:
        """Bring the window up at task *task_id*, changing the filter if it hides it."""
        self.present()
        if ("task", task_id) == self._current_key():
            return
        task = self._latest(task_id)
        if task is None:
            self.show_problem(f"There is no task #{task_id}.")
            return
        if self._item(("task", task_id)) is None:
            self.filter_box.setCurrentIndex(self.filter_box.findData("all"))
        item = self._item(("task", task_id))
        if item is not None:
            self.tree.setCurrentItem(item)
            self.tree.scrollToItem(item)

    def _open_conversation(self) -> None:
        item = self.tree.currentItem()
        data = self.detail.task or (None if item is None else item.data(0, ROW_ROLE))
        conversation_id = data.conversation_id if isinstance(data, (Task, TaskGroup)) else None
        if conversation_id is not None:
            self.open_conversation_requested.emit(conversation_id)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.unsaved.may_close():
            self.cancel_new()  # an empty form is not kept for next time
            super().closeEvent(event)  # hidden, not destroyed: the app opens it again
        else:
            event.ignore()  # asked first; it closes once answered so

    def shutdown(self) -> None:
        """Close any question still open, and stop the worker after the
        erasure in flight; call before the app quits."""
        self.unsaved.dismiss()
        self._erasing.stop()


def _with_why(said: str, typed: str, stored: str) -> str:
    """*said*, and why the stored text holds a marker where a secret was typed."""
    kinds = taken_out(typed, stored)
    return f"{said} {redaction_notice(kinds)}" if kinds else said
