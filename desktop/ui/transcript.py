"""The transcript: one widget per message, notices between them.

Each message renders its Markdown on its own, so a streaming reply
re-renders only itself (throttled); the finished message is rendered in
full.  Every message has a Copy button that copies its whole text, however
much of it is shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.db import Memory
from desktop.ui.markdown import render_markdown, render_plain

STREAM_RENDER_MS = 100
"""While a reply streams, its Markdown is rendered at most this often."""

MAX_CHIPS = 5
"""Memory chips shown under a reply; the rest are counted."""
_CHIP_CHARS = 28
_SPEAKERS = {"user": "You", "assistant": "Reverie", "seed": "Reverie"}
_EMPTY = "Say hello. Everything you write stays on this computer."
_TEXT_FLAGS = (
    Qt.TextInteractionFlag.TextSelectableByMouse
    | Qt.TextInteractionFlag.TextSelectableByKeyboard
    | Qt.TextInteractionFlag.LinksAccessibleByMouse
    | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
)


class MessageView(QFrame):
    """One message: who said it, a Copy button, the rendered text and, for a
    reply, chips naming the memories it was given.

    Signals:
        copied(): the message's text went to the clipboard.
        memory_clicked(int): the chip of this memory id was clicked.
    """

    copied = Signal()
    memory_clicked = Signal(int)

    def __init__(
        self, role: str, text: str, message_id: int | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.role = role
        self.message_id = message_id
        """The stored message shown (None while a reply is still streaming)."""
        self._text = text
        self.setObjectName(f"message-{'user' if role == 'user' else 'assistant'}")
        self.speaker = QLabel(_SPEAKERS.get(role, role.title()))
        self.speaker.setObjectName("speaker")
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("copy-message")
        self.copy_button.setIcon(QIcon.fromTheme("edit-copy"))
        self.copy_button.setText("Copy")
        self.copy_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.copy_button.setAccessibleName(f"Copy message from {self.speaker.text()}")
        self.copy_button.setToolTip("Copy this message")
        self.copy_button.clicked.connect(self.copy)
        self.body = QLabel()
        self.body.setObjectName("message-body")
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.body.setTextInteractionFlags(_TEXT_FLAGS)
        self.body.setOpenExternalLinks(False)
        self.body.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        header = QHBoxLayout()
        header.addWidget(self.speaker)
        header.addStretch(1)
        header.addWidget(self.copy_button)
        self.chips = QHBoxLayout()
        self.chips.setSpacing(4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 8)
        layout.addLayout(header)
        layout.addWidget(self.body)
        layout.addLayout(self.chips)
        self._render_timer = QTimer(self, singleShot=True, interval=STREAM_RENDER_MS)
        self._render_timer.timeout.connect(self._render)
        self.finish(text) if text else self.body.setText("…")

    @property
    def text(self) -> str:
        return self._text

    def append(self, piece: str) -> None:
        """More streamed text; rendered at the next tick of the throttle."""
        self._text += piece
        if not self._render_timer.isActive():
            self._render_timer.start()

    def finish(self, text: str) -> None:
        """The final text, rendered in full now."""
        self._render_timer.stop()
        self._text = text
        self._render()

    def show_memories(self, memories: Sequence[Memory]) -> None:
        """A chip per memory the reply was given; clicking one opens it."""
        for memory in memories[:MAX_CHIPS]:
            chip = QToolButton()
            chip.setObjectName("memory-chip")
            chip.setText(f"#{memory.id} {_short(memory.content)}")
            chip.setToolTip(f"Reverie recalled: {memory.content}\nClick to open it.")
            chip.setAccessibleName(f"Recalled memory {memory.id}: {memory.content}")
            chip.clicked.connect(lambda _=False, i=memory.id: self.memory_clicked.emit(i))
            self.chips.addWidget(chip)
        if len(memories) > MAX_CHIPS:
            more = QLabel(f"+{len(memories) - MAX_CHIPS} more")
            more.setObjectName("memory-chip-more")
            self.chips.addWidget(more)
        if memories:
            self.chips.addStretch(1)

    @property
    def memory_chips(self) -> list[QToolButton]:
        widgets = (self.chips.itemAt(i).widget() for i in range(self.chips.count()))  # type: ignore[union-attr]
        return [w for w in widgets if isinstance(w, QToolButton)]

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self._text)
        self.copied.emit()

    def _render(self) -> None:
        if not self._text:
            self.body.setText("…")
        elif self.role == "user":  # what the user typed is shown as typed
            self.body.setText(render_plain(self._text))
        else:
            self.body.setText(render_markdown(self._text))


class MemoryUpdate(QFrame):
    """ "Memory updated": what was remembered, with Open and (for a new
    memory) Undo.

    Signals:
        open_requested(int): show this memory id in the memory browser.
        undo_requested(): take the change back.
    """

    open_requested = Signal(int)
    undo_requested = Signal()

    def __init__(self, text: str, memory_id: int, can_undo: bool) -> None:
        super().__init__()
        self.setObjectName("memory-update")
        self.label = QLabel(text)
        self.label.setObjectName("memory-update-text")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(_TEXT_FLAGS)
        self.open_button = QToolButton()
        self.open_button.setText("Open")
        self.open_button.setAccessibleName(f"Open memory {memory_id} in the memory browser")
        self.open_button.clicked.connect(lambda: self.open_requested.emit(memory_id))
        self.undo_button = QToolButton()
        self.undo_button.setText("Undo")
        self.undo_button.setAccessibleName("Undo: forget this memory again")
        self.undo_button.setVisible(can_undo)
        self.undo_button.clicked.connect(self.undo_requested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 4, 6, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.open_button)
        layout.addWidget(self.undo_button)

    def undone(self, text: str) -> None:
        self.label.setText(text)
        self.undo_button.hide()


class ToolCallView(QFrame):
    """A tool the model called: one line saying what came of it, the call
    and its full result behind a toggle (collapsed at first)."""

    def __init__(self, name: str, arguments: str, ok: bool, summary: str, result: str) -> None:
        super().__init__()
        self.setObjectName("tool-call" if ok else "tool-call-failed")
        self.toggle = QToolButton()
        self.toggle.setObjectName("tool-call-toggle")
        self.toggle.setCheckable(True)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setText(f"{name or 'tool call'}: {summary}")
        self.toggle.setAccessibleName(f"Tool call {name}: {summary}. Show the details")
        self.toggle.toggled.connect(self._expand)
        self.details = QLabel(f"Called with: {arguments}\nResult: {result}")
        self.details.setObjectName("tool-call-details")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setTextInteractionFlags(_TEXT_FLAGS)
        self.details.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 2, 10, 2)
        layout.addWidget(self.toggle)
        layout.addWidget(self.details)

    def _expand(self, expanded: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.details.setVisible(expanded)


class Transcript(QScrollArea):
    """The messages of one conversation, newest at the bottom.

    Signals:
        memory_requested(int): the user asked to see this memory id.
    """

    memory_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setAccessibleName("Conversation")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._content = QWidget()
        self._content.setObjectName("transcript-content")
        self._layout = QVBoxLayout(self._content)
        self._layout.setSpacing(8)
        self._layout.addStretch(1)
        self.setWidget(self._content)
        self._empty = QLabel(_EMPTY)
        self._empty.setObjectName("empty-conversation")
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._layout.insertWidget(0, self._empty)
        self.messages: list[MessageView] = []
        self.verticalScrollBar().rangeChanged.connect(self._follow)
        self._following = True
        self._pinned: MessageView | None = None
        """A message asked for (``show_message``), kept in view until more comes."""

    def clear(self) -> None:
        self.messages = []
        self._pinned = None
        while self._layout.count() > 1:
            item = self._layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None and widget is not self._empty:
                widget.deleteLater()
        self._layout.insertWidget(0, self._empty)
        self._empty.show()
        self._following = True

    def add_message(self, role: str, text: str = "", message_id: int | None = None) -> MessageView:
        view = MessageView(role, text, message_id)
        view.memory_clicked.connect(self.memory_requested)
        self._insert(view)
        self.messages.append(view)
        return view

    def add_notice(self, text: str, name: str = "notice") -> QLabel:
        label = QLabel(text)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextInteractionFlags(_TEXT_FLAGS)
        label.setTextFormat(Qt.TextFormat.PlainText)
        self._insert(label)
        return label

    def add_memory_update(self, text: str, memory_id: int, can_undo: bool) -> MemoryUpdate:
        row = MemoryUpdate(text, memory_id, can_undo)
        row.open_requested.connect(self.memory_requested)
        self._insert(row)
        return row

    def add_tool_call(
        self, name: str, arguments: str, ok: bool, summary: str, result: str
    ) -> ToolCallView:
        row = ToolCallView(name, arguments, ok, summary, result)
        self._insert(row)
        return row

    def plain_text(self) -> str:
        """Everything shown, as text (notices and messages, in order)."""
        parts = []
        for index in range(self._layout.count()):
            item = self._layout.itemAt(index)
            widget = item.widget() if item is not None else None
            if isinstance(widget, MessageView):
                parts.append(f"{widget.speaker.text()}: {widget.text}")
            elif isinstance(widget, MemoryUpdate):
                parts.append(widget.label.text())
            elif isinstance(widget, ToolCallView):
                parts.append(widget.toggle.text())
            elif isinstance(widget, QLabel) and not (widget is self._empty and widget.isHidden()):
                parts.append(widget.text())
        return "\n\n".join(parts)

    def show_message(self, message_id: int) -> bool:
        """Scroll to the message with *message_id* and mark it as the one asked
        for; False if it is not shown (a system event, or deleted)."""
        view = next((v for v in self.messages if v.message_id == message_id), None)
        for other in self.messages:
            if other.property("found") and other is not view:
                _mark_found(other, False)
        if view is None:
            return False
        _mark_found(view, True)
        self._pinned = view  # kept in view while the layout settles
        self._following = False
        self._keep_pinned_in_view()
        return True

    def scroll_to_bottom(self) -> None:
        self._following = True
        self._pinned = None
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _insert(self, widget: QWidget) -> None:
        self._empty.hide()
        self._pinned = None
        bar = self.verticalScrollBar()
        self._following = bar.value() >= bar.maximum() - 4  # the user scrolled up: stay there
        self._layout.insertWidget(self._layout.count() - 1, widget)

    def _follow(self, _minimum: int, maximum: int) -> None:
        if self._pinned is not None:
            self._keep_pinned_in_view()
        elif self._following:
            self.verticalScrollBar().setValue(maximum)

    def _keep_pinned_in_view(self) -> None:
        if self._pinned is not None:
            self.ensureWidgetVisible(self._pinned, 0, self.viewport().height() // 3)


def _mark_found(view: MessageView, found: bool) -> None:
    view.setProperty("found", found)
    view.style().unpolish(view)
    view.style().polish(view)


def _short(text: str) -> str:
    line = " ".join(text.split())
    if len(line) <= _CHIP_CHARS:
        return line
    cut = line[: _CHIP_CHARS - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"
