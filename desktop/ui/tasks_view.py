"""The tasks window: every task Reverie keeps, grouped by the conversation it
came from and most urgent first, to edit, pause or resume, complete, delete
and restore, with each one's schedule in words and its next run.

Everything here is a quick read or write of the database, done in place; the
model is never asked.  A schedule is typed in words and read as the model's
are (``parse_schedule``): what it reads as, with its next run or why it cannot
be used, shows under it while typing, and a schedule that cannot be used is
refused on Save with the reason and nothing saved.  Deleting is soft: the
Deleted filter shows such tasks, with Restore.  ``refresh`` reads the tasks
again (the app calls it after the model's tool calls and routine runs); it
keeps what the user is typing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import QKeyCombination, QModelIndex, Qt, Signal
from PySide6.QtGui import QCloseEvent, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.db import Conversation, ConversationStore
from desktop.core.db.tasks import EVERY_STATUS, KEEP, OPEN, Keep, Task, TaskStatus
from desktop.core.errors import ReverieError
from desktop.core.schedules import Schedule, parse_schedule
from desktop.core.tasks import TaskService, schedule_words
from desktop.ui.app_window import AppWindow, ListOrEmpty
from desktop.ui.memory_views import named
from desktop.ui.task_views import (
    COLUMNS,
    NONE,
    ROW_ROLE,
    TEXT,
    TaskDetail,
    TaskGroup,
    conversation_title,
    counted,
    facts_line,
    group_line,
    group_row,
    grouped,
    next_run_words,
    read_schedule,
    when_words,
)
from desktop.ui.unsaved import UnsavedGuard

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
    ) -> None:
        super().__init__(parent)
        self.setObjectName("tasks-view")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.setWindowTitle("Tasks — Reverie")
        self.resize(1180, 660)
        self._tasks = tasks
        self._conversations = conversations
        self._build()
        self.unsaved = UnsavedGuard(
            self,
            dirty=self.detail.dirty,
            what=lambda: f"task #{self.detail.task.id}" if self.detail.task else "the task",
            save=self.save,
            discard=self.revert,
        )
        self.refresh()

    # -- construction --------------------------------------------------------
    def _build(self) -> None:
        self.filter_box = named(QComboBox(), "task-filter", "Show")
        for key, (words, _) in FILTERS.items():
            self.filter_box.addItem(words, key)
        self.count_label = named(QLabel(), "task-count")
        self.build_status_lines("task")
        show_label = QLabel("S&how:")
        show_label.setBuddy(self.filter_box)
        top = QHBoxLayout()
        top.addWidget(show_label)
        top.addWidget(self.filter_box)
        top.addWidget(self.count_label, 1)
        splitter = QSplitter()
        splitter.addWidget(self._build_list())
        splitter.addWidget(self._build_detail())
        splitter.setStretchFactor(0, 1)
        splitter.setSizes([800, 380])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.notice)
        layout.addWidget(self.problem)
        layout.addWidget(splitter, 1)
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
        header = self.tree.header()
        header.setStretchLastSection(False)
        for column in range(len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(TEXT, QHeaderView.ResizeMode.Stretch)
        self.list_stack = ListOrEmpty(self.tree, EMPTY_TASKS, "task-empty")
        self.empty_label = self.list_stack.empty_label
        return self.list_stack

    def _build_detail(self) -> QWidget:
        self.detail = TaskDetail()
        scroll = named(QScrollArea(), "task-detail-scroll")
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.detail)
        return scroll

    def _connect(self) -> None:
        self.filter_box.currentIndexChanged.connect(self.refresh)
        self.tree.currentItemChanged.connect(self._on_current_changed)
        detail = self.detail
        detail.open_button.clicked.connect(self._open_conversation)
        detail.save_button.clicked.connect(self.save)
        detail.revert_button.clicked.connect(self.revert)
        detail.pause_button.clicked.connect(self.toggle_pause)
        detail.complete_button.clicked.connect(self.complete)
        detail.delete_button.clicked.connect(self.delete)
        detail.restore_button.clicked.connect(self.restore)
        detail.text_edit.returnPressed.connect(self.save)
        detail.schedule_edit.returnPressed.connect(self.save)
        for edited in (detail.text_edit.textChanged, detail.schedule_edit.textChanged):
            edited.connect(self._on_edited)
        detail.priority_box.valueChanged.connect(self._on_edited)

    def _shortcuts(self) -> None:
        QShortcut(QKeySequence(QKeyCombination(Qt.Key.Key_Escape)), self, self.close)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Save), self, self.save)
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
        titles: dict[int, Conversation | None] = {}

        def find(conversation_id: int) -> Conversation | None:
            if conversation_id not in titles:
                titles[conversation_id] = self._conversation(conversation_id)
            return titles[conversation_id]

        groups = grouped(tasks, find)
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
        found = self._item(key)
        if found is None and not self.detail.dirty() and (rows := self._task_items()):
            found = rows[min(position, len(rows) - 1)]  # where the one that went was
        if found is not None:
            self.tree.setCurrentItem(found)
        self.tree.blockSignals(False)
        self.count_label.setText(counted(tasks))
        self.empty_label.setText(self._empty_text())
        self.list_stack.setCurrentWidget(self.tree if tasks else self.empty_label)
        self._show_current(found, now)

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
            if not self._tasks.list(EVERY_STATUS):
                return EMPTY_TASKS
        except ReverieError:
            return EMPTY_TASKS
        return _EMPTY_FILTER[self.filter_box.currentData()]

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
        if self.detail.dirty() and shown is not None and target != ("task", shown.id):
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
        if isinstance(data, Task):
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
        if task is None:
            return
        now = self._tasks.now()
        words = " ".join(detail.schedule_edit.text().split())
        if words == (schedule_words(task) or "") or task.status not in OPEN:
            upcoming = next_run_words(task, now, self._tasks.zone)
            detail.show_hint("" if upcoming == NONE else f"Next run: {upcoming}")
            return
        reading = read_schedule(words, now, self._tasks.zone)
        if reading.problem:
            detail.show_hint(reading.problem, problem=True)
        elif reading.next_run is None:
            detail.show_hint("No schedule: it waits until you or Reverie act on it.")
        else:
            upcoming = when_words(reading.next_run.timestamp(), now, self._tasks.zone)
            detail.show_hint(f"Next run: {upcoming}")

    # -- editing -------------------------------------------------------------
    def save(self) -> bool:
        """Save the typed text, priority and schedule; did it work (or was
        there nothing to save)?  What cannot be saved is said under the
        fields, and nothing is changed."""
        detail, task = self.detail, self.detail.task
        if task is None or not detail.dirty():
            return True
        text, priority, words = detail.fields()
        base_text, base_priority, base_words = detail.base()
        schedule: Schedule | Keep | None = KEEP
        if " ".join(words.split()) != base_words:
            try:
                schedule = parse_schedule(words)
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
        self._changed(f"Saved task #{saved.id}.")
        return True

    def revert(self) -> None:
        """Put the task's own text, priority and schedule back in the fields."""
        self.detail.reset_fields()
        self._update_state()

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
            super().closeEvent(event)  # hidden, not destroyed: the app opens it again
        else:
            event.ignore()  # asked first; it closes once answered so

    def shutdown(self) -> None:
        """Close any question still open; call before the app quits."""
        self.unsaved.dismiss()
