"""The dream report: what each dream did to Reverie's memories, and why.

Dreams are listed newest first with their status; the selected one shows
what each pass did (why a pass changed nothing, with the model's raw answer
when it was unusable) and every change it made, before and after.  Risky
changes wait under "Waiting for approval" until the user approves or rejects
them; an applied change, or a whole dream, can be undone.

Approving a merge embeds its text, which may wait on the inference broker
behind a chat reply, so approving, rejecting and undoing run in order on the
report's own worker thread; reading runs, changes and the log are quick reads
done in place.  What the core refuses (a memory changed since) is said in the
window, and nothing is changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from PySide6.QtCore import (
    QEvent,
    QKeyCombination,
    QModelIndex,
    QPersistentModelIndex,
    QRectF,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QKeySequence,
    QPainter,
    QShortcut,
)
from PySide6.QtWidgets import (
    QLabel,
    QListWidgetItem,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.base.errors import ReverieError
from desktop.core.db import DreamChange, DreamRun, DreamStore
from desktop.core.dreaming.changes import ChangeBook
from desktop.core.dreaming.proposals import ChangeRefused
from desktop.core.memory.embedding import Labelled
from desktop.core.memory.service import MemoryService
from desktop.ui.dreaming.views import (
    RUN_ROLE,
    RUN_STATUS,
    STATUS_COLOURS,
    ChangeView,
    ReportDetail,
    RunLine,
    line_text,
    run_facts,
    run_started,
)
from desktop.ui.widgets.app_window import AppWindow, ListOrEmpty, card_list
from desktop.ui.widgets.bidi import stored_order
from desktop.ui.widgets.cards import CardDelegate, draw_chip, draw_line, small_font
from desktop.ui.widgets.labels import count, named, plain_tip, when
from desktop.ui.widgets.theme import active_palette
from desktop.ui.widgets.worker import TaskQueue
from models.broker import Priority

RUNS_SHOWN = 50
LIST_MIN_WIDTH = 240
"""A run's date beside its status chip, and its line beside "N to approve"."""
DETAIL_MIN_WIDTH = 380
"""A change's header beside its status, and its Undo, Reject and Approve buttons."""
MIN_HEIGHT = 440
WAITING = 0
"""The runs list's key for the "Waiting for approval" entry (run ids start at 1)."""
EMPTY_REPORT = (
    "No dreams yet. While you are away, Reverie tidies its memories: it merges "
    "duplicates, lets unused memories fade and archives what went stale. Each dream "
    "is reported here, and every change it makes can be undone."
)


def _sentence(error: ReverieError) -> str:
    return str(error).rstrip(".")


class RunDelegate(CardDelegate):
    """Draws a run as its date and status over a grey line of what it did,
    with the number of its changes waiting for approval highlighted."""

    role = RUN_ROLE
    kind = RunLine

    def draw_card(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
        item: RunLine,
        box: QRectF,
    ) -> None:
        line = item
        font, small = option.font, small_font(option.font)
        title_height, small_height = QFontMetrics(font).height(), QFontMetrics(small).height()
        title_box = QRectF(box.left(), box.top(), box.width(), title_height)
        facts_box = QRectF(box.left(), title_box.bottom() + 2, box.width(), small_height)
        colours = active_palette().colours()
        if line.run is None:
            title, facts = "Waiting for approval", "risky changes dreaming left for you"
        else:
            title, facts = when(run_started(line.run)), run_facts(line.run)
            status = line.run.status
            chip = RUN_STATUS.get(status, status)
            fg, bg = STATUS_COLOURS.get(status, STATUS_COLOURS["paused"])
            width = draw_chip(painter, small, title_box, chip, colours[fg], colours[bg])
            title_box.setRight(title_box.right() - width - 6)
        if line.waiting:
            badge = f"{line.waiting} waiting" if line.run is None else f"{line.waiting} to approve"
            fg, bg = colours["warning_text"], colours["warning_strong_bg"]
            width = draw_chip(painter, small, facts_box, badge, fg, bg)
            facts_box.setRight(facts_box.right() - width - 6)
        bold = QFont(font)
        bold.setBold(line.run is None)
        idle = line.run is None and not line.waiting
        title_colour = QColor(colours["text_faint" if idle else "text"])
        draw_line(painter, bold, title_colour, title_box, title)
        draw_line(painter, small, QColor(colours["text_muted"]), facts_box, facts)


class DreamReportWindow(AppWindow):
    """The "Dreams — Reverie" window.

    Signals:
        memory_requested(int): show this memory (id), one a change touched.
        memories_changed(): an approval or an undo changed memories (an open
            memory browser may want to refresh).
    """

    memory_requested = Signal(int)
    memories_changed = Signal()

    def __init__(
        self,
        dreams: DreamStore,
        book: ChangeBook,
        memories: MemoryService,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("dream-report")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.setWindowTitle("Dreams — Reverie")
        self.resize(1040, 700)
        self._dreams = dreams
        self._book = book
        self._memories = memories
        self._pending: list[DreamChange] = []
        self._shown: int | None = None
        """The key of the run (or ``WAITING``) the detail pane shows."""
        self._focus_row: int | None = None
        """Where the change acted on was, to put the keyboard focus back there."""
        self.confirm_dialog: QMessageBox | None = None
        self._build()
        self._tasks = TaskQueue("dream-report", self)
        self.refresh()

    # -- construction --------------------------------------------------------
    def _build(self) -> None:
        self.build_status_lines("dream")
        splitter = QSplitter()
        splitter.addWidget(self._build_list())
        splitter.addWidget(self._build_detail())
        splitter.setChildrenCollapsible(False)  # never a sliver too thin to grab back
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([340, 700])
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(self.problem)
        layout.addWidget(splitter, 1)
        margins = layout.contentsMargins()
        self.setMinimumSize(
            LIST_MIN_WIDTH
            + DETAIL_MIN_WIDTH
            + splitter.handleWidth()
            + margins.left()
            + margins.right(),
            MIN_HEIGHT,
        )
        QShortcut(QKeySequence(QKeyCombination(Qt.Key.Key_Escape)), self, self.close)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Refresh), self, self.refresh)

    def _build_list(self) -> QWidget:
        self.runs = card_list("dream-runs", "Dreams", RunDelegate)
        self.runs.setMinimumWidth(LIST_MIN_WIDTH)
        self.runs.currentItemChanged.connect(lambda: self._show_selected())
        self.list_stack = ListOrEmpty(self.runs, EMPTY_REPORT, "dream-empty")
        self.empty_label = self.list_stack.empty_label
        self.count_label = named(QLabel(), "dream-count")
        pane = QWidget()
        layout = QVBoxLayout(pane)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list_stack, 1)
        layout.addWidget(self.count_label)
        return pane

    def _build_detail(self) -> QWidget:
        self.detail = ReportDetail()
        self.detail.memory_requested.connect(self.memory_requested)
        self.detail.undo_run_button.clicked.connect(self.ask_undo_run)
        self.detail_scroll = named(QScrollArea(), "dream-detail-scroll", "Dream report")
        self.detail_scroll.setWidgetResizable(True)
        self.detail_scroll.setMinimumWidth(DETAIL_MIN_WIDTH)
        self.detail_scroll.setWidget(self.detail)
        return self.detail_scroll

    # -- the list ------------------------------------------------------------
    def refresh(self) -> None:
        """Read the runs again (a dream finished, or something was decided)."""
        kept = self._selected_key()
        if kept == WAITING and not self.run_ids():
            kept = None  # nothing was there to choose from: open at the best place now
        try:
            runs = self._dreams.runs(RUNS_SHOWN)
            self._pending = self._dreams.pending()
        except ReverieError as error:
            self.show_problem(f"The dream report could not be read: {error}")
            return
        waiting = Counter(change.dream_run_id for change in self._pending)
        lines = [RunLine(None, len(self._pending))]
        lines += [RunLine(run, waiting[run.id]) for run in runs]
        self.runs.blockSignals(True)
        self.runs.clear()
        for line in lines:
            item = QListWidgetItem(stored_order(line_text(line)))
            item.setData(RUN_ROLE, line)
            if line.run is not None and line.run.error:
                item.setToolTip(plain_tip(line.run.error))
            self.runs.addItem(item)
        keys = [self._key(line) for line in lines]
        if kept is None or kept not in keys:
            kept = WAITING if self._pending or not runs else runs[0].id
        self.runs.setCurrentRow(keys.index(kept))
        self.runs.blockSignals(False)
        self.list_stack.setCurrentWidget(self.runs if runs else self.empty_label)
        self.count_label.setText(
            count(len(runs), "dream", "dreams")
            if len(runs) < RUNS_SHOWN
            else f"The newest {RUNS_SHOWN} dreams"
        )
        self._show_selected(same=kept == self._shown)

    @staticmethod
    def _key(line: RunLine) -> int:
        return WAITING if line.run is None else line.run.id

    def _selected_key(self) -> int | None:
        item = self.runs.currentItem()
        return None if item is None else self._key(item.data(RUN_ROLE))

    def run_ids(self) -> list[int]:
        """The ids of the runs listed, newest first."""
        lines = (self.runs.item(row).data(RUN_ROLE) for row in range(self.runs.count()))
        return [line.run.id for line in lines if line.run is not None]

    def select_run(self, run_id: int) -> None:
        """Show run *run_id* (``WAITING``: every change waiting for approval)."""
        if run_id not in (WAITING, *self.run_ids()):
            self.refresh()  # a dream that finished since the list was read
        for row in range(self.runs.count()):
            if self._key(self.runs.item(row).data(RUN_ROLE)) == run_id:
                self.runs.setCurrentRow(row)
                return
        self.show_problem(f"Dream #{run_id} is not in the report.")

    def _show_selected(self, *, same: bool = False) -> None:
        scrolled = self.detail_scroll.verticalScrollBar().value() if same else 0
        key = self._selected_key()
        self._shown = key
        try:
            if not self.run_ids():
                self.detail.show_message("No dreams yet.")
            elif key == WAITING:
                self.detail.show_waiting(self._pending, self._origins())
            elif key is not None:
                run = self._dreams.run(key)
                self.detail.show_run(run, self._dreams.changes(key), self._dreams.log_entries(key))
        except ReverieError as error:
            self.detail.show_message("")
            self.show_problem(f"This dream could not be read: {error}")
            return
        for view in self.detail.change_views:
            self._wire(view)
        if self.busy:
            self._enable_actions(False)
        layout = self.detail.layout()
        if layout is not None:
            layout.activate()  # the new views' size, so the old scroll position fits again
        self.detail_scroll.verticalScrollBar().setValue(scrolled)

    def _origins(self) -> dict[int, str]:
        """Each pending change's dream, by run id, as the waiting list names it."""
        origins = {}
        for run_id in {change.dream_run_id for change in self._pending}:
            origins[run_id] = f"From the dream of {when(run_started(self._dreams.run(run_id)))}"
        return origins

    def _wire(self, view: ChangeView) -> None:
        change_id = view.change.id
        view.approve_button.clicked.connect(lambda: self.approve(change_id))
        view.reject_button.clicked.connect(lambda: self.reject(change_id))
        view.undo_button.clicked.connect(lambda: self.undo_change(change_id))

    # -- deciding and undoing ------------------------------------------------
    def approve(self, change_id: int) -> None:
        """Apply a change waiting for approval (on the worker: it may embed a text)."""
        memories = self._memories

        def embed(texts: Sequence[str]) -> Labelled | None:
            return memories.embed_labelled(texts, Priority.USER)  # the user is waiting for it

        self._act(
            change_id,
            f"Approving change #{change_id}…",
            lambda: self._book.approve(change_id, embed),
            lambda _: f"Approved change #{change_id}: it is applied now.",
            lambda error: f"{_sentence(error)}.{self._set_aside(change_id)}",
        )

    def _set_aside(self, change_id: int) -> str:
        """What became of a change whose approval was refused (it may now be rejected)."""
        try:
            rejected = self._dreams.change(change_id).status == "rejected"
        except ReverieError:
            return ""
        return " It was set aside as rejected: your memories stay as they are." if rejected else ""

    def reject(self, change_id: int) -> None:
        """Leave the memories a pending change would touch as they are."""
        self._act(
            change_id,
            f"Rejecting change #{change_id}…",
            lambda: self._book.reject(change_id),
            lambda _: f"Rejected change #{change_id}: your memories stay as they were.",
            _sentence,
        )

    def undo_change(self, change_id: int) -> None:
        """Put the memories one applied change touched back as they were."""
        self._act(
            change_id,
            f"Undoing change #{change_id}…",
            lambda: self._book.revert(change_id),
            lambda _: f"Undid change #{change_id}: the memories are back as they were.",
            lambda error: f"{_sentence(error)}. Nothing was changed.",
        )

    def ask_undo_run(self) -> None:
        """Ask before undoing every applied change of the dream shown."""
        run = self.detail.run
        if run is None or self.busy:
            return
        changes = [view.change for view in self.detail.change_views]
        applied = sum(c.status == "applied" for c in changes)
        pending = sum(c.status == "pending" for c in changes)
        text = (
            f"Undo the {count(applied, 'change', 'changes')} this dream made? Memories it "
            "merged, replaced or archived come back as they were, memories it wrote go away "
            "and faded memories get their importance back."
        )
        if pending:
            text += f" The {count(pending, 'change', 'changes')} waiting for approval stay waiting."
        box = QMessageBox(QMessageBox.Icon.Question, "Undo this dream?", text, parent=self)
        box.setObjectName("dream-undo-confirm")
        undo = box.addButton(
            f"Undo {count(applied, 'change', 'changes')}", QMessageBox.ButtonRole.AcceptRole
        )
        keep = box.addButton("Keep them", QMessageBox.ButtonRole.RejectRole)
        undo.setAccessibleName("Undo every change of this dream")
        keep.setAccessibleName("Keep this dream's changes")
        box.setDefaultButton(keep)  # Enter must not undo by accident
        box.setEscapeButton(keep)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.finished.connect(lambda: self._on_confirmed(run, box.clickedButton() is undo))
        self.confirm_dialog = box
        box.open()

    def _on_confirmed(self, run: DreamRun, confirmed: bool) -> None:
        box, self.confirm_dialog = self.confirm_dialog, None
        if box is not None:
            box.deleteLater()
        if confirmed:
            self.undo_run(run.id)

    def undo_run(self, run_id: int) -> None:
        """Undo every applied change of run *run_id*, all or none (no question asked)."""

        def undone(result: object) -> str:
            n = count(int(result) if isinstance(result, int) else 0, "change", "changes")
            return f"Undid this dream: {n} taken back, the memories are as they were before it."

        def refused(error: ReverieError) -> str:
            return (
                f"Nothing was undone: {_sentence(error)}. A dream is undone whole or not at "
                "all; its other changes can still be undone one by one."
            )

        self._act(
            None, "Undoing this dream…", lambda: self._book.revert_run(run_id), undone, refused
        )

    def _act(
        self,
        change_id: int | None,
        doing: str,
        action: Callable[[], object],
        said: Callable[[object], str],
        refused: Callable[[ReverieError], str],
    ) -> None:
        """Run *action* on the worker; say what came of it, then read the report again."""
        if self.busy:
            return  # one decision at a time: the buttons are off meanwhile
        views = self.detail.change_views
        rows = [row for row, view in enumerate(views) if view.change.id == change_id]
        self._focus_row = rows[0] if rows else None
        self.show_notice(doing)

        def guarded() -> object:
            try:
                return action()
            except ChangeRefused as refusal:  # an answer for the user, not a failure
                return refusal

        self._tasks.run(
            guarded, lambda result: self._acted(result, said, refused), self._act_failed
        )
        self._enable_actions(False)

    def _acted(
        self,
        result: object,
        said: Callable[[object], str],
        refused: Callable[[ReverieError], str],
    ) -> None:
        self.refresh()
        if isinstance(result, ChangeRefused):
            self.show_problem(refused(result))
        else:
            self.show_notice(said(result))
            self.memories_changed.emit()
        self._restore_focus()

    def _act_failed(self, message: str) -> None:
        self.refresh()
        self.show_problem(f"That did not work: {message}")
        self._restore_focus()

    def _enable_actions(self, enabled: bool) -> None:
        for view in self.detail.change_views:
            for button in view.buttons:
                button.setEnabled(enabled)
        if not enabled:
            self.detail.undo_run_button.setEnabled(False)

    def _restore_focus(self) -> None:
        """The buttons acted with were rebuilt: keep the keyboard where the user was."""
        row, self._focus_row = self._focus_row, None
        focus = self.focusWidget()
        if focus is not None and focus.isVisible() and focus.isEnabled():
            return
        views = self.detail.change_views
        if row is not None and views:
            view = views[min(row, len(views) - 1)]
            buttons = [b for b in view.buttons if not b.isHidden() and b.isEnabled()]
            if buttons:
                buttons[-1].setFocus()
                return
        self.runs.setFocus()

    # -- the window ----------------------------------------------------------
    def show_waiting(self) -> None:
        """Bring the window up at the changes waiting for approval."""
        self.present()
        self.select_run(WAITING)

    def show_run(self, run_id: int | None = None) -> None:
        """Bring the window up at run *run_id*, or at the newest dream when
        None (the chat's "Dream finished" opens the report this way)."""
        self.present()
        if run_id is None:
            self.refresh()  # open already, it may not list the dream that just finished
            newest = self.run_ids()[:1]
            if not newest:
                return  # no dream yet: the window says what dreaming does
            run_id = newest[0]
        self.select_run(run_id)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._shown is not None:
            self._show_selected(same=True)  # before and after carry the old scheme's colours

    # -- the worker ----------------------------------------------------------
    @property
    def busy(self) -> bool:
        """Is a decision or an undo still running on the worker?"""
        return self._tasks.busy

    def shutdown(self) -> None:
        """Stop the worker thread, after the task in flight; call before the app quits."""
        if self.confirm_dialog is not None:
            self.confirm_dialog.reject()
        self._tasks.stop()
