"""The Work window: every background worker, with what it was asked, its
mode, its state, the workers it waits on, the time it used, and in a pane
beside the list what it said (its transcript); Cancel and Retry.

The list is a tree: the workers a worker spawned sit under it, and so do
the hops that continued it after it ran out of time; the workers each waits
on are named in their own column.  Cancelling a worker fails those waiting
on it ("cancelled"); Retry starts a failed or cancelled one again with the
same parameters.  A cancel runs on a thread of its own: the workers waiting
on a long chain fail and are reported one by one (a thousand took twenty
seconds), and the window says "Cancelling…" meanwhile instead of freezing.
Everything else here is a quick read or write of the database;
the app calls ``refresh`` whenever a worker changes state (the list built
again, what the user folded kept folded and the list where they scrolled
it), and ``show_steps`` when one only took a step: its time and its
transcript grew, nothing else changed, so the list is not built again (with
a thousand workers that held the window half a second at every step).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.base.errors import ReverieError
from desktop.core.db.workers import Worker
from desktop.core.workers.service import Workers
from desktop.ui.widgets.app_window import AppWindow, ListOrEmpty
from desktop.ui.widgets.bidi import stored_order
from desktop.ui.widgets.labels import named, plain_tip
from desktop.ui.widgets.worker import TaskQueue
from desktop.ui.workers.views import (
    EMPTY_WORK,
    MODE_WORDS,
    STATE_WORDS,
    Node,
    dependency_words,
    duration,
    facts,
    listed_state,
    state_words,
    title,
    transcript_text,
    tree,
)

COLUMNS = ("Worker", "State", "Mode", "Time", "Waits on")
ID_ROLE = Qt.ItemDataRole.UserRole
LIST_MIN_WIDTH = 300
TRANSCRIPT_MIN_HEIGHT = 80
ABOUT_MIN_HEIGHT = 90
SIDE_BY_SIDE_WIDTH = 820
"""Narrower than this, the detail goes under the list."""


class WorkWindow(AppWindow):
    """The "Work — Reverie" window.

    Signals:
        cancel_ended(): a cancel asked here is done (or failed, said); the
            list shows it.
    """

    cancel_ended = Signal()

    def __init__(self, workers: Workers, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("work-view")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.setWindowTitle("Work — Reverie")
        self.resize(1000, 700)
        self._workers = workers
        self._laid_out = False
        self._cancels = TaskQueue("work-window-cancel", self)
        self._cancelling: set[int] = set()
        """The workers whose cancel is under way (their chains' heads)."""
        self._build()
        self.refresh()

    # -- construction --------------------------------------------------------
    def _build(self) -> None:
        self.build_status_lines("work")
        self.count_label = named(QLabel(), "work-count")
        self._build_list()
        self._build_detail()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.listing)
        self.splitter.addWidget(self.detail)
        layout = QVBoxLayout(self)
        layout.addWidget(self.count_label)
        layout.addWidget(self.notice)
        layout.addWidget(self.problem)
        layout.addWidget(self.splitter, 1)
        QShortcut(QKeySequence(Qt.Key.Key_Delete), self.list, self.cancel_current)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Refresh), self, self.refresh)
        for closing in (QKeySequence.StandardKey.Close, Qt.Key.Key_Escape):  # as every window
            QShortcut(QKeySequence(closing), self, self.close)

    def _build_list(self) -> None:
        """The tree of workers, or a sentence saying how work gets here."""
        self.list = named(QTreeWidget(), "work-list", "Background workers")
        self.list.setColumnCount(len(COLUMNS))
        self.list.setHeaderLabels(COLUMNS)
        self.list.setMinimumWidth(LIST_MIN_WIDTH)
        self.list.setUniformRowHeights(True)
        self.list.setAllColumnsShowFocus(True)
        header = self.list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.list.currentItemChanged.connect(lambda *_: self._show_current())
        self.listing = ListOrEmpty(self.list, EMPTY_WORK, "work-empty")

    def _build_detail(self) -> None:
        """The selected worker: its facts (scrolled), transcript, Retry and Cancel."""
        self.heading = named(QLabel(), "work-heading", "Objective")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.facts = QFormLayout()
        self.facts.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        facts_box = named(QWidget(), "work-facts", "Worker details")
        facts_box.setLayout(self.facts)
        self.transcript = named(QPlainTextEdit(), "work-transcript", "Worker transcript")
        self.transcript.setReadOnly(True)
        self.transcript.setTabChangesFocus(True)
        self.transcript.setMinimumHeight(TRANSCRIPT_MIN_HEIGHT)
        transcript_label = QLabel("&Transcript")
        transcript_label.setBuddy(self.transcript)
        self.cancel_button = named(QPushButton("&Cancel worker"), "work-cancel", "Cancel worker")
        self.cancel_button.setToolTip("Stop it; the workers waiting on it fail (Delete)")
        self.retry_button = named(QPushButton("&Retry"), "work-retry", "Retry worker")
        self.retry_button.setToolTip("Run a failed or cancelled worker again, as it was asked")
        self.cancel_button.clicked.connect(self.cancel_current)
        self.retry_button.clicked.connect(self.retry_current)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.retry_button)
        buttons.addWidget(self.cancel_button)

        about = named(QWidget(), "work-about-body")
        about_layout = QVBoxLayout(about)
        about_layout.addWidget(self.heading)
        about_layout.addWidget(facts_box)
        about_layout.addStretch(1)
        self.about = named(QScrollArea(), "work-about", "About the selected worker")
        self.about.setWidget(about)
        self.about.setWidgetResizable(True)
        self.about.setMinimumHeight(ABOUT_MIN_HEIGHT)
        self.detail = named(QWidget(), "work-detail", "Selected worker")
        detail = QVBoxLayout(self.detail)
        detail.setContentsMargins(0, 0, 0, 0)
        detail.addWidget(self.about, 1)
        detail.addWidget(transcript_label)
        detail.addWidget(self.transcript, 1)
        detail.addLayout(buttons)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # Narrow, the list goes above the detail, so all its columns fit.
        wide = event.size().width() >= SIDE_BY_SIDE_WIDTH
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if self.splitter.orientation() != orientation or not self._laid_out:
            self._laid_out = True
            self.splitter.setOrientation(orientation)
            length = event.size().width() if wide else event.size().height()
            share = 9 if wide else 5  # fifteenths: beside, the list's 3/5; above, 1/3
            self.splitter.setSizes([length * share // 15, length * (15 - share) // 15])

    # -- reading -------------------------------------------------------------
    def refresh(self) -> None:
        """Read the workers again, keeping the one selected, those the user
        folded and where the list was scrolled."""
        chosen = self.current_id()
        try:
            workers = self._workers.list()
            waits_on = self._workers.waits_on()
        except ReverieError as error:
            self.show_problem(f"The background workers could not be read: {error}")
            return
        folded = {
            item.data(0, ID_ROLE)
            for item in self._items()
            if item.childCount() and not item.isExpanded()
        }
        bar = self.list.verticalScrollBar()
        place = bar.value()
        self.list.blockSignals(True)
        self.list.clear()
        for node in tree(workers):
            self.list.addTopLevelItem(self._item(node, waits_on))
        for item in self._items():
            item.setExpanded(item.data(0, ID_ROLE) not in folded)
        self.list.blockSignals(False)
        self.listing.setCurrentWidget(self.listing.items if workers else self.listing.empty_label)
        heads = [w for w in workers if w.continuation_of is None]  # a chain is one worker
        active = sum(not w.final for w in heads)
        self.count_label.setText(f"{len(heads)} workers, {active} not ended" if heads else "")
        self.select(chosen)
        if chosen is not None:  # not a first showing: the user's place, not the selection's
            bar.setValue(place)

    def show_steps(self) -> None:
        """A running worker took a step: its time, and the transcript shown."""
        try:
            for item in self._items():
                if item.text(1) == STATE_WORDS["running"]:
                    worker = self._workers.get(int(item.data(0, ID_ROLE)))
                    if worker is not None:
                        item.setText(3, duration(worker.time_used))
            self._show_current()
        except ReverieError as error:
            self.show_problem(f"The background workers could not be read: {error}")

    def _item(self, node: Node, dependencies: dict[int, list[int]]) -> QTreeWidgetItem:
        worker = node.worker
        waits_on = dependency_words(dependencies.get(worker.id, []))
        item = QTreeWidgetItem(
            [
                stored_order(title(worker)),
                listed_state(worker),
                MODE_WORDS.get(worker.mode, worker.mode),
                duration(worker.time_used),
                waits_on,
            ]
        )
        item.setData(0, ID_ROLE, worker.id)
        item.setToolTip(1, state_words(worker))
        item.setToolTip(0, plain_tip(worker.objective))
        if waits_on:
            item.setToolTip(4, f"Starts when {waits_on} completed")
        for child in node.children:
            item.addChild(self._item(child, dependencies))
        return item

    def _items(self) -> list[QTreeWidgetItem]:
        """Every row, top to bottom."""
        found: list[QTreeWidgetItem] = []

        def walk(item: QTreeWidgetItem | None) -> None:
            if item is None:
                return
            found.append(item)
            for n in range(item.childCount()):
                walk(item.child(n))

        for n in range(self.list.topLevelItemCount()):
            walk(self.list.topLevelItem(n))
        return found

    def current_id(self) -> int | None:
        item = self.list.currentItem()
        return None if item is None else int(item.data(0, ID_ROLE))

    def select(self, worker_id: int | None) -> None:
        """Show *worker_id* (the first worker if None or gone)."""
        items = self._items()
        chosen = next((i for i in items if i.data(0, ID_ROLE) == worker_id), None)
        chosen = chosen or (items[0] if items else None)
        if chosen is not None:
            self.list.setCurrentItem(chosen)
        self._show_current()

    def _show_current(self) -> None:
        worker_id = self.current_id()
        worker = None if worker_id is None else self._workers.get(worker_id)
        self.detail.setEnabled(worker is not None)
        while self.facts.rowCount():
            self.facts.removeRow(0)
        if worker is None:
            self.heading.setText("")
            self.transcript.setPlainText("")
            self.cancel_button.setEnabled(False)
            self.retry_button.setEnabled(False)
            return
        self.heading.setText(stored_order(f"#{worker.id} {worker.objective}"))
        for what, value in facts(worker, self._workers.dependencies(worker.head)):
            label = QLabel(stored_order(value))
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setAccessibleName(what)
            self.facts.addRow(f"{what}:", label)
        self._show_transcript(transcript_text(self._workers.transcript(worker.id)))
        self.cancel_button.setEnabled(not worker.final and worker.head not in self._cancelling)
        self.retry_button.setEnabled(worker.state in ("failed", "cancelled"))

    def _show_transcript(self, text: str) -> None:
        """*text* in the transcript pane; a transcript growing while it is
        read keeps its place, or stays at its end if it was there.  What the
        model wrote shows in its stored order."""
        text = stored_order(text)
        if text == self.transcript.toPlainText():
            return
        bar = self.transcript.verticalScrollBar()
        grew = text.startswith(self.transcript.toPlainText()) and bool(
            self.transcript.toPlainText()
        )
        at_end, place = bar.value() >= bar.maximum(), bar.value()
        self.transcript.setPlainText(text)
        if grew:
            bar.setValue(bar.maximum() if at_end else place)

    # -- control -------------------------------------------------------------
    def cancel_current(self) -> None:
        """Start cancelling the selected worker, off this thread; those
        waiting on it fail.  ``cancel_ended`` says when it is done."""
        worker = self._current()
        if worker is None or worker.final or worker.head in self._cancelling:
            return
        self._cancelling.add(worker.head)
        self.cancel_button.setEnabled(False)
        self.show_notice(f"Cancelling #{worker.id}; the workers waiting on it fail…")
        self._cancels.run(
            lambda: self._workers.cancel(worker.id),
            lambda cancelled: self._on_cancelled(worker, cancelled),
            lambda why: self._on_cancel_failed(worker, why),
        )

    @property
    def cancelling(self) -> bool:
        """Whether a cancel asked here is still under way."""
        return self._cancels.busy

    def _on_cancelled(self, worker: Worker, cancelled: object) -> None:
        self._cancelling.discard(worker.head)
        self.refresh()
        ids = cancelled if isinstance(cancelled, list) else []
        shown = ", ".join(f"#{i}" for i in ids) or f"#{worker.id}"
        self.show_notice(f"Cancelled {shown}; the workers waiting on it failed.")
        self.cancel_ended.emit()

    def _on_cancel_failed(self, worker: Worker, why: str) -> None:
        self._cancelling.discard(worker.head)
        self.refresh()
        self.show_problem(f"Worker #{worker.id} could not be cancelled: {why}")
        self.cancel_ended.emit()

    def retry_current(self) -> None:
        """Run the selected failed or cancelled worker again."""
        worker = self._current()
        if worker is None:
            return
        try:
            new_id = self._workers.retry(worker.id)
        except ReverieError as error:
            self.show_problem(str(error))
            return
        self.refresh()
        self.select(new_id)
        self.show_notice(f"Worker #{worker.id} is tried again as #{new_id}.")

    def _current(self) -> Worker | None:
        worker_id = self.current_id()
        return None if worker_id is None else self._workers.get(worker_id)

    def shutdown(self) -> None:
        """Close, after the cancel under way; for the app's quit, like its other windows."""
        self._cancels.stop()
        self.close()
