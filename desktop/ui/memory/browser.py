"""The memory browser: everything Reverie remembers, to search, correct, pin,
archive, delete and restore, with where each memory came from and what
happened to it since.

Whatever embeds text (a search by words and meaning, "forget everything
about…", an edit) may wait on the inference broker behind a chat reply, so it
runs on the browser's own worker thread; filtering, and reading one memory's
history and sources, are quick reads done in place.  Archiving and deleting
are soft: the Archived and Deleted filters show such memories, with Restore,
and a deleted memory says until when.  Given an ``Eraser``, "Delete now…"
erases memories for good at once (asked first; on the worker, as it
rewrites the database file).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Literal

from PySide6.QtCore import QItemSelectionModel, QKeyCombination, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.core.base.errors import ReverieError
from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, EditConflict, Memory, MemoryQuery, MemorySort
from desktop.core.db import MemoryStatus as Status
from desktop.core.db.memory_rows import MEMORY_STATUSES
from desktop.core.dreaming.erasure import Eraser
from desktop.core.memory.export import export_jsonl, export_markdown
from desktop.core.memory.gate import MemoryRefused
from desktop.core.memory.service import MemoryService, Remembered
from desktop.ui.memory.filters import MemoryFilters
from desktop.ui.memory.views import (
    MEMORY_ROLE,
    ForgetPreview,
    MemoryDelegate,
    MemoryDetail,
    first_line,
    meta_line,
    sorted_memories,
)
from desktop.ui.widgets.app_window import AppWindow, ListOrEmpty, card_list
from desktop.ui.widgets.bidi import stored_order
from desktop.ui.widgets.direction_guard import guard_dialog
from desktop.ui.widgets.erase_outcome import EraseNow
from desktop.ui.widgets.labels import count, named, plain_tip
from desktop.ui.widgets.unsaved import UnsavedGuard
from desktop.ui.widgets.worker import TaskQueue

ExportFormat = Literal["jsonl", "markdown"]

EMPTY_STORE = "No memories yet. Tell Reverie something about yourself, or use /remember."
PAGE = 500
"""Memories listed at once; Show more lists the next as many."""
BANNER_LINES = 3
"""The most lines a notice or problem shows; its tooltip has all of it."""
LIST_MIN_WIDTH = 240
# The statuses each change applies to: restoring brings back what was put away.
_CHANGES_FROM: dict[Status, tuple[Status, ...]] = {
    "archived": ("active",),
    "deleted": ("active", "archived"),
    "active": ("archived", "deleted"),
}
_NO_UPDATE = QItemSelectionModel.SelectionFlag.NoUpdate


class MemoryBrowser(AppWindow):
    """The "Memories — Reverie" window.

    Signals:
        open_conversation_requested(int, int): show this conversation (id) at
            this message (id), one a memory was learned from.
    """

    open_conversation_requested = Signal(int, int)

    def __init__(
        self,
        memories: MemoryService,
        conversations: ConversationStore,
        parent: QWidget | None = None,
        *,
        page: int = PAGE,
        eraser: Eraser | None = None,
        own: AppPaths | None = None,
    ) -> None:
        """*own*: the app's folders, whose files an export never replaces."""
        super().__init__(parent)
        self.setObjectName("memory-browser")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.setWindowTitle("Memories — Reverie")
        self.resize(1040, 700)
        self._memories = memories
        self._conversations = conversations
        self._page = page
        self._eraser = eraser
        self._own = own
        self._listing = page  # how many the list shows now: pages of it
        self._generation = 0  # the newest list request; answers to older ones are dropped
        self._searching = False
        self._search_again = False
        self._saving = False
        self.forget_preview: ForgetPreview | None = None
        self.topic_dialog: QInputDialog | None = None
        self._build()
        self.setMinimumSize(self._least_size())
        self._tasks = TaskQueue("memory-browser", self)
        self._erase_now = EraseNow(self, self._tasks, self.refresh)
        self.unsaved = UnsavedGuard(
            self,
            dirty=self._edit_unsaved,
            what=lambda: f"memory #{self.detail.memory.id}" if self.detail.memory else "",
            save=self.save_edit,
            discard=self.revert_edit,
        )
        self.refresh()

    # -- construction --------------------------------------------------------
    def _build(self) -> None:
        self.forget_button = named(
            QPushButton("Forget a topic…"), "memory-forget", "Forget the memories about a topic"
        )
        self.export_button = named(QPushButton("Export…"), "memory-export", "Export all memories")
        export_menu = QMenu(self.export_button)
        export_menu.addAction("As JSON Lines…", lambda: self._choose_export("jsonl"))
        export_menu.addAction("As Markdown…", lambda: self._choose_export("markdown"))
        self.export_button.setMenu(export_menu)
        self.filters = MemoryFilters([self.forget_button, self.export_button])
        self.build_status_lines("memory")
        for label in (self.notice, self.problem):
            # Under everything, and of bounded height: saying something never
            # moves the form, nor (at the least size) pushes it out of the window.
            label.setMaximumHeight(_banner_height(label, BANNER_LINES))
        self.splitter = QSplitter()
        self.splitter.setChildrenCollapsible(False)  # no pane shrinks past its buttons
        self.splitter.addWidget(self._build_list())
        self.splitter.addWidget(self._build_detail())
        self.splitter.setStretchFactor(0, 1)  # both panes share a resize, the detail more
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([440, 600])
        layout = QVBoxLayout(self)
        layout.addWidget(self.filters)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.notice)
        layout.addWidget(self.problem)
        self._connect()
        self._shortcuts()

    def _least_size(self) -> QSize:
        """The least size at which every control fits with a banner of
        ``BANNER_LINES`` lines: the layout's, with one memory's form shown."""
        layout = self.layout()
        assert layout is not None
        least = layout.totalMinimumSize()
        banner = max(label.maximumHeight() for label in (self.notice, self.problem))
        return QSize(least.width(), least.height() + layout.spacing() + banner)

    def _build_list(self) -> QWidget:
        self.items = card_list("memory-list", "Memories", MemoryDelegate)
        self.items.setSelectionMode(QListWidget.SelectionMode.ExtendedSelection)
        self.items.setMinimumWidth(LIST_MIN_WIDTH)
        self.list_stack = ListOrEmpty(self.items, EMPTY_STORE, "memory-empty")
        self.empty_label = self.list_stack.empty_label
        self.count_label = named(QLabel(), "memory-count")
        self.more_button = named(
            QPushButton(f"Show {self._page:,} more"), "memory-more", "Show more memories"
        )
        self.more_button.hide()
        footer = QHBoxLayout()
        footer.addWidget(self.count_label, 1)
        footer.addWidget(self.more_button)
        pane = QWidget()
        layout = QVBoxLayout(pane)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list_stack, 1)
        layout.addLayout(footer)
        return pane

    def _build_detail(self) -> QWidget:
        self.detail = MemoryDetail(self._memories.store, self._conversations)
        return self.detail

    def _connect(self) -> None:
        self.filters.changed.connect(self._refilter)
        self.more_button.clicked.connect(self.show_more)
        self.items.itemSelectionChanged.connect(self._on_selection_changed)
        self.forget_button.clicked.connect(self.ask_forget_topic)
        detail = self.detail
        detail.open_conversation_requested.connect(self.open_conversation_requested)
        detail.pin_button.clicked.connect(self.pin_selected)
        detail.archive_button.clicked.connect(lambda: self.set_selected_status("archived"))
        detail.delete_button.clicked.connect(self.delete_selected)
        detail.restore_button.clicked.connect(lambda: self.set_selected_status("active"))
        detail.erase_button.clicked.connect(self.erase_selected)
        detail.editor.textChanged.connect(self._update_edit_buttons)
        detail.save_button.clicked.connect(self.save_edit)
        detail.revert_button.clicked.connect(self.revert_edit)

    def _shortcuts(self) -> None:
        QShortcut(QKeySequence(QKeySequence.StandardKey.Find), self, self._focus_search)
        QShortcut(QKeySequence(QKeyCombination(Qt.Key.Key_Escape)), self, self.close)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Save), self, self.save_edit)
        delete = QShortcut(QKeySequence(QKeyCombination(Qt.Key.Key_Delete)), self.items)
        delete.setContext(Qt.ShortcutContext.WidgetShortcut)  # not while typing elsewhere
        delete.activated.connect(self.delete_selected)
        erase = QShortcut(QKeySequence(Qt.Modifier.SHIFT | Qt.Key.Key_Delete), self.items)
        erase.setContext(Qt.ShortcutContext.WidgetShortcut)
        erase.activated.connect(self.erase_selected)

    def _focus_search(self) -> None:
        self.filters.search.setFocus()
        self.filters.search.selectAll()

    # -- the list ------------------------------------------------------------
    def _refilter(self) -> None:
        self._listing = self._page  # other filters: their first page
        self.refresh()

    def show_more(self) -> None:
        self._listing += self._page
        self.refresh()

    def refresh(self) -> None:
        """Refill the list from the filters: at once, or on the worker when searching."""
        self.filters.settle()
        self._guarded(lambda: self.filters.set_categories(self._memories.store.categories()))
        # One more than is shown tells whether there are more.
        query = replace(self.filters.query(), limit=self._listing + 1)
        self._generation += 1
        if not query.text:
            self._guarded(lambda: self._show_list(self._memories.browse(query)))
            return
        if self._searching:
            self._search_again = True  # one search at a time; the newest text runs next
            return
        self._searching = True
        self.count_label.setText("Searching…")
        generation, memories = self._generation, self._memories
        self._tasks.run(
            lambda: memories.browse(query),
            lambda found: self._on_searched(generation, query.sort, found),
            self._on_search_failed,
        )

    def _on_searched(self, generation: int, sort: MemorySort, found: object) -> None:
        self._searching = False
        if self._search_again:
            self._search_again = False
            self.refresh()
        elif generation == self._generation and isinstance(found, list):
            self._show_list(sorted_memories(found, sort))

    def _on_search_failed(self, message: str) -> None:
        self._searching = self._search_again = False
        self.count_label.setText("")
        self.show_problem(f"The search failed: {message}")

    def _show_list(self, memories: Sequence[Memory]) -> None:
        more = len(memories) > self._listing
        memories = memories[: self._listing]
        selected = {m.id for m in self.selected_memories()}
        current = self.items.currentItem()
        current_id = None if current is None else current.data(MEMORY_ROLE).id
        self.items.blockSignals(True)
        self.items.clear()
        for memory in memories:
            item = QListWidgetItem(stored_order(first_line(memory.content)))
            item.setData(MEMORY_ROLE, memory)
            item.setToolTip(plain_tip(memory.content))
            item.setData(Qt.ItemDataRole.AccessibleDescriptionRole, meta_line(memory))
            self.items.addItem(item)
            if memory.id == current_id:
                self.items.setCurrentItem(item, _NO_UPDATE)
            item.setSelected(memory.id in selected)
        self.items.blockSignals(False)
        shown = count(len(memories))
        self.count_label.setText(f"The first {shown}; there are more" if more else shown)
        self.more_button.setVisible(more)
        if not memories:
            self.empty_label.setText(self._empty_text())
        self.list_stack.setCurrentWidget(self.items if memories else self.empty_label)
        self._on_selection_changed()

    def _empty_text(self) -> str:
        if not self._memories.store.browse(MemoryQuery(statuses=MEMORY_STATUSES, limit=1)):
            return EMPTY_STORE
        if text := self.filters.search.text().strip():
            return f"No memories match “{text}” with these filters."
        return "No memories match these filters."

    def memory_ids(self) -> list[int]:
        """The ids of the memories listed, top to bottom."""
        return [self.items.item(row).data(MEMORY_ROLE).id for row in range(self.items.count())]

    def selected_memories(self) -> list[Memory]:
        """The selected memories, top to bottom."""
        rows = sorted(self.items.row(item) for item in self.items.selectedItems())
        return [self.items.item(row).data(MEMORY_ROLE) for row in rows]

    def select(self, memory_ids: Sequence[int]) -> None:
        """Select the listed ones of *memory_ids*, the first current and in view."""
        self._mark_selected(memory_ids)
        self._on_selection_changed()

    def _mark_selected(self, memory_ids: Sequence[int]) -> None:
        wanted, first = set(memory_ids), None
        self.items.blockSignals(True)
        self.items.clearSelection()
        for row in range(self.items.count()):
            item = self.items.item(row)
            if item.data(MEMORY_ROLE).id in wanted:
                item.setSelected(True)
                first = first or item
        if first is not None:
            self.items.setCurrentItem(first, _NO_UPDATE)
            self.items.scrollToItem(first, QListWidget.ScrollHint.PositionAtCenter)
        self.items.blockSignals(False)

    def _on_selection_changed(self) -> None:
        if self._leaving_edit():
            return
        selected, detail = self.selected_memories(), self.detail
        statuses = {m.status for m in selected}
        detail.pin_button.setText(
            "Unpin" if selected and all(m.pinned for m in selected) else "Pin"
        )
        detail.archive_button.setEnabled(bool(statuses & set(_CHANGES_FROM["archived"])))
        detail.delete_button.setEnabled(bool(statuses & set(_CHANGES_FROM["deleted"])))
        detail.restore_button.setVisible(bool(statuses & set(_CHANGES_FROM["active"])))
        for button in (detail.pin_button, detail.archive_button, detail.delete_button):
            button.setVisible(bool(selected))
        detail.erase_button.setVisible(bool(selected) and self._eraser is not None)
        if len(selected) == 1:
            self._guarded(lambda: detail.show_memory(selected[0], self._erased_on(selected[0])))
        elif selected:
            detail.show_summary(
                f"{count(len(selected))} selected: Pin, Archive, Delete, Restore and "
                "Delete now act on all of them."
            )
        elif self.items.count():
            detail.show_summary("Select a memory to read, correct or remove it.")
        else:
            detail.show_summary("")
        self._update_edit_buttons()

    # -- editing -------------------------------------------------------------
    def _leaving_edit(self) -> bool:
        """Whether the selection leaves a memory with unsaved edits.  Chosen
        away from, it is chosen again until the user answers whether to save
        the edit; gone from the list (a search, a filter), it stays shown
        with the typing, as a skill being edited does."""
        edited, wanted = self.detail.memory, [m.id for m in self.selected_memories()]
        if edited is None or wanted == [edited.id] or not self._edit_unsaved():
            return False
        if not wanted and edited.id not in self.memory_ids():
            return True
        self._mark_selected([edited.id])  # (none, if it left the list)
        self.resolve_unsaved("leaving it", lambda: self.select(wanted))
        return True

    def _edit_unsaved(self) -> bool:
        """Typed and not saved (an edit being saved is no longer unsaved)."""
        return self.detail.edit_dirty() and not self._saving

    def resolve_unsaved(self, doing: str, then: Callable[[], object]) -> None:
        """Run *then* once no edit is unsaved: at once, or after asking."""
        self.unsaved.resolve(doing, then)

    def _update_edit_buttons(self) -> None:
        dirty = self.detail.edit_dirty()
        self.detail.save_button.setEnabled(dirty and not self._saving)
        self.detail.revert_button.setEnabled(dirty)

    def save_edit(self) -> bool:
        """Save the editor's text over the memory (re-embedded, on the worker);
        whether a save began."""
        detail = self.detail
        if detail.memory is None or not detail.edit_dirty() or self._saving:
            return False
        memory_id, text, base = detail.memory.id, detail.editor.toPlainText(), detail.edit_base
        self._saving = True
        self._update_edit_buttons()
        detail.edit_problem.hide()
        memories = self._memories

        def edit() -> Remembered | MemoryRefused | EditConflict:
            try:
                return memories.edit(memory_id, text, expected=base)
            except (MemoryRefused, EditConflict) as error:  # answers for the user, not failures
                return error

        self._tasks.run(
            edit, lambda result: self._on_saved(memory_id, result), self._on_save_failed
        )
        return True

    def _on_saved(self, memory_id: int, result: object) -> None:
        self._saving = False
        here = self.detail.memory is not None and self.detail.memory.id == memory_id
        if isinstance(result, Remembered):
            if here:
                self.detail.set_text(result.memory.content)
            self.show_notice(_saved(result))
            self.refresh()
            return
        if isinstance(result, EditConflict):
            if here:
                self.detail.edit_base = result.current_content  # saving again overwrites, knowingly
            reason = (
                "Not saved: this memory was changed elsewhere while you edited it. It now "
                f"reads: “{result.current_content}” Your text is still here: Save again to "
                "replace it with yours, or Revert to keep the new text."
            )
            self.refresh()  # the editor keeps the user's text: it differs from the new base
        else:
            reason = f"Not saved: {result}"
        self._edit_failed(reason if here else f"Memory #{memory_id} was not saved. {reason}")

    def _on_save_failed(self, message: str) -> None:
        self._saving = False
        self._edit_failed(f"Not saved: {message}")

    def _edit_failed(self, reason: str) -> None:
        if self.detail.memory is None:
            self.show_problem(reason)
        else:
            self.detail.show_edit_problem(reason)
        self._update_edit_buttons()

    def revert_edit(self) -> None:
        """Put the memory's text back in the editor (its newest text, after a conflict)."""
        shown = self.detail.memory
        memory = None if shown is None else self._memories.store.get(shown.id)
        if memory is not None:
            self.detail.set_text(memory.content)
        self._update_edit_buttons()

    # -- pin, archive, delete, restore ---------------------------------------
    def pin_selected(self) -> None:
        """Pin the selected memories, or unpin them if all are pinned."""
        selected = self.selected_memories()
        pin = not all(m.pinned for m in selected)
        ids = [m.id for m in selected]
        if ids and self._guarded(lambda: self._memories.set_pinned(ids, pin)):
            n = count(len(ids))
            self._changed(ids, f"Pinned {n}: always kept." if pin else f"Unpinned {n}.")

    def delete_selected(self) -> None:
        """Delete the selected memories, softly: the Deleted filter can restore them."""
        self.set_selected_status("deleted")

    def set_selected_status(self, status: Status) -> None:
        """Archive, delete or restore the selected memories that it applies to."""
        ids = [m.id for m in self.selected_memories() if m.status in _CHANGES_FROM[status]]
        if not ids or not self._guarded(lambda: self._memories.set_status(ids, status)):
            return
        n = count(len(ids))
        said = {
            "archived": f"Archived {n}. You can restore them from the Archived filter.",
            "deleted": f"Deleted {n}. You can restore them from the Deleted filter.",
        }
        self._changed(ids, said.get(status, f"Restored {n}."))

    def _erased_on(self, memory: Memory) -> float | None:
        """When a deleted *memory* is erased for good (None: not deleted, or no eraser)."""
        if self._eraser is None or memory.status != "deleted":
            return None
        return self._eraser.erased_on([memory.id]).get(memory.id)

    # -- erasing for good ------------------------------------------------------
    def erase_selected(self) -> None:
        """Ask, then erase the selected memories for good, whatever their status."""
        ids = [m.id for m in self.selected_memories()]
        if ids and self._eraser is not None:
            self._ask_to_erase(ids, count(len(ids)))

    def _ask_to_erase(self, ids: Sequence[int], what: str) -> None:
        eraser = self._eraser
        if eraser is not None:
            self._erase_now.ask(what, lambda: eraser.erase_memories(ids))

    @property
    def erase_confirm(self) -> QMessageBox | None:
        """The open "Delete now, for good?" question, if any."""
        return self._erase_now.question

    def erase(self, ids: Sequence[int]) -> None:
        """Erase memories *ids* for good now, on the worker (no question asked)."""
        eraser = self._eraser
        if eraser is not None:
            self._erase_now.run(count(len(ids)), lambda: eraser.erase_memories(ids))

    def _changed(self, ids: Sequence[int], said: str) -> None:
        self.show_notice(said)
        self.refresh()
        self.select(ids)

    # -- forgetting a topic ----------------------------------------------------
    def ask_forget_topic(self) -> None:
        """Ask what to forget; a preview to confirm follows."""
        dialog = QInputDialog(self)
        dialog.setObjectName("forget-topic")
        dialog.setWindowTitle("Forget a topic")
        dialog.setLabelText("Forget everything about:")
        dialog.setOkButtonText("Show what would be forgotten")
        dialog.textValueSelected.connect(self.preview_forget)
        guard_dialog(dialog)
        dialog.finished.connect(self._on_topic_finished)
        self.topic_dialog = dialog
        dialog.open()

    def _on_topic_finished(self) -> None:
        dialog, self.topic_dialog = self.topic_dialog, None
        if dialog is not None:
            dialog.deleteLater()

    def preview_forget(self, topic: str) -> None:
        """Find the memories about *topic* (on the worker), then ask which to forget."""
        topic = topic.strip()
        if not topic:
            return
        self.show_notice(f"Looking for memories about “{topic}”…")
        memories = self._memories
        self._tasks.run(
            lambda: memories.about(topic),
            lambda found: self._show_forget_preview(topic, found),
            lambda message: self.show_problem(f"Nothing was forgotten: {message}"),
        )

    def _show_forget_preview(self, topic: str, found: object) -> None:
        self.notice.hide()
        preview = ForgetPreview(
            topic,
            found if isinstance(found, list) else [],
            self,
            can_erase=self._eraser is not None,
        )
        preview.setWindowModality(Qt.WindowModality.WindowModal)
        preview.finished.connect(self._on_preview_finished)
        self.forget_preview = preview
        preview.open()

    def _on_preview_finished(self, result: int) -> None:
        preview, self.forget_preview = self.forget_preview, None
        if preview is None:
            return
        preview.deleteLater()
        ids = preview.checked_ids()
        if result != QDialog.DialogCode.Accepted or not ids:
            return
        if preview.erase_now:
            self._ask_to_erase(ids, f"{count(len(ids))} about “{preview.topic}”")
            return
        if self._guarded(lambda: self._memories.set_status(ids, "deleted")):
            self.show_notice(
                f"Forgot {count(len(ids))} about “{preview.topic}”. "
                "You can restore them from the Deleted filter."
            )
            self.refresh()

    # -- export ----------------------------------------------------------------
    def _choose_export(self, kind: ExportFormat) -> None:
        suffix, label = (".jsonl", "JSON Lines") if kind == "jsonl" else (".md", "Markdown")
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export all memories",
            str(Path.home() / f"reverie-memories{suffix}"),
            f"{label} (*{suffix})",
        )
        if path:
            self.export_memories(Path(path), kind)

    def export_memories(self, path: Path, kind: ExportFormat) -> bool:
        """Write every memory (all statuses, with provenance) to *path*; did it work?"""
        export = export_jsonl if kind == "jsonl" else export_markdown
        written: list[int] = []
        if self._guarded(
            lambda: written.append(export(self._memories, self._conversations, path, self._own))
        ):
            self.show_notice(f"Exported {count(written[0])} to {path}.")
            return True
        return False

    # -- the window ----------------------------------------------------------
    def show_memory(self, memory_id: int) -> None:
        """Bring the window up with memory *memory_id* selected and in view,
        changing the filters if they hide it."""
        self.present()
        try:
            memory = self._memories.store.get(memory_id)
        except ReverieError as error:
            self.show_problem(f"That did not work: {error}")
            return
        if memory is None:
            self.show_problem(f"Memory #{memory_id} is no longer kept.")
            return
        if memory_id not in self.memory_ids() or self.filters.search.text():
            self.filters.show_everything_with(memory.status)
            self._refilter()
        if memory_id not in self.memory_ids() and self.more_button.isVisible():
            self._list_through(memory_id)
        self.select([memory_id])

    def _list_through(self, memory_id: int) -> None:
        """List as many pages as reach *memory_id*, further down than those
        shown: its place found in one read, the list refilled once."""
        everything = self._memories.browse(replace(self.filters.query(), limit=-1))  # no limit
        place = next((i for i, m in enumerate(everything) if m.id == memory_id), None)
        if place is not None:
            self._listing = (place // self._page + 1) * self._page
            self.refresh()

    def _guarded(self, action: Callable[[], object]) -> bool:
        """Run *action*; a problem the user can act on (a full disk…) goes to the banner."""
        try:
            action()
        except ReverieError as error:
            self.show_problem(f"That did not work: {error}")
            return False
        return True

    def closeEvent(self, event: QCloseEvent) -> None:
        self.filters.settle()
        super().closeEvent(event)  # hidden, not destroyed: the app opens it again

    def show_notice(self, text: str) -> None:
        super().show_notice(text)
        self.notice.setToolTip(plain_tip(text))  # all of it, should it pass the banner's lines

    def show_problem(self, text: str) -> None:
        super().show_problem(text)
        self.problem.setToolTip(plain_tip(text))

    # -- the worker ----------------------------------------------------------
    @property
    def busy(self) -> bool:
        """Is work (a search, a preview, an edit) still running on the worker?"""
        return self._tasks.busy

    def shutdown(self) -> None:
        """Close any question still open, and stop the worker thread after
        the task in flight; call before the app quits."""
        self.unsaved.dismiss()
        self.filters.settle()
        self._tasks.stop()


def _saved(result: Remembered) -> str:
    """What the banner says of a saved edit: not the text again, the editor shows it."""
    return " ".join(filter(None, [f"Saved (#{result.memory.id}).", result.redaction_note()]))


def _banner_height(label: QLabel, lines: int) -> int:
    """The height of *label* showing *lines* lines, with the style sheet's
    padding and border: measured, as the label lays out text."""
    label.ensurePolished()
    text = label.text()
    label.setText("\n".join(["M"] * lines))
    height = label.sizeHint().height()
    label.setText(text)
    return height
