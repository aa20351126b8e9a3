"""The side list of conversations: search, new, rename, delete."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.db import Conversation
from desktop.ui.flow_layout import FlowLayout

_SEARCH_DELAY_MS = 200  # search once typing pauses, not on every key


class ConversationList(QWidget):
    """Signals:
    selected(int): the user picked a conversation.
    search_changed(str): the search text settled; the owner refills the list.
    new_requested(): the user asked for a new conversation.
    off_record_requested(): the user asked for a new off-the-record conversation.
    rename_requested(int): the user asked to rename a conversation.
    delete_requested(int): the user asked to delete a conversation.
    """

    selected = Signal(int)
    search_changed = Signal(str)
    new_requested = Signal()
    off_record_requested = Signal()
    rename_requested = Signal(int)
    delete_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit()
        self.search.setObjectName("conversation-search")
        self.search.setPlaceholderText("Search conversations")
        self.search.setAccessibleName("Search conversations")
        self.search.setClearButtonEnabled(True)
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
        buttons = FlowLayout()  # side by side, or one above the other in a narrow list
        buttons.addWidget(self.new_button)
        buttons.addWidget(self.off_record_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 0, 0)  # off the window's edge, as the chat beside it
        layout.addLayout(buttons)
        layout.addWidget(self.search)
        layout.addWidget(self.nothing_found)
        layout.addWidget(self.items, 1)

        self._search_timer = QTimer(self, singleShot=True, interval=_SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(lambda: self.search_changed.emit(self.search.text()))
        self.search.textChanged.connect(lambda _: self._search_timer.start())
        self.new_button.clicked.connect(self.new_requested)
        self.off_record_button.clicked.connect(self.off_record_requested)
        self.items.itemActivated.connect(self._emit_selected)
        self.items.itemClicked.connect(self._emit_selected)
        self.items.customContextMenuRequested.connect(self._show_menu)

    def show_conversations(self, conversations: list[Conversation], current: int | None) -> None:
        self.items.blockSignals(True)
        self.items.clear()
        for conversation in conversations:
            title = conversation.title or "Untitled"
            item = QListWidgetItem(
                f"{title}  · off the record" if conversation.off_record else title
            )
            item.setData(Qt.ItemDataRole.UserRole, conversation.id)
            item.setToolTip(
                f"{title}\nOff the record: never remembered" if conversation.off_record else title
            )
            if conversation.off_record:
                font = item.font()
                font.setItalic(True)
                item.setFont(font)
            self.items.addItem(item)
            if conversation.id == current:
                self.items.setCurrentItem(item)
        self.items.blockSignals(False)
        searched = self.search.text().strip()
        self.nothing_found.setText(f"No conversation matches “{searched}”.")
        self.nothing_found.setVisible(bool(searched) and not conversations)

    def current_id(self) -> int | None:
        item = self.items.currentItem()
        return None if item is None else int(item.data(Qt.ItemDataRole.UserRole))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        current = self.current_id()
        if current is not None and event.key() == Qt.Key.Key_Delete:
            self.delete_requested.emit(current)
        elif current is not None and event.key() == Qt.Key.Key_F2:
            self.rename_requested.emit(current)
        else:
            super().keyPressEvent(event)

    def _emit_selected(self, item: QListWidgetItem) -> None:
        self.selected.emit(int(item.data(Qt.ItemDataRole.UserRole)))

    def _show_menu(self, position: QPoint) -> None:
        item = self.items.itemAt(position)
        if item is None:
            return
        conversation_id = int(item.data(Qt.ItemDataRole.UserRole))
        menu = QMenu(self)
        rename = QAction("Rename…", menu)
        rename.triggered.connect(lambda: self.rename_requested.emit(conversation_id))
        delete = QAction("Delete…", menu)
        delete.triggered.connect(lambda: self.delete_requested.emit(conversation_id))
        menu.addActions([rename, delete])
        menu.exec(self.items.viewport().mapToGlobal(position))
