"""The pieces of the memory browser: how a memory is drawn in the list, the
detail pane (its text to edit, warnings, sources and history) and the
"forget everything about…" preview.

They read what they show (one memory's sources and history are quick reads)
but change nothing; ``desktop.ui.memory.browser`` does the changing.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from datetime import datetime

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QFontMetrics, QPainter, QPen, QTextDocumentFragment
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.db import (
    ConversationStore,
    Memory,
    MemoryHistoryEntry,
    MemorySort,
    MemoryStore,
    Message,
    SourceKind,
)
from desktop.core.memory.gate import INSTRUCTION_LIKE, REDACTED
from desktop.ui.widgets.bidi import stored_order
from desktop.ui.widgets.cards import CardDelegate, draw_line, small_font
from desktop.ui.widgets.direction_guard import guarded
from desktop.ui.widgets.labels import count, named, plain_label
from desktop.ui.widgets.line_breaks import breakable, unbroken
from desktop.ui.widgets.theme import active_palette
from desktop.ui.widgets.visibility import set_shown

MEMORY_ROLE = Qt.ItemDataRole.UserRole
"""The item data role holding a list item's ``Memory`` (or a preview item's id)."""
INSTRUCTION_WARNING = "Reads like an instruction: given to the model only as quoted data."
REDACTED_NOTE = "A secret (a password or key) was taken out of this memory before it was stored."
SOURCE_NAMES: dict[SourceKind, str] = {
    "user_explicit": "told by you",
    "harvested": "from a chat",
    "dream_merged": "from dreaming",
    "imported": "imported",
    "inferred": "inferred",
}
_OPERATIONS = {
    "add": "Added",
    "update": "Edited",
    "reinforce": "Seen again",
    "merge": "Merged",
    "supersede": "Replaced",
    "archive": "Archived",
    "restore": "Restored",
    "delete": "Deleted",
    "pin": "Pinned",
    "unpin": "Unpinned",
    "decay": "Faded",
    "recategorize": "Re-filed",
}
_SOURCE_TEXT_CHARS = 600
EDITOR_HEIGHT = 110
ABOUT_MIN_HEIGHT = 90
"""The least height of a memory's facts, sources and history (they scroll)."""
_ORDER: dict[MemorySort, Callable[[Memory], tuple[float, float, float, float]]] = {
    "recent": lambda m: (-m.last_seen_at, -m.id, 0, 0),
    "created": lambda m: (-m.created_at, -m.id, 0, 0),
    "importance": lambda m: (-m.pinned, -m.importance, -m.last_seen_at, -m.id),
    "reinforced": lambda m: (-m.reinforcement_count, -m.last_seen_at, -m.id, 0),
}


def _date(timestamp: float) -> str:
    moment = datetime.fromtimestamp(timestamp)
    return f"{moment.day} {moment:%b %Y}"


def erase_deadline(erased_on: float) -> str:
    """What a deleted item says of the end of its restore window."""
    return f"Deleted: restorable until {_date(erased_on)}, then erased for good"


def _when(timestamp: float) -> str:
    moment = datetime.fromtimestamp(timestamp)
    return f"{moment.day} {moment:%b %Y, %H:%M}"


def _seen(memory: Memory) -> str:
    n = memory.reinforcement_count
    return "seen once" if n <= 1 else f"seen {n} times"


def first_line(text: str) -> str:
    """The first line of *text*, with an ellipsis if more follows."""
    first, *more = text.strip().split("\n", 1)
    return f"{first} …" if more else first


def _actor(actor: str) -> str:
    if actor.startswith("dream:"):
        return f"dreaming ({actor.removeprefix('dream:')})"
    return {"user": "you", "tool": "the model", "harvest": "harvest"}.get(actor, actor)


def meta_line(memory: Memory) -> str:
    """The grey line under a memory in the list."""
    parts = [
        memory.category,
        SOURCE_NAMES.get(memory.source_kind, memory.source_kind),
        _seen(memory),
        f"last seen {_date(memory.last_seen_at)}",
    ]
    if memory.status != "active":
        parts.append(memory.status)
    return ("⚠ " if INSTRUCTION_LIKE in memory.flags else "") + " · ".join(parts)


def sorted_memories(memories: Sequence[Memory], sort: MemorySort) -> list[Memory]:
    """Search results (best match first) in the order the user chose, as the store sorts."""
    if sort == "alphabetical":
        return sorted(memories, key=lambda m: (m.content.casefold(), m.id))
    order = _ORDER.get(sort)
    return list(memories) if order is None else sorted(memories, key=order)


class MemoryDelegate(CardDelegate):
    """Draws a memory as its first line over a small grey line of facts, with a pin."""

    role = MEMORY_ROLE
    kind = Memory

    def draw_card(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
        item: Memory,
        box: QRectF,
    ) -> None:
        memory = item
        if memory.pinned:
            _draw_pin(painter, QPointF(box.right() - 5, box.top() + 8))
            box.setRight(box.right() - 18)
        font, small = option.font, small_font(option.font)
        colours = active_palette()
        title_height = QFontMetrics(font).height()
        draw_line(
            painter,
            font,
            colours.colour("text" if memory.status == "active" else "text_muted"),
            QRectF(box.left(), box.top(), box.width(), title_height),
            first_line(memory.content),
        )
        meta_box = QRectF(
            box.left(), box.top() + title_height + 2, box.width(), QFontMetrics(small).height()
        )
        warn = INSTRUCTION_LIKE in memory.flags
        meta = colours.colour("warning_text" if warn else "text_muted")
        draw_line(painter, small, meta, meta_box, meta_line(memory))


def _draw_pin(painter: QPainter, at: QPointF) -> None:
    """A small pushpin, tilted, in the accent colour."""
    painter.save()
    painter.translate(at)
    painter.rotate(35)
    accent = active_palette().colour("accent")
    painter.setPen(QPen(accent, 1.5, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    painter.drawLine(QPointF(0, 1), QPointF(0, 8))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(accent)
    painter.drawEllipse(QPointF(0, -3), 3.6, 3.6)
    painter.drawRoundedRect(QRectF(-4.5, 0, 9, 2), 1, 1)
    painter.restore()


class SourceView(QFrame):
    """Where a memory came from: a message (with a button to open its
    conversation at it) or an outside reference."""

    def __init__(self, header: str, text: str = "", conversation_id: int | None = None) -> None:
        super().__init__()
        self.setObjectName("memory-source")
        self.conversation_id = conversation_id
        self.header = named(plain_label(breakable(header)), "memory-source-header", header)
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.body = named(plain_label(breakable(text)), "memory-source-text", text)  # read as it is
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.PlainText)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_shown(self.body, bool(text))
        self.open_button = named(
            QPushButton("Open conversation"), "memory-open-source", "Open the conversation"
        )
        set_shown(self.open_button, conversation_id is not None)
        top = QHBoxLayout()
        top.addWidget(self.header, 1)
        top.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addLayout(top)
        layout.addWidget(self.body)


class HistoryView(QFrame):
    """One step of a memory's timeline: what happened, who did it, when, old → new."""

    def __init__(self, entry: MemoryHistoryEntry) -> None:
        super().__init__()
        self.setObjectName("memory-history-entry")
        what = _OPERATIONS.get(entry.operation, entry.operation)
        who = html.escape(_actor(entry.actor))
        self.header = named(
            QLabel(f"<b>{what}</b> by {who} · {_when(entry.created_at)}"), "memory-history-header"
        )
        self.header.setTextFormat(Qt.TextFormat.RichText)
        change = _change_html(entry)
        plain = unbroken(QTextDocumentFragment.fromHtml(change).toPlainText())
        self.change = named(QLabel(change), "memory-history-change", plain)  # read as shown
        # Always rich text: escaped plain text alone would otherwise show its entities.
        self.change.setTextFormat(Qt.TextFormat.RichText)
        self.change.setWordWrap(True)
        set_shown(self.change, bool(self.change.text()))
        self.change.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 2, 0, 4)
        layout.setSpacing(2)
        layout.addWidget(self.header)
        layout.addWidget(self.change)


def _change_html(entry: MemoryHistoryEntry) -> str:
    old, new = entry.old_content, entry.new_content
    if old is not None and new is not None:
        colours = active_palette()
        return (
            f'<span style="color:{colours.danger_text}; text-decoration:line-through">'
            f"{_shown(old)}</span>"
            f' → <span style="color:{colours.success_text}">{_shown(new)}</span>'
        )
    if new is not None:
        return _shown(new)
    details = entry.details or {}
    if "old_status" in details:
        return f"was {html.escape(str(details['old_status']))}"
    if "reinforcement_count" in details:
        return f"now seen {details['reinforcement_count']} times"
    return ""


def _shown(text: str) -> str:
    return html.escape(breakable(text))


class MemoryDetail(QWidget):
    """The right pane: one memory (its text to edit, warnings, facts, sources
    and history), or a line about a selection of several.

    What acts on the memory (its buttons, the editor, Save) stays in place;
    only what it says about itself (facts, sources, history) scrolls, so
    Delete and Save stay in view at any size the window allows.

    Signals:
        open_conversation_requested(int, int): open this conversation at this message.
    """

    open_conversation_requested = Signal(int, int)

    def __init__(self, store: MemoryStore, conversations: ConversationStore) -> None:
        super().__init__()
        self.setObjectName("memory-detail-pane")
        self._store = store
        self._conversations = conversations
        self.memory: Memory | None = None
        self.edit_base = ""
        """The text the user started editing from."""
        self.source_views: list[SourceView] = []
        self.history_views: list[HistoryView] = []
        self.title = named(QLabel(), "memory-detail-title")
        self.title.setWordWrap(True)
        self.pin_button = named(QPushButton("Pin"), "memory-pin", "Pin the selected memories")
        self.pin_button.setToolTip("Pinned memories are always kept and never fade")
        self.archive_button = named(
            QPushButton("Archive"), "memory-archive", "Archive the selected memories"
        )
        self.archive_button.setToolTip("Put away: no longer given to the model; restorable")
        self.delete_button = named(
            QPushButton("Delete"), "memory-delete", "Delete the selected memories"
        )
        self.delete_button.setToolTip("Delete (Del); restorable from the Deleted filter")
        self.erase_button = named(
            QPushButton("Delete now…"), "memory-erase", "Delete the selected memories now, for good"
        )
        self.erase_button.setToolTip(
            "Erase at once, from the database and its snapshots (Shift+Del); cannot be undone"
        )
        self.erase_button.hide()  # only where there is an eraser and a selection
        self.restore_button = named(
            QPushButton("Restore"), "memory-restore", "Restore the selected memories"
        )
        self.instruction_warning = named(QLabel(INSTRUCTION_WARNING), "memory-warning")
        self.redacted_note = named(QLabel(REDACTED_NOTE), "memory-note")
        self.editor = named(QPlainTextEdit(), "memory-editor", "Memory text")
        self.editor.setFixedHeight(EDITOR_HEIGHT)
        self.edit_problem = named(
            plain_label(), "memory-edit-problem", "Why the edit was not saved"
        )
        self.revert_button = named(QPushButton("Revert"), "memory-revert", "Undo my changes")
        self.save_button = named(QPushButton("Save"), "memory-save", "Save the edited memory")
        self.save_button.setToolTip("Save (Ctrl+S)")
        self.facts = named(plain_label(), "memory-facts")
        for label in (self.instruction_warning, self.redacted_note, self.edit_problem, self.facts):
            label.setWordWrap(True)
        self.edit_problem.hide()
        self._sources_box = QVBoxLayout()
        self._history_box = QVBoxLayout()
        self._history_box.setSpacing(4)
        self.about = named(
            QScrollArea(), "memory-detail-scroll", "Where the memory came from and its history"
        )
        self._lay_out()

    def _lay_out(self) -> None:
        actions = QHBoxLayout()
        for button in (self.pin_button, self.archive_button, self.delete_button):
            actions.addWidget(button)
        actions.addWidget(self.restore_button)
        actions.addWidget(self.erase_button)
        actions.addStretch(1)
        edit_buttons = QHBoxLayout()
        edit_buttons.addStretch(1)
        edit_buttons.addWidget(self.revert_button)
        edit_buttons.addWidget(self.save_button)
        about = named(QWidget(), "memory-detail")
        about_layout = QVBoxLayout(about)
        about_layout.setContentsMargins(14, 10, 14, 12)
        # First in what scrolls, right under Save: appearing, it moves nothing
        # above, and it never makes the form taller than the window allows.
        about_layout.addWidget(self.edit_problem)
        for widget in (self.instruction_warning, self.redacted_note, self.facts):
            about_layout.addWidget(widget)
        about_layout.addWidget(named(QLabel("Where it came from"), "memory-section"))
        about_layout.addLayout(self._sources_box)
        about_layout.addWidget(named(QLabel("History"), "memory-section"))
        about_layout.addLayout(self._history_box)
        about_layout.addStretch(1)
        self.about.setWidget(about)
        self.about.setWidgetResizable(True)
        self.about.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.about.setMinimumHeight(ABOUT_MIN_HEIGHT)
        self.single = QWidget()
        single = QVBoxLayout(self.single)
        single.setContentsMargins(0, 4, 0, 0)
        single.addWidget(guarded(self.editor))
        single.addLayout(edit_buttons)
        single.addWidget(self.about, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(actions)
        layout.addWidget(self.single, 1)
        layout.addStretch(0)

    def edit_dirty(self) -> bool:
        return self.memory is not None and self.editor.toPlainText() != self.edit_base

    def show_memory(self, memory: Memory, erased_on: float | None = None) -> None:
        """Show *memory*; the editor keeps what the user typed into this same memory.
        A deleted memory says when it is erased for good (*erased_on*, if known)."""
        keep_edit = self.memory is not None and memory.id == self.memory.id and self.edit_dirty()
        self.memory = memory
        status = "" if memory.status == "active" else f" · {memory.status}"
        self.title.setText(f"Memory #{memory.id}{status}{' · pinned' if memory.pinned else ''}")
        self.instruction_warning.setVisible(INSTRUCTION_LIKE in memory.flags)
        self.redacted_note.setVisible(REDACTED in memory.flags)
        if not keep_edit:
            self.set_text(memory.content)
        # What is put away is read, not rewritten: restore it first.
        put_away = memory.status != "active"
        self.editor.setReadOnly(put_away)
        self.editor.setToolTip("Restore this memory to edit it" if put_away else "")
        self.editor.style().polish(self.editor)  # the style sheet greys a read-only editor
        source = SOURCE_NAMES.get(memory.source_kind, memory.source_kind)
        self.facts.setText(
            f"{memory.category} · {source} · {_seen(memory)} · importance {memory.importance:.2g}"
            f"\nAdded {_when(memory.created_at)} · last seen {_when(memory.last_seen_at)}"
            + (f"\nReplaced by memory #{memory.superseded_by}" if memory.superseded_by else "")
            + ("" if erased_on is None else f"\n{erase_deadline(erased_on)}")
        )
        self._show_sources(memory.id)
        self._show_history(memory.id)
        self.single.show()

    def show_summary(self, text: str) -> None:
        """No single memory: say *text* (how many are selected, or how to start)."""
        self.memory = None
        self.title.setText(text)
        self.single.hide()

    def set_text(self, text: str) -> None:
        """Start editing afresh from *text*."""
        self.edit_base = text
        self.editor.setPlainText(text)
        self.edit_problem.hide()

    def show_edit_problem(self, text: str) -> None:
        """Say why the edit was not saved, under Save, in view."""
        self.edit_problem.setText(text)
        self.edit_problem.show()
        self.about.verticalScrollBar().setValue(0)

    def _show_sources(self, memory_id: int) -> None:
        _discard(self.source_views)
        sources = self._store.sources(memory_id)
        found = {m.id: m for m in self._conversations.messages_by_ids(sources.message_ids)}
        views = [self._source_view(i, found.get(i)) for i in sources.message_ids]
        views += [SourceView(f"Reference: {ref}") for ref in sources.external_refs]
        self.source_views = views or [SourceView("No source was recorded.")]
        for view in self.source_views:
            self._sources_box.addWidget(view)

    def _source_view(self, message_id: int, message: Message | None) -> SourceView:
        if message is None:
            return SourceView(f"A message no longer kept (#{message_id})")
        conversation = self._conversations.get(message.conversation_id)
        title = (conversation.title if conversation else "") or "Untitled"
        who = {"user": "you", "assistant": "Reverie"}.get(message.role, message.role)
        text = message.content
        if len(text) > _SOURCE_TEXT_CHARS:
            text = text[:_SOURCE_TEXT_CHARS].rstrip() + "…"
        view = SourceView(
            f"“{title}” · {who} · {_when(message.created_at)}", text, message.conversation_id
        )
        view.open_button.setAccessibleName(f"Open the conversation “{title}” at this message")
        if conversation is None or conversation.deleted_at is not None:
            view.open_button.setEnabled(False)
            view.open_button.setToolTip("This conversation was deleted.")
        ids = (message.conversation_id, message_id)
        view.open_button.clicked.connect(lambda: self.open_conversation_requested.emit(*ids))
        return view

    def _show_history(self, memory_id: int) -> None:
        _discard(self.history_views)
        self.history_views = [HistoryView(e) for e in reversed(self._store.history(memory_id))]
        for view in self.history_views:
            self._history_box.addWidget(view)


def _discard(views: Sequence[QWidget]) -> None:
    """Take *views* out of the window now (Qt deletes them later)."""
    for view in views:
        view.hide()
        view.setParent(None)
        view.deleteLater()


class ForgetPreview(QDialog):
    """The memories about a topic, all checked; accepting forgets the checked ones."""

    def __init__(
        self, topic: str, memories: Sequence[Memory], parent: QWidget, *, can_erase: bool = False
    ) -> None:
        super().__init__(parent)
        self.setObjectName("forget-preview")
        self.topic = topic
        self.erase_now = False
        """Accepted with "Forget now, for good": erase rather than delete softly."""
        self.setWindowTitle(f"Forget the memories about “{topic}”")
        self.resize(560, 420)
        found = bool(memories)
        intro = (
            f"Reverie remembers these about “{topic}”. Uncheck any you want to keep. "
            "Forgotten memories are deleted softly: you can restore them from the Deleted filter"
            + (" for a while, or forget them now, for good." if can_erase else ".")
            + " Your conversations keep what you said: the messages these were learned "
            "from are no longer recalled, the others may be (delete a conversation to "
            "have it gone)."
            if found
            else f"Reverie remembers nothing about “{topic}”."
        )
        self.intro = named(plain_label(intro), "forget-intro")
        self.intro.setWordWrap(True)
        self.items = named(QListWidget(), "forget-list", "Memories to forget")
        self.items.setWordWrap(True)
        for memory in memories:
            item = QListWidgetItem(stored_order(memory.content))
            item.setData(MEMORY_ROLE, memory.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.items.addItem(item)
        set_shown(self.items, found)
        self.count_label = named(QLabel(), "forget-count")
        self.confirm_button = named(QPushButton(), "forget-confirm", "Forget the checked memories")
        set_shown(self.confirm_button, found)
        self.cancel_button = named(
            QPushButton("Cancel" if found else "Close"), "forget-cancel", "Forget nothing"
        )
        self.erase_button = named(
            QPushButton("Forget now, for good…"),
            "forget-erase",
            "Erase the checked memories now, for good",
        )
        self.erase_button.setToolTip("Erased at once, not restorable: you are asked first")
        set_shown(self.erase_button, found and can_erase)
        self.confirm_button.clicked.connect(self.accept)
        self.erase_button.clicked.connect(self._erase)
        self.cancel_button.clicked.connect(self.reject)
        self.items.itemChanged.connect(lambda _: self._update_count())
        buttons = QHBoxLayout()
        buttons.addWidget(self.count_label, 1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.erase_button)
        buttons.addWidget(self.confirm_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.items, 1)
        layout.addLayout(buttons)
        self.cancel_button.setDefault(True)  # Enter must not forget by accident
        self._update_count()

    def _erase(self) -> None:
        self.erase_now = True
        self.accept()

    def checked_ids(self) -> list[int]:
        items = (self.items.item(row) for row in range(self.items.count()))
        return [
            int(item.data(MEMORY_ROLE))
            for item in items
            if item.checkState() == Qt.CheckState.Checked
        ]

    def _update_count(self) -> None:
        checked, total = len(self.checked_ids()), self.items.count()
        self.count_label.setText(f"{checked} of {count(total)} will be forgotten")
        self.confirm_button.setText(f"Forget {count(checked)}")
        self.confirm_button.setEnabled(checked > 0)
        self.erase_button.setEnabled(checked > 0)
