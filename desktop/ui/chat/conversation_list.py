"""The side list of conversations: search, new, rename, delete, and the
recently deleted ones, to restore or delete now, for good.

The list shows what its owner gives it (``show_conversations``, or
``show_deleted`` while "Recently deleted" is on) and asks for changes with
signals; erasing for good is asked here first (it cannot be undone).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.base.text import shows_nothing
from desktop.core.db import Conversation
from desktop.core.db.conversations import SEARCH_MAX_CHARS
from desktop.ui.widgets.bidi import stored_order
from desktop.ui.widgets.direction_guard import guarded
from desktop.ui.widgets.erase_confirm import ask_to_erase, one_named
from desktop.ui.widgets.flow_layout import FlowLayout

_SEARCH_DELAY_MS = 200  # search once typing pauses, not on every key
_SHOWN_SEARCH_CHARS = 60  # of the text searched for, in "No conversation matches"
_NOT_LEARNED = (
    "Reverie could not learn from part of this conversation: the model's answers "
    "were unusable several times, so it moved on. Right-click to learn it again."
)

_SOURCES = {"chatgpt": "ChatGPT", "claude": "Claude"}
"""Where an imported conversation came from, as its list entry says."""


class ConversationList(QWidget):
    """Signals:
    selected(int): the user picked a conversation.
    search_changed(str): the search text settled; the owner refills the list.
    new_requested(): the user asked for a new conversation.
    off_record_requested(): the user asked for a new off-the-record conversation.
    rename_requested(int): the user asked to rename a conversation.
    delete_requested(int): the user asked to delete a conversation.
    erase_requested(int): the user confirmed deleting a conversation now, for good.
    restore_requested(int): the user asked to restore a deleted conversation.
    deleted_shown(bool): the user switched "Recently deleted" on (the owner
        shows the deleted conversations) or off (the kept ones).
    learn_again_requested(int): the user asked to learn the parts of a
        conversation the harvest gave up on after all.
    """

    selected = Signal(int)
    search_changed = Signal(str)
    new_requested = Signal()
    off_record_requested = Signal()
    rename_requested = Signal(int)
    delete_requested = Signal(int)
    erase_requested = Signal(int)
    restore_requested = Signal(int)
    deleted_shown = Signal(bool)
    learn_again_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit()
        self.search.setObjectName("conversation-search")
        self.search.setPlaceholderText("Search conversations")
        self.search.setAccessibleName("Search conversations")
        self.search.setClearButtonEnabled(True)
        self.search.setMaxLength(SEARCH_MAX_CHARS)  # a longer paste is cut, and told
        self.nothing_found = QLabel()
        self.nothing_found.setObjectName("conversation-search-empty")
        self.nothing_found.setWordWrap(True)
        self.nothing_found.setTextFormat(Qt.TextFormat.PlainText)
        self.nothing_found.hide()
        self.items = QListWidget()
        self.items.setObjectName("conversations")
        self.items.setAccessibleName("Conversations")
        self.items.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.items.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.new_button = QPushButton("New conversation")
        self.new_button.setObjectName("new-conversation")
        self.new_button.setAccessibleName("New conversation")
        self.new_button.setToolTip("New conversation (Ctrl+N)")
        self.off_record_button = QPushButton("Off the record")
        self.off_record_button.setObjectName("new-off-record")
        self.off_record_button.setAccessibleName("New off-the-record conversation")
        self.off_record_button.setToolTip(
            "A new conversation Reverie never learns from (Ctrl+Shift+N)"
        )
        self.deleted_button = QPushButton("Recently deleted")
        self.deleted_button.setObjectName("conversations-deleted")
        self.deleted_button.setAccessibleName("Show the recently deleted conversations")
        self.deleted_button.setToolTip(
            "Deleted conversations, restorable for a while; or delete them now, for good"
        )
        self.deleted_button.setCheckable(True)
        self.deleted_note = QLabel()
        self.deleted_note.setObjectName("conversations-deleted-note")
        self.deleted_note.setWordWrap(True)
        self.deleted_note.setTextFormat(Qt.TextFormat.PlainText)
        self.deleted_note.hide()
        self.erase_confirm: QMessageBox | None = None
        self._unlearned: set[int] = set()
        """The conversations shown with parts the harvest gave up on."""
        self._titles: dict[int, str] = {}
        """The title of each conversation shown, by id: the question names it."""
        """The open "Delete now, for good?" question, if any."""
        buttons = FlowLayout()  # side by side, or one above the other in a narrow list
        buttons.addWidget(self.new_button)
        buttons.addWidget(self.off_record_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 0, 0)  # off the window's edge, as the chat beside it
        layout.addLayout(buttons)
        layout.addWidget(guarded(self.search))
        layout.addWidget(self.nothing_found)
        layout.addWidget(self.deleted_note)
        layout.addWidget(self.items, 1)
        layout.addWidget(self.deleted_button)

        self._search_timer = QTimer(self, singleShot=True, interval=_SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(lambda: self.search_changed.emit(self.search.text()))
        self.search.textChanged.connect(lambda _: self._search_timer.start())
        self.new_button.clicked.connect(self.new_requested)
        self.off_record_button.clicked.connect(self.off_record_requested)
        self.items.itemActivated.connect(self._emit_selected)
        self.items.itemClicked.connect(self._emit_selected)
        self.items.customContextMenuRequested.connect(self._show_menu)
        self.deleted_button.toggled.connect(self._on_deleted_toggled)

    def _on_deleted_toggled(self, checked: bool) -> None:
        self.deleted_button.setText("Back to conversations" if checked else "Recently deleted")
        self.deleted_shown.emit(checked)

    @property
    def showing_deleted(self) -> bool:
        return self.deleted_button.isChecked()

    def show_deleted(
        self, conversations: list[Conversation], erased_on: Mapping[int, float]
    ) -> None:
        """List the deleted *conversations*, each with the day it is erased for
        good (*erased_on*, by id); their menu restores or deletes now."""
        self.items.blockSignals(True)
        self.items.clear()
        self._titles = {c.id: _shown_title(c) for c in conversations}
        for conversation in conversations:
            title = self._titles[conversation.id]
            until = _day(erased_on[conversation.id]) if conversation.id in erased_on else ""
            item = QListWidgetItem(f"{title}  · until {until}" if until else title)
            item.setData(Qt.ItemDataRole.UserRole, conversation.id)
            item.setToolTip(
                f"{title}\nDeleted: restorable until {until}, then erased for good."
                "\nRight-click to restore it or delete it now."
            )
            self.items.addItem(item)
        self.items.blockSignals(False)
        self.nothing_found.hide()
        self.deleted_note.setText(
            "Deleted conversations: right-click to restore one or delete it now, for good."
            if conversations
            else "No deleted conversations."
        )
        self.deleted_note.show()

    def show_conversations(self, conversations: list[Conversation], current: int | None) -> None:
        self._unlearned = {c.id for c in conversations if c.unlearned_parts}
        self.deleted_note.hide()
        self.items.blockSignals(True)
        self.items.clear()
        self._titles = {c.id: _shown_title(c) for c in conversations}
        for conversation in conversations:
            title = self._titles[conversation.id]
            item = QListWidgetItem(
                f"{title}  · off the record" if conversation.off_record else title
            )
            item.setData(Qt.ItemDataRole.UserRole, conversation.id)
            item.setToolTip(
                f"{title}\nOff the record: never remembered" if conversation.off_record else title
            )
            if conversation.imported_from is not None:
                source = _SOURCES.get(conversation.imported_from, conversation.imported_from)
                item.setText(f"{item.text()}  · from {source}")
                item.setToolTip(f"{item.toolTip()}\nImported from {source}")
            if conversation.unlearned_parts:
                item.setText(f"{item.text()}  · not all learned")
                item.setToolTip(f"{item.toolTip()}\n{_NOT_LEARNED}")
            if conversation.off_record:
                font = item.font()
                font.setItalic(True)
                item.setFont(font)
            self.items.addItem(item)
            if conversation.id == current:
                self.items.setCurrentItem(item)
        self.items.blockSignals(False)
        self._say_what_was_searched(found=bool(conversations))

    def _say_what_was_searched(self, found: bool) -> None:
        """Say so when nothing matches, and when the search text was cut."""
        text = self.search.text()
        searched = text.strip()
        if len(searched) > _SHOWN_SEARCH_CHARS:
            searched = searched[: _SHOWN_SEARCH_CHARS - 1].rstrip() + "…"
        notes = [] if found or not searched else [f"No conversation matches “{searched}”."]
        if len(text) >= SEARCH_MAX_CHARS:
            notes.append(f"Only the first {SEARCH_MAX_CHARS:,} characters are searched for.")
        self.nothing_found.setText(" ".join(notes))
        self.nothing_found.setVisible(bool(notes))

    def current_id(self) -> int | None:
        item = self.items.currentItem()
        return None if item is None else int(item.data(Qt.ItemDataRole.UserRole))

    def ask_to_erase(self, conversation_id: int) -> None:
        """Ask, then (if confirmed) ask the owner to erase the conversation for good."""
        # Named by its title, as the list shows it: which one goes for good.
        title = self._titles.get(conversation_id)
        what = "this conversation" if title is None else one_named("conversation", title)
        self.erase_confirm = ask_to_erase(
            self, what, lambda: self.erase_requested.emit(conversation_id)
        )
        self.erase_confirm.finished.connect(self._on_erase_answered)

    def _on_erase_answered(self) -> None:
        self.erase_confirm = None

    def keyPressEvent(self, event: QKeyEvent) -> None:
        current = self.current_id()
        erase = event.key() == Qt.Key.Key_Delete and (
            self.showing_deleted or event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        )
        if current is not None and erase:
            self.ask_to_erase(current)
        elif current is not None and event.key() == Qt.Key.Key_Delete:
            self.delete_requested.emit(current)
        elif current is not None and event.key() == Qt.Key.Key_F2:
            self.rename_requested.emit(current)
        else:
            super().keyPressEvent(event)

    def _emit_selected(self, item: QListWidgetItem) -> None:
        if not self.showing_deleted:  # a deleted conversation is restored before it is read
            self.selected.emit(int(item.data(Qt.ItemDataRole.UserRole)))

    def _show_menu(self, position: QPoint) -> None:
        item = self.items.itemAt(position)
        if item is None:
            return
        conversation_id = int(item.data(Qt.ItemDataRole.UserRole))
        menu = self.menu_for(conversation_id)
        menu.exec(self.items.viewport().mapToGlobal(position))
        menu.deleteLater()

    def menu_for(self, conversation_id: int) -> QMenu:
        """The context menu of a conversation in the list as it is now shown."""
        menu = QMenu(self)
        menu.setObjectName("conversation-menu")
        erase = QAction("Delete now…", menu)
        erase.setToolTip("Erase it for good, at once; cannot be undone")
        erase.triggered.connect(lambda: self.ask_to_erase(conversation_id))
        if self.showing_deleted:
            restore = QAction("Restore", menu)
            restore.triggered.connect(lambda: self.restore_requested.emit(conversation_id))
            menu.addActions([restore, erase])
            return menu
        rename = QAction("Rename…", menu)
        rename.triggered.connect(lambda: self.rename_requested.emit(conversation_id))
        delete = QAction("Delete…", menu)
        delete.triggered.connect(lambda: self.delete_requested.emit(conversation_id))
        menu.addActions([rename, delete, erase])
        if conversation_id in self._unlearned:
            learn = QAction("Learn the skipped part again", menu)
            learn.setToolTip(_NOT_LEARNED)
            learn.triggered.connect(lambda: self.learn_again_requested.emit(conversation_id))
            menu.addAction(learn)
        return menu


def _day(timestamp: float) -> str:
    moment = datetime.fromtimestamp(timestamp)
    return f"{moment.day} {moment:%b %Y}"


def _shown_title(conversation: Conversation) -> str:
    """*conversation*'s title as listed: "Untitled" for one that shows nothing
    (empty, or accents with no letter as an older version kept), else in its
    stored order."""
    return "Untitled" if shows_nothing(conversation.title) else stored_order(conversation.title)
