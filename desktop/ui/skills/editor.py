"""The skill editor: Reverie's skills (Markdown files in the skills folder)
to search, read, write, rename, delete and restore, with how often each was
used, and the drafts dreaming proposes, to accept, edit or reject.

The files are the truth and change outside Reverie: every refresh (opening
the window, coming back to it, F5) syncs the list with the folder, so a file
edited by hand shows its new text, and a file that cannot be read (not
UTF-8, an impossible name) is listed as a problem with its path while the
rest work.  What the library refuses (an empty summary, a name taken, a
full disk) is said in the window, and the typing stays.  Unsaved edits are
never dropped silently: switching to another skill, starting a new one or
closing the window asks first.  File and database work is quick and done in
place; the model is never asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from PySide6.QtCore import QEvent, QKeyCombination, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from desktop.core.base.errors import ReverieError
from desktop.core.db.skills import EVERY_STATUS, Skill, SkillStatus
from desktop.core.dreaming.erasure import Eraser
from desktop.core.privacy.redaction import redaction_notice, taken_out
from desktop.core.skills.library import SkillChangedMeanwhile, SkillLibrary
from desktop.ui.skills.views import (
    SKILL_ROLE,
    UNREADABLE_ROLE,
    SkillDelegate,
    SkillPane,
    delete_question,
    missing_text,
    skipped_text,
    uses_words,
)
from desktop.ui.widgets.app_window import AppWindow, ListOrEmpty, card_list
from desktop.ui.widgets.bidi import stored_order
from desktop.ui.widgets.direction_guard import TextWarningBar
from desktop.ui.widgets.erase_confirm import one_named
from desktop.ui.widgets.erase_outcome import EraseNow
from desktop.ui.widgets.labels import count, named, plain_tip
from desktop.ui.widgets.unsaved import UnsavedGuard
from desktop.ui.widgets.worker import TaskQueue

TABS: tuple[tuple[SkillStatus, str], ...] = (
    ("active", "Skills"),
    ("draft", "Drafts"),
    ("deleted", "Deleted"),
)
EMPTY_SKILLS = (
    "No skills yet. A skill is a procedure worth keeping: ask Reverie to save one, or "
    "choose New and write it. Its first line says what it is for."
)
_EMPTY_TAB: dict[SkillStatus, str] = {
    "active": EMPTY_SKILLS,
    "draft": "No drafts. When dreaming proposes a skill, it waits here for you.",
    "deleted": "No deleted skills.",
}


_COUNTED: dict[SkillStatus, tuple[str, str]] = {
    "active": ("skill", "skills"),
    "draft": ("draft", "drafts"),
    "deleted": ("deleted skill", "deleted skills"),
}


def _sentence(error: ReverieError) -> str:
    return str(error).rstrip(".") + "."


class SkillEditorWindow(AppWindow):
    """The "Skills — Reverie" window.

    Signals:
        skills_changed(): the user changed a skill here (created, saved,
            renamed, deleted, restored, accepted or rejected one).
    """

    skills_changed = Signal()

    def __init__(
        self, library: SkillLibrary, parent: QWidget | None = None, *, eraser: Eraser | None = None
    ) -> None:
        """Given an *eraser*, a deleted skill can be erased for good ("Delete now")."""
        super().__init__(parent)
        self.setObjectName("skill-editor")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.setWindowTitle("Skills — Reverie")
        self.resize(1040, 700)
        self.setMinimumSize(640, 420)  # the list, the editor and its buttons still whole
        self._library = library
        self._eraser = eraser
        self._erasing = TaskQueue("skill-editor", self)
        self._erase_now = EraseNow(self, self._erasing, self._on_erased)
        """The open "Delete now, for good?" question, if any."""
        self._wanted: int | None = None
        """A skill to make current at the next refresh (one just created)."""
        self.confirm_dialog: QMessageBox | None = None
        self._build()
        self.pane.can_erase = eraser is not None
        self.unsaved = UnsavedGuard(
            self, dirty=self.pane.dirty, what=self.pane.what, save=self.save, discard=self.revert
        )
        self.refresh()

    # -- construction --------------------------------------------------------
    def _build(self) -> None:
        self.build_status_lines("skill")
        splitter = QSplitter()
        splitter.addWidget(self._build_list())
        self.pane = SkillPane()
        splitter.addWidget(self.pane)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([340, 700])
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(self.problem)
        layout.addWidget(splitter, 1)
        self._connect()
        self._shortcuts()

    def _build_list(self) -> QWidget:
        self.search = named(QLineEdit(), "skill-search", "Search skills")
        self.search.setPlaceholderText("Search names and text (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.new_button = named(QPushButton("New"), "skill-new", "Write a new skill")
        self.new_button.setToolTip("Write a new skill (Ctrl+N)")
        self.tabs = named(QTabBar(), "skill-tabs", "Which skills")
        for _, title in TABS:
            self.tabs.addTab(title)
        self.tabs.setExpanding(False)
        self.tabs.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.skipped = named(QLabel(), "skill-skipped", "Files that could not be read")
        self.skipped.setWordWrap(True)
        self.skipped.setTextFormat(Qt.TextFormat.PlainText)
        self.skipped.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.skipped.hide()
        self.items = card_list("skill-list", "Skills", SkillDelegate)
        self.list_stack = ListOrEmpty(self.items, EMPTY_SKILLS, "skill-empty")
        self.empty_label = self.list_stack.empty_label
        self.count_label = named(QLabel(), "skill-count")
        search = QHBoxLayout()
        search.addWidget(self.search, 1)
        search.addWidget(self.new_button)
        pane = QWidget()
        layout = QVBoxLayout(pane)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(search)
        layout.addWidget(TextWarningBar(self.search))
        layout.addWidget(self.tabs)
        layout.addWidget(self.skipped)
        layout.addWidget(self.list_stack, 1)
        layout.addWidget(self.count_label)
        return pane

    def _connect(self) -> None:
        self.search.textChanged.connect(self.refresh)
        self.tabs.currentChanged.connect(self.refresh)
        self.items.currentItemChanged.connect(self._on_current_changed)
        self.new_button.clicked.connect(self.new_skill)
        pane = self.pane
        pane.save_button.clicked.connect(self.save)
        pane.revert_button.clicked.connect(self.revert)
        pane.rename_button.clicked.connect(self.rename)
        pane.name_edit.returnPressed.connect(self._on_name_entered)
        pane.delete_button.clicked.connect(self.ask_delete)
        pane.accept_button.clicked.connect(self.accept_draft)
        pane.reject_button.clicked.connect(self.reject_draft)
        pane.restore_button.clicked.connect(self.restore)
        pane.erase_button.clicked.connect(self.ask_erase)

    def _shortcuts(self) -> None:
        bindings: list[tuple[QKeySequence, Callable[[], object]]] = [
            (QKeySequence(QKeyCombination(Qt.Key.Key_Escape)), self.close),
            (QKeySequence(QKeySequence.StandardKey.Find), self._focus_search),
            (QKeySequence(QKeySequence.StandardKey.New), self.new_skill),
            (QKeySequence(QKeySequence.StandardKey.Save), self.save),
            (QKeySequence(QKeySequence.StandardKey.Refresh), self.refresh),
            (QKeySequence(QKeyCombination(Qt.Key.Key_F2)), self._focus_name),
        ]
        for sequence, action in bindings:
            QShortcut(sequence, self, action)
        delete = QShortcut(QKeySequence(QKeyCombination(Qt.Key.Key_Delete)), self.items)
        delete.setContext(Qt.ShortcutContext.WidgetShortcut)  # not while typing
        delete.activated.connect(self.ask_delete)

    def _focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def _focus_name(self) -> None:
        if not self.pane.body.isHidden() and not self.pane.name_edit.isReadOnly():
            self.pane.name_edit.setFocus()
            self.pane.name_edit.selectAll()

    # -- the list ------------------------------------------------------------
    @property
    def status(self) -> SkillStatus:
        """Which skills the list shows: active ones, drafts or deleted ones."""
        return TABS[max(0, self.tabs.currentIndex())][0]

    def show_tab(self, status: SkillStatus) -> None:
        self.tabs.setCurrentIndex([key for key, _ in TABS].index(status))

    def refresh(self) -> None:
        """Sync with the folder and list the skills again; the skill being
        edited keeps what was typed."""
        shown, wanted, self._wanted = self.pane.skill, self._wanted, None
        kept = wanted or (shown.id if shown is not None else self._current_id())
        position = max(0, self.items.currentRow())
        try:
            skills = self._library.list(self.search.text(), (self.status,))
            counts = {status: len(self._library.store.list((status,))) for status in EVERY_STATUS}
        except ReverieError as error:
            self.show_problem(f"The skills could not be read: {_sentence(error)}")
            return
        skipped, missing = self._library.last_sync.skipped, self._library.last_sync.missing
        folder = self._library.directory
        if missing:
            self.skipped.setText(missing_text(folder))
            self.skipped.setToolTip("")
        else:
            self.skipped.setText(skipped_text(folder, skipped) if skipped else "")
            self.skipped.setToolTip(
                plain_tip(skipped_text(folder, skipped, len(skipped)) if skipped else "")
            )
        self.skipped.setVisible(bool(skipped) or missing)
        for index, (status, title) in enumerate(TABS):
            self.tabs.setTabText(index, f"{title} ({counts[status]})" if counts[status] else title)
        unreadable = {file.file_name for file in skipped}
        self.items.blockSignals(True)
        self.items.clear()
        for skill in skills:
            item = QListWidgetItem(stored_order(skill.name))
            item.setData(SKILL_ROLE, skill)
            item.setData(UNREADABLE_ROLE, missing or skill.file_name in unreadable)
            item.setToolTip(plain_tip(skill.summary))
            item.setData(
                Qt.ItemDataRole.AccessibleDescriptionRole, f"{skill.summary}; {uses_words(skill)}"
            )
            self.items.addItem(item)
            if skill.id == kept:
                self.items.setCurrentItem(item)
        pane = self.pane
        if self.items.currentItem() is None and not (pane.dirty() or pane.new) and skills:
            self.items.setCurrentRow(min(position, len(skills) - 1))
        self.items.blockSignals(False)
        self.count_label.setText(count(len(skills), *_COUNTED[self.status]))
        self.empty_label.setText(self._empty_text(counts))
        self.list_stack.setCurrentWidget(self.items if skills else self.empty_label)
        self._show_current()

    def _empty_text(self, counts: dict[SkillStatus, int]) -> str:
        if text := self.search.text().strip():
            return f"No skills here match “{text}”."
        return _EMPTY_TAB[self.status] if counts[self.status] == 0 else ""

    def _current_id(self) -> int | None:
        item = self.items.currentItem()
        return None if item is None else int(item.data(SKILL_ROLE).id)

    def skill_names(self) -> list[str]:
        """The names of the skills listed, top to bottom."""
        return [self.items.item(row).text() for row in range(self.items.count())]

    def select(self, name: str) -> None:
        """Make the listed skill *name* the current one (asking about unsaved edits)."""
        for row in range(self.items.count()):
            if self.items.item(row).text() == name:
                self.items.setCurrentRow(row)
                return

    def _on_current_changed(
        self, current: QListWidgetItem | None, previous: QListWidgetItem | None
    ) -> None:
        target = None if current is None else int(current.data(SKILL_ROLE).id)
        shown = self.pane.skill
        if self.pane.dirty() and (shown is None or shown.id != target):
            self.items.blockSignals(True)  # stay here until the user answers
            if previous is None:
                self.items.setCurrentRow(-1)
            else:
                self.items.setCurrentItem(previous)
            self.items.blockSignals(False)
            self.resolve_unsaved("leaving it", lambda: self._go_to(target))
            return
        self.pane.new = False  # a new skill not written yet is left
        self._show_current()

    def _go_to(self, skill_id: int | None) -> None:
        self.pane.new = False
        for row in range(self.items.count()):
            if self.items.item(row).data(SKILL_ROLE).id == skill_id:
                self.items.setCurrentRow(row)
        self._show_current()

    def _show_current(self) -> None:
        item, pane = self.items.currentItem(), self.pane
        if item is not None and not pane.new:
            self._show_skill(item.data(SKILL_ROLE))
        elif pane.new:
            return  # a new skill being written stays until saved or discarded
        elif pane.skill is not None and pane.dirty():
            # The skill being edited left the list (another tab, a search):
            # it stays here, as it is now, with the typing.
            latest = self._library.store.get(pane.skill.id)
            if latest is not None:
                self._show_skill(latest)
        else:
            pane.show_message(
                "Select a skill to read or edit it."
                if self.items.count()
                else "No skill is open. New (Ctrl+N) starts one."
            )

    def _show_skill(self, skill: Skill) -> None:
        pane = self.pane
        base = pane.base_text if pane.skill is not None and pane.skill.id == skill.id else None
        try:
            read = self._library.read(skill.id)
        except ReverieError as error:
            pane.show_skill(skill, None, self._library.path(skill), _sentence(error))
            return
        pane.show_skill(read.skill, read.text, self._library.path(read.skill))
        if base is not None and pane.text_dirty() and read.text != base:
            pane.base_text = read.text  # saving now replaces the new text, knowingly
            pane.show_problem(
                "The file changed outside Reverie while you edited it. Save replaces it "
                "with your text; Revert shows the file's new text."
            )

    # -- editing -------------------------------------------------------------
    def new_skill(self) -> None:
        """Start writing a new skill (asking first about unsaved edits)."""
        self.resolve_unsaved("starting a new skill", self._start_new)

    def _start_new(self) -> None:
        self.items.blockSignals(True)
        self.items.setCurrentRow(-1)
        self.items.blockSignals(False)
        self.pane.start_new()
        self.pane.name_edit.setFocus()

    def save(self) -> bool:
        """Save what was typed (create the new skill, or save the text and the
        name); did it work, or was there nothing to save?  A refusal is said
        under the editor and the typing stays."""
        pane = self.pane
        if pane.new:
            return self._create()
        skill = pane.skill
        if skill is None or not pane.dirty():
            return True
        saved_text, why = pane.text_dirty(), ""
        if saved_text:
            if not pane.readable or not self._unchanged_outside(skill):
                return False
            try:
                # Checked again under the library's lock, as it writes: a
                # dream's rewrite landing since the check above is kept.
                skill = self._library.update_text(
                    skill.id, pane.typed_text(), expected=pane.base_text
                )
                pane.base_text = self._library.read(skill.id).text
            except SkillChangedMeanwhile:
                self._unchanged_outside(skill)  # says so, and takes the new text as the base
                return False
            except ReverieError as error:
                pane.show_problem(f"Not saved: {_sentence(error)}")
                return False
            why = self._why(pane, skill)
            if why:
                pane.editor.setPlainText(pane.base_text)  # as saved, the marker in place
        if pane.name_dirty():
            try:
                skill = self._library.rename(skill.id, pane.typed_name())
            except ReverieError as error:
                if saved_text:
                    self._changed(None)  # the list shows the new summary
                said = "The text was saved, but not the new name" if saved_text else "Not saved"
                pane.show_problem(f"{said}: {_sentence(error)}")
                return False
            pane.name_edit.setText(skill.name)  # as the library spelt it
        self._changed(f"Saved “{skill.name}”.{why}")
        return True

    def _why(self, pane: SkillPane, skill: Skill) -> str:
        """Why the file holds a marker where *pane*'s text had a secret (or "")."""
        try:
            kinds = taken_out(pane.typed_text(), self._library.read(skill.id).text)
        except ReverieError:  # unreadable just after the write: said when it is shown
            return ""
        return f" {redaction_notice(kinds)}" if kinds else ""

    def _unchanged_outside(self, skill: Skill) -> bool:
        """Is the file still as the user started editing it? If not, say so."""
        try:
            text = self._library.read(skill.id).text
        except ReverieError as error:
            self.pane.show_problem(f"Not saved: {_sentence(error)}")
            return False
        if text == self.pane.base_text:
            return True
        self.pane.base_text = text
        self.pane.show_problem(
            "Not saved: the file changed outside Reverie while you edited it. Your text is "
            "still here: Save again to replace the file's text with it, or Revert to see "
            "the new text."
        )
        return False

    def _create(self) -> bool:
        pane = self.pane
        try:
            replaced = self._library.find(pane.typed_name(), ("deleted",))
            skill = self._library.create(pane.typed_name(), pane.typed_text(), replace_deleted=True)
        except ReverieError as error:
            pane.show_problem(f"Not saved: {_sentence(error)}")
            return False
        pane.new = False
        pane.skill = None  # shown afresh from its file, as saved
        self._wanted = skill.id
        self.search.blockSignals(True)
        self.search.clear()  # the new skill must be in the list
        self.search.blockSignals(False)
        self.tabs.blockSignals(True)
        self.show_tab("active")
        self.tabs.blockSignals(False)
        instead = "" if replaced is None else " It replaces the deleted skill of that name."
        self._changed(
            f"Created the skill “{skill.name}”: Reverie can use it now."
            f"{instead}{self._why(pane, skill)}"
        )
        return True

    def rename(self) -> None:
        """Give the skill the typed name (its file too); the text being edited stays."""
        pane, skill = self.pane, self.pane.skill
        if skill is None or not pane.name_dirty():
            return
        try:
            renamed = self._library.rename(skill.id, pane.typed_name())
        except ReverieError as error:
            pane.show_problem(f"Not renamed: {_sentence(error)}")
            return
        pane.name_edit.setText(renamed.name)  # as the library spelt it
        self._changed(f"Renamed “{skill.name}” to “{renamed.name}”.")

    def _on_name_entered(self) -> None:
        if self.pane.new:
            self.pane.editor.setFocus()
        else:
            self.rename()

    def revert(self) -> None:
        """Drop the typing: the skill as its file has it (a new one: nothing)."""
        pane = self.pane
        if pane.new:
            pane.start_new()
            return
        pane.name_edit.setText(pane.base_name)
        if pane.skill is not None:
            pane.editor.setPlainText("")  # not dirty: the file's text is read again
            pane.base_text = ""
            self._show_skill(pane.skill)
        pane.show_problem("")

    # -- moving between skills, drafts and deleted ----------------------------
    def ask_delete(self) -> None:
        """Ask before deleting the skill shown (restorable from Deleted)."""
        pane, skill = self.pane, self.pane.skill
        if pane.new:
            self.resolve_unsaved("discarding it", self._discard_new)
            return
        if skill is None or skill.status == "deleted" or self.confirm_dialog is not None:
            return
        box, delete = delete_question(self, skill, self._library.directory, pane.dirty())

        def finished() -> None:
            self.confirm_dialog = None
            box.deleteLater()
            if box.clickedButton() is delete:
                self._move(skill, "delete")

        box.finished.connect(finished)
        self.confirm_dialog = box
        box.open()

    def _discard_new(self) -> None:
        self.pane.new = False
        self.pane.show_message("")
        self._show_current()
        if self.items.currentItem() is None and self.items.count():
            self.items.setCurrentRow(0)

    def accept_draft(self) -> None:
        """Make the draft shown a skill, saving the edits to it first."""
        skill = self.pane.skill
        if skill is not None and skill.status == "draft" and self.save():
            self._move(skill, "accept")

    def reject_draft(self) -> None:
        """Put the draft shown with the deleted skills (asking about unsaved edits)."""
        skill = self.pane.skill
        if skill is not None and skill.status == "draft":
            self.resolve_unsaved("rejecting it", lambda: self._move(skill, "reject"))

    def restore(self) -> None:
        """Bring the deleted skill shown back as a skill Reverie uses."""
        skill = self.pane.skill
        if skill is not None and skill.status == "deleted":
            self._move(skill, "restore")

    def ask_erase(self) -> None:
        """Ask, then erase the deleted skill shown, and its file, for good."""
        skill = self.pane.skill
        if skill is not None and skill.status == "deleted" and self._eraser is not None:
            eraser = self._eraser
            what = one_named("skill", skill.name)
            self._erase_now.ask(what, lambda: eraser.erase_skills([skill.id]))

    @property
    def erase_confirm(self) -> QMessageBox | None:
        """The open "Delete now, for good?" question, if any."""
        return self._erase_now.question

    @property
    def busy(self) -> bool:
        """Whether an erasure is under way."""
        return self._erasing.busy

    def _on_erased(self) -> None:
        self.pane.show_message("")
        self.refresh()
        self.skills_changed.emit()

    def _move(self, skill: Skill, verb: Literal["delete", "accept", "reject", "restore"]) -> None:
        move = {
            "delete": self._library.delete,
            "accept": self._library.accept,
            "reject": self._library.reject,
            "restore": self._library.restore,
        }[verb]
        try:
            moved = move(skill.id)
        except ReverieError as error:
            self.show_problem(f"That did not work: {_sentence(error)} Nothing was changed.")
            self.refresh()
            return
        said = {
            "delete": f"Deleted “{moved.name}”. You can restore it from Deleted.",
            "accept": f"Accepted “{moved.name}”: Reverie can use it now (under Skills).",
            "reject": f"Rejected the draft “{moved.name}”. You can restore it from Deleted.",
            "restore": f"Restored “{moved.name}”: Reverie can use it again (under Skills).",
        }[verb]
        self.pane.show_message("")  # the next one in the list is shown
        self._changed(said)

    def _changed(self, said: str | None) -> None:
        if said is not None:
            self.show_notice(said)
            self.pane.show_problem("")
        self.refresh()
        self.skills_changed.emit()

    def resolve_unsaved(self, doing: str, then: Callable[[], object]) -> None:
        """Run *then* once nothing typed is unsaved: at once, or after asking
        whether to save or discard it before *doing*."""
        self.unsaved.resolve(doing, then)

    @property
    def unsaved_dialog(self) -> QMessageBox | None:
        """The unsaved-changes question while it is open."""
        return self.unsaved.dialog

    # -- the window ----------------------------------------------------------
    def show_skill(self, skill_id: int) -> None:
        """Bring the window up at skill *skill_id*, on its tab and unfiltered."""
        self.present()
        skill = self._library.store.get(skill_id)
        if skill is None:
            self.show_problem(f"There is no skill #{skill_id}.")
            return
        self.search.clear()
        self.show_tab(skill.status)
        self.select(skill.name)

    def show_drafts(self) -> None:
        """Bring the window up at the drafts dreaming proposed."""
        self.present()
        self.show_tab("draft")

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.refresh()  # back from a text editor: its changes show

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.unsaved.may_close():
            super().closeEvent(event)  # hidden, not destroyed: the app opens it again
        else:
            event.ignore()  # asked first; it closes once answered so

    def shutdown(self) -> None:
        """Close any question still open, and stop the worker after the
        erasure in flight; call before the app quits."""
        self.unsaved.dismiss()
        self._erasing.stop()
        if self.confirm_dialog is not None:
            self.confirm_dialog.reject()
