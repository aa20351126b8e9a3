"""The settings window: every setting of ``settings.json``, a page per group.

On the left the pages (the caller's own first, e.g. Models; then Chat,
Memory, Dreaming, Tasks, Model options and Desktop), on the right the
chosen page's fields (``SettingsForm``), each checked as it is typed.  Save writes every
page at once, atomically, and reads the file back to be sure it holds what
was meant; it is enabled only while something changed and nothing is
refused.  A save that fails says why and keeps the typing; the old file is
untouched.  Closing with unsaved edits asks first.

``save`` is the one writer of the settings file: pages of the caller's
(the Models page) save through it too.  Which saved changes apply at once
is the caller's knowledge (``live``); the others are named in a notice as
taking effect when Reverie restarts.

Start at login (the Desktop page) is the one setting whose truth is not the
file: it is the entry the system reads at login (``desktop_page.LoginSwitch``),
read each time the window is shown, and written or removed when a save
changes the switch.  The Desktop page also opens the data and log folders.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel
from PySide6.QtCore import QKeyCombination, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.core.base.autostart import Autostart
from desktop.core.base.settings import (
    ChatSettings,
    DesktopSettings,
    DreamSettings,
    MemorySettings,
    ModelSettings,
    Settings,
    SettingsProblem,
    TaskSettings,
    load_settings,
    save_settings,
)
from desktop.ui.settings.desktop_page import START_AT_LOGIN, LoginSwitch, folder_buttons
from desktop.ui.settings.form import SettingsForm, Suggestions, plain_words
from desktop.ui.widgets.app_window import AppWindow
from desktop.ui.widgets.folders import FolderNotOpened, open_folder
from desktop.ui.widgets.labels import named
from desktop.ui.widgets.unsaved import UnsavedGuard

Live = Callable[[str], bool]
"""Whether a saved change of the setting with this dotted name
("chat.memories_top_k") takes effect at once."""

MODELS_PAGE_FIELDS = ("chat", "background", "embeddings", "added", "suggest_model")
"""Fields of ``ModelSettings`` the Models page edits, not "Model options"."""
MODELS_PAGE_TITLE = "Models"
_PAGE_MAX_WIDTH = 860


@dataclass(frozen=True)
class Group:
    """A page of fields: the settings group *key* (``Settings.<key>``)."""

    key: str
    title: str
    model: type[BaseModel]
    intro: str
    skip: tuple[str, ...] = ()


GROUPS = (
    Group(
        "chat",
        "Chat",
        ChatSettings,
        "How conversations go: the greeting's language, what the model is given with "
        "each message, and when long conversations are summarised.",
    ),
    Group(
        "memory",
        "Memory",
        MemorySettings,
        "When Reverie reads your conversations for things worth remembering, and whether "
        "a reply recalls what you said in your other conversations.",
    ),
    Group(
        "dream",
        "Dreaming",
        DreamSettings,
        "Dreaming tidies what Reverie remembers, in the background: it merges duplicates, "
        "settles contradictions and lets unused memories fade.",
    ),
    Group(
        "tasks",
        "Tasks",
        TaskSettings,
        "The time zone of task schedules, and how Reverie reviews each conversation's tasks.",
    ),
    Group(
        "models",
        "Model options",
        ModelSettings,
        "How the models run. Which model does what is on the Models page.",
        MODELS_PAGE_FIELDS,
    ),
    Group(
        "desktop",
        "Desktop",
        DesktopSettings,
        "How Reverie fits in with this computer: whether it starts when you log in, and "
        "the folders where it keeps your data and its logs.",
    ),
)
FOLDERS_PAGE = "desktop"
"""The group whose page has the buttons opening Reverie's folders."""
_SUGGESTIONS: dict[str, Suggestions] = {
    "time_zone": lambda: sorted(zoneinfo.available_timezones()),
}


def changed_settings(old: Settings, new: Settings) -> list[str]:
    """The dotted names ("chat.memories_top_k") of the settings that differ."""
    names: list[str] = []
    for key in Settings.model_fields:
        before, after = getattr(old, key), getattr(new, key)
        if not isinstance(before, BaseModel):
            if before != after:
                names.append(key)
            continue
        names += [
            f"{key}.{field}"
            for field in type(before).model_fields
            if getattr(before, field) != getattr(after, field)
        ]
    return names


def setting_words(name: str) -> str:
    """A dotted setting name as the window shows it: "Memories top k (Chat)"."""
    key, _, field = name.partition(".")
    if not field:
        return plain_words(key)
    if key == "models" and field in MODELS_PAGE_FIELDS:
        return f"{plain_words(field)} ({MODELS_PAGE_TITLE})"
    title = next((group.title for group in GROUPS if group.key == key), plain_words(key))
    return f"{plain_words(field)} ({title})"


@dataclass(frozen=True)
class _FormPage:
    """A page of this window's own fields."""

    title: str
    group: Group
    form: SettingsForm[Any]


@dataclass(frozen=True)
class _Page:
    title: str
    widget: QWidget
    own: _FormPage | None = None
    """Its fields, if it is one of this window's pages (not the caller's)."""


@runtime_checkable
class EditablePage(Protocol):
    """A page given by the caller that keeps edits of its own (the Models
    page): the window asks about them on closing, as about its own pages."""

    def is_dirty(self) -> bool: ...

    def apply(self) -> bool:
        """Save the page's edits; did it work?"""
        ...

    def refresh(self) -> None:
        """Drop the page's edits."""
        ...


class SettingsWindow(AppWindow):
    """The "Settings — Reverie" window.

    Signals:
        saved(Settings): the settings were written (by Save here, or by a
            page of the caller's through ``save``), and read back the same.
        transfer_requested(): the user asked to import or export (the
            Desktop page's button: the way there on a desktop with no tray).
    """

    saved = Signal(object)
    transfer_requested = Signal()

    def __init__(
        self,
        settings: Settings,
        settings_file: Path,
        *,
        extra_pages: Sequence[tuple[str, QWidget]] = (),
        live: Live = lambda _name: False,
        autostart: Autostart | None = None,
        folders: Sequence[tuple[str, Path]] = (),
        parent: QWidget | None = None,
    ) -> None:
        """*autostart*: the login entry the Desktop page's switch shows and
        sets (None: the switch only edits the file).  *folders*: the
        buttons opening a folder on that page, e.g. ("Open logs", its path)."""
        super().__init__(parent)
        self.setObjectName("settings-window")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.setWindowTitle("Settings — Reverie")
        self.resize(860, 620)
        self.setMinimumSize(600, 420)  # the page list and a readable page beside it
        self._login = LoginSwitch(autostart)
        self._settings, _ = self._login.truth(settings)  # a problem is shown by refresh()
        self._file = settings_file
        self._live = live
        self._folders = folders
        self.folder_buttons: dict[str, QPushButton] = {}
        self.pages: list[_Page] = []
        self._forms: list[_FormPage] = []
        self.confirm_dialog: QMessageBox | None = None
        """The question before restoring a page's defaults, while it is open."""
        self._editable = [(t, w) for t, w in extra_pages if isinstance(w, EditablePage)]
        self._build(extra_pages)
        self.unsaved = UnsavedGuard(
            self,
            dirty=self.is_dirty,
            what=self._unsaved_what,
            save=self.save_edits,
            discard=self.revert,
        )
        self.refresh()

    # -- construction --------------------------------------------------------
    def _build(self, extra_pages: Sequence[tuple[str, QWidget]]) -> None:
        self.build_status_lines("settings")
        self.page_list = named(QListWidget(), "settings-pages", "Settings pages")
        self.page_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.stack = named(QStackedWidget(), "settings-stack")
        for title, widget in extra_pages:
            self._add_page(_Page(title, widget))
        for group in GROUPS:
            form: SettingsForm[Any] = SettingsForm(
                group.model,
                getattr(self._settings, group.key),
                skip=group.skip,
                suggestions=_SUGGESTIONS,
            )
            form.changed.connect(self._on_edited)
            own = _FormPage(group.title, group, form)
            self._forms.append(own)
            self._add_page(_Page(group.title, self._form_page(group, form), own))
        widest = max(
            self.page_list.fontMetrics().horizontalAdvance(f"{p.title} ⚠") for p in self.pages
        )
        self.page_list.setFixedWidth(widest + 56)
        pages = QHBoxLayout()
        pages.setSpacing(10)
        pages.addWidget(self.page_list)
        pages.addWidget(self.stack, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(self.problem)
        layout.addLayout(pages, 1)
        layout.addLayout(self._build_buttons())
        self.page_list.currentRowChanged.connect(self._on_page_chosen)
        self.page_list.setCurrentRow(0)
        self._shortcuts()

    def _add_page(self, page: _Page) -> None:
        self.pages.append(page)
        item = QListWidgetItem(page.title)
        item.setData(Qt.ItemDataRole.AccessibleTextRole, page.title)
        self.page_list.addItem(item)
        self.stack.addWidget(page.widget)

    def _form_page(self, group: Group, form: SettingsForm[Any]) -> QScrollArea:
        content = named(QWidget(), "settings-page")
        title = named(QLabel(group.title), "settings-page-title")
        intro = named(QLabel(group.intro), "settings-page-intro")
        intro.setWordWrap(True)
        column = QVBoxLayout(content)
        column.setContentsMargins(18, 14, 18, 18)
        column.setSpacing(4)
        for widget in (intro, form):
            widget.setMaximumWidth(_PAGE_MAX_WIDTH)  # lines stay readable when maximised
        column.addWidget(title)
        column.addWidget(intro)
        column.addSpacing(14)
        column.addWidget(form)
        if group.key == FOLDERS_PAGE and self._folders:
            column.addSpacing(14)
            buttons, self.folder_buttons = folder_buttons(
                self._folders, self.open_folder, _PAGE_MAX_WIDTH
            )
            column.addWidget(buttons)
            column.addSpacing(14)
            self.transfer_button = named(
                QPushButton("Import or export…"), "settings-transfer", "Import or export"
            )
            self.transfer_button.setToolTip(
                "Export everything to one archive, or import an archive or your "
                "ChatGPT or Claude history"
            )
            self.transfer_button.clicked.connect(self.transfer_requested)
            row = QHBoxLayout()
            row.addWidget(self.transfer_button)
            row.addStretch(1)
            column.addLayout(row)
        column.addStretch(1)
        scroll = named(QScrollArea(), "settings-page-scroll", f"{group.title} settings")
        scroll.setWidgetResizable(True)
        scroll.setWidget(content)
        # Tab goes from the page list straight to the first field (the scroll
        # area still brings each field into view as it takes the focus).
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        return scroll

    def open_folder(self, folder: Path) -> None:
        """Show *folder* in the file manager (made first if missing); a
        problem if that failed."""
        try:
            open_folder(folder)
        except FolderNotOpened as problem:
            self.show_problem(str(problem))

    def _build_buttons(self) -> QHBoxLayout:
        self.defaults_button = named(
            QPushButton("Restore defaults…"), "settings-defaults", "Restore this page's defaults"
        )
        self.defaults_button.setToolTip("Put this page's settings back to Reverie's defaults")
        self.state = named(QLabel(), "settings-state", "What is not saved yet")
        self.state.setWordWrap(True)
        self.revert_button = named(QPushButton("Revert"), "settings-revert", "Undo my changes")
        self.revert_button.setToolTip("Back to the settings as saved")
        self.close_button = named(QPushButton("Close"), "settings-close", "Close the settings")
        self.save_button = named(QPushButton("Save"), "settings-save", "Save the settings")
        self.save_button.setToolTip("Save every page (Ctrl+S)")
        self.defaults_button.clicked.connect(self.ask_restore_defaults)
        self.revert_button.clicked.connect(self.revert)
        self.close_button.clicked.connect(self.close)
        self.save_button.clicked.connect(self.save_edits)
        row = QHBoxLayout()
        row.addWidget(self.defaults_button)
        row.addWidget(self.state, 1)
        for button in (self.revert_button, self.close_button, self.save_button):
            row.addWidget(button)
        return row

    def _shortcuts(self) -> None:
        QShortcut(QKeySequence(QKeyCombination(Qt.Key.Key_Escape)), self, self.close)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Save), self, self.save_edits)

    # -- pages ---------------------------------------------------------------
    def page_titles(self) -> list[str]:
        """The pages, top to bottom."""
        return [page.title for page in self.pages]

    def show_page(self, title: str) -> None:
        """Make the page *title* ("Chat", "Models") the one shown."""
        titles = self.page_titles()
        if title not in titles:
            raise ValueError(f"there is no settings page {title!r}; there are {titles}")
        self.page_list.setCurrentRow(titles.index(title))

    def current_page(self) -> str:
        return self.pages[self.stack.currentIndex()].title

    def form(self, title: str) -> SettingsForm[Any]:
        """The fields of the page *title* (not a page of the caller's)."""
        own = self.pages[self.page_titles().index(title)].own
        if own is None:
            raise ValueError(f"the settings page {title!r} has no fields of this window's")
        return own.form

    def _on_page_chosen(self, row: int) -> None:
        if row >= 0:
            self.stack.setCurrentIndex(row)
        self._update_state()

    # -- the settings --------------------------------------------------------
    def current(self) -> Settings:
        """The settings as saved (or as last given, ``set_settings``)."""
        return self._settings

    def edited(self) -> Settings | None:
        """The settings as edited on every page; None while a field is refused."""
        updates: dict[str, BaseModel] = {}
        for page in self._form_pages():
            value = page.form.value()
            if value is None:
                return None
            if page.group.skip:  # only its own fields: the rest belong to another page
                base = getattr(self._settings, page.group.key)
                mine = {name: getattr(value, name) for name in page.form.rows}
                value = page.group.model.model_validate({**dict(base), **mine})
            updates[page.group.key] = value
        return self._settings.model_copy(update=updates)

    def is_dirty(self) -> bool:
        """Is anything edited and not saved (valid or not)?"""
        return any(page.form.is_dirty() for page in self._form_pages()) or bool(
            self._dirty_extras()
        )

    def _dirty_extras(self) -> list[str]:
        return [title for title, page in self._editable if page.is_dirty()]

    def set_settings(self, settings: Settings) -> None:
        """The settings changed elsewhere: show them; what the user is
        editing stays, on top of them."""
        self._settings = settings
        for page in self._form_pages():
            page.form.set_value(getattr(settings, page.group.key), keep_edits=True)
        self._update_state()

    def refresh(self) -> None:
        """Up to date: start at login as the system's entry says now (the
        user may have turned it off in their desktop's startup settings)."""
        truth, problem = self._login.truth(self._settings)
        if truth != self._settings:
            self.set_settings(truth)
        if problem is not None:
            self.show_problem(problem)
        self._update_state()

    def _form_pages(self) -> list[_FormPage]:
        return self._forms

    # -- saving --------------------------------------------------------------
    def save_edits(self) -> bool:
        """Save what was edited on every page (Save, Ctrl+S); did it work, or
        was there nothing to save?  Refused while a field is."""
        for _, page in self._editable:
            if page.is_dirty() and not page.apply():
                return False
        edited = self.edited()
        if edited is None:
            refused = self._refused_pages()
            self.show_problem(
                f"Not saved: a setting on the {_pages_words(refused)} cannot be used; "
                "the reason is under it."
            )
            self.show_page(refused[0])
            return False
        if edited == self._settings:
            return True
        return self.save(edited)

    def save(self, settings: Settings) -> bool:
        """Write *settings* (atomically), read them back, and say so; False
        (and the reason shown) if that failed: the old file is then
        untouched, and what is typed stays."""
        login_problem = None
        if START_AT_LOGIN in changed_settings(self._settings, settings):
            login_problem = self._login.set(settings.desktop.start_at_login)
            settings, _ = self._login.truth(settings)  # what the system has now
        changed = changed_settings(self._settings, settings)
        if login_problem is not None and not changed:
            self._show_desktop(self._settings)
            self.show_problem(login_problem)
            return False
        try:
            # Only what was changed here goes over the file as it is now: a
            # model `reverie models add` wrote meanwhile stays, and is shown.
            settings = save_settings(settings, self._file, since=self._settings)
        except SettingsProblem as refused:
            self.show_problem(f"{refused} Your changes are still here.")
            return False
        written, problem = load_settings(self._file)
        if problem is not None or written != settings:
            why = f": {problem}" if problem is not None else ""
            self.show_problem(
                f"The settings were written to {self._file} but do not read back the same"
                f"{why}. Your changes are still here."
            )
            return False
        self._settings = settings
        for page in self._form_pages():
            page.form.set_value(getattr(settings, page.group.key), keep_edits=True)
        if login_problem is not None:  # the switch shows the truth, not what was asked
            self._show_desktop(settings)
            self.show_problem(f"{login_problem} Your other changes were saved.")
            self.saved.emit(settings)
            return False
        self._update_state()
        later = [
            setting_words(name)
            for name in changed
            if not self._live(name) and name != START_AT_LOGIN  # set just now
        ]
        self.show_notice(
            "Saved."
            + (
                f" Some changes take effect when Reverie restarts: {', '.join(later)}."
                if later
                else ""
            )
        )
        self.saved.emit(settings)  # after the notice: a listener's problem is the last word
        return True

    def _show_desktop(self, settings: Settings) -> None:
        """The Desktop page as *settings* have it, its edits dropped."""
        page = next(page for page in self._form_pages() if page.group.key == "desktop")
        page.form.set_value(settings.desktop)
        self._update_state()

    def revert(self) -> None:
        """Drop every edit: the settings as saved."""
        for _, extra in self._editable:
            extra.refresh()
        for page in self._form_pages():
            page.form.set_value(getattr(self._settings, page.group.key))
        self.show_notice("")
        self._update_state()

    # -- defaults ------------------------------------------------------------
    def ask_restore_defaults(self) -> None:
        """Ask, then put the current page's settings back to the defaults (as
        edits: Save keeps them)."""
        page = self.pages[self.stack.currentIndex()]
        if page.own is None or self.confirm_dialog is not None:
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Restore defaults?",
            f"Put every setting on the {page.title} page back to Reverie's default? "
            "Nothing is saved until you choose Save.",
            parent=self,
        )
        box.setObjectName("settings-defaults-confirm")
        restore = box.addButton("Restore defaults", QMessageBox.ButtonRole.AcceptRole)
        keep = box.addButton("Cancel", QMessageBox.ButtonRole.RejectRole)
        restore.setAccessibleName(f"Restore the defaults of the {page.title} page")
        keep.setAccessibleName("Keep the settings as they are")
        box.setDefaultButton(keep)
        box.setEscapeButton(keep)
        box.setWindowModality(Qt.WindowModality.WindowModal)

        def finished() -> None:
            self.confirm_dialog = None
            box.deleteLater()
            if box.clickedButton() is restore:
                self.restore_defaults(page.title)

        box.finished.connect(finished)
        self.confirm_dialog = box
        box.open()

    def restore_defaults(self, title: str) -> None:
        """Put the page *title*'s settings back to the defaults, as edits."""
        own = self.pages[self.page_titles().index(title)].own
        if own is not None:
            own.form.edit_to(own.group.model())

    # -- what the window says ------------------------------------------------
    def _on_edited(self) -> None:
        self.show_notice("")  # "Saved." is no longer true
        self._update_state()

    def _update_state(self) -> None:
        for row, page in enumerate(self.pages):
            form = None if page.own is None else page.own.form
            mark, said = "", ""
            if form is not None and form.errors():
                mark, said = " ⚠", "a setting here cannot be used"
            elif form is not None and form.is_dirty():
                mark, said = " •", "changed, not saved"
            item = self.page_list.item(row)
            item.setText(page.title + mark)
            item.setData(Qt.ItemDataRole.AccessibleDescriptionRole, said)
        refused, changed = self._refused_pages(), self._changed_pages()
        edited = self.edited()
        self.save_button.setEnabled(edited is not None and edited != self._settings)
        self.revert_button.setEnabled(bool(changed))
        self.defaults_button.setEnabled(self.pages[self.stack.currentIndex()].own is not None)
        if refused:
            self.state.setText(f"To save, fix the marked setting on the {_pages_words(refused)}.")
        elif changed:
            self.state.setText(f"Changed, not saved yet: the {_pages_words(changed)}.")
        else:
            self.state.setText("")

    def _refused_pages(self) -> list[str]:
        return [page.title for page in self._form_pages() if page.form.errors()]

    def _changed_pages(self) -> list[str]:
        return [page.title for page in self._form_pages() if page.form.is_dirty()]

    def _unsaved_what(self) -> str:
        fields = [
            page.form.rows[name].label_text
            for page in self._form_pages()
            for name in page.form.changed_fields()
        ]
        pages = self._dirty_extras() + self._changed_pages()
        if len(fields) == 1 and len(pages) == 1:
            return f"the setting “{fields[0]}”"
        return f"the settings of the {_pages_words(pages)}"

    # -- the window ----------------------------------------------------------
    @property
    def unsaved_dialog(self) -> QMessageBox | None:
        """The unsaved-changes question while it is open."""
        return self.unsaved.dialog

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.unsaved.may_close():
            super().closeEvent(event)  # hidden, not destroyed: the app opens it again
        else:
            event.ignore()  # asked first; it closes once answered so

    def shutdown(self) -> None:
        """Close any question still open; call before the app quits."""
        self.unsaved.dismiss()
        if self.confirm_dialog is not None:
            self.confirm_dialog.reject()


def _pages_words(titles: Sequence[str]) -> str:
    """ "Chat page", "Chat and Memory pages", "Chat, Memory and Tasks pages"."""
    if len(titles) == 1:
        return f"{titles[0]} page"
    return f"{', '.join(titles[:-1])} and {titles[-1]} pages"
