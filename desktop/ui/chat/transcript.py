"""The transcript: one widget per message, notices between them.

Each message renders its Markdown on its own, so a streaming reply
re-renders only itself (throttled); the finished message is rendered in
full.  Every message has a Copy button that copies its whole text, however
much of it is shown.

Every row's height follows its width (word-wrapped text, chips that flow into
rows) and no row asks for more width than a word or a chip: a run of
characters with no place to break (a 300-character token) is given some.  So
the scroll range is exactly the rows' height, and nothing is wider than the
view.  The rows stand in a column at most ``READING_WIDTH`` wide, centred.

The view follows the newest row while the user has not scrolled away (wheel,
scroll bar, keys, moving the focus); while they read above, a "Jump to
latest" button floats over the bottom of the view.  A long conversation is
shown from its end: a row at the top says how many earlier messages are not
shown, and its button (or scrolling to the top) puts them in above
(``offer_earlier``, ``above``), the row the user was reading kept in view.

Keyboard and screen readers: each message is one focus stop named by its
speaker, with its text as the description; Tab goes on to its buttons and then
to the next message, Up/Down/Home/End move between messages, Enter moves into
the text to select it or reach its links.  A reply announces its end once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from PySide6.QtCore import QEvent, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAccessible,
    QAccessibleAnnouncementEvent,
    QGuiApplication,
    QIcon,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QResizeEvent,
    QTextDocumentFragment,
)
from PySide6.QtWidgets import (
    QApplication,
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
from desktop.core.db.message_search import Excerpt
from desktop.ui.chat.markdown import MAX_RENDERED_CHARS, render_markdown, render_plain
from desktop.ui.chat.transcript_rows import (
    TEXT_FLAGS,
    ActionNotice,
    MemoryUpdate,
    ToolCallView,
    WrappedLabel,
)
from desktop.ui.widgets.bidi import stored_order
from desktop.ui.widgets.flow_layout import FlowLayout
from desktop.ui.widgets.labels import plain_tip
from desktop.ui.widgets.line_breaks import breakable_html

STREAM_RENDER_MS = 100
"""While a reply streams, its Markdown is rendered at most this often."""

MAX_CHIPS = 5
"""Memory chips shown under a reply; the rest are counted."""

READING_WIDTH = 800
"""The column of messages is at most this wide: lines of 1,700 px are hard to read."""

AT_END_PX = 4
"""Scrolled to within this of the end is at the end: the view follows new rows."""

_SIDE_MARGIN = 8
_CHIP_CHARS = 28
_SPEAKERS = {"user": "You", "assistant": "Reverie", "seed": "Reverie"}
_EMPTY = "Say hello. Everything you write stays on this computer."
_ANNOUNCED_CHARS = 2_000
"""A finished reply is read out up to here; the rest is in the message."""


class MessageView(QFrame):
    """One message: who said it, a Copy button, the rendered text and, for a
    reply, chips naming the memories it was given.

    Signals:
        copied(): the message's text went to the clipboard.
        memory_clicked(int): the chip of this memory id was clicked.
        excerpt_clicked(int, int): the chip of an excerpt was clicked: the
            conversation and the message it is of.
        announced(str): the end of this reply was announced to assistive
            technology (a screen reader), with this text.
    """

    copied = Signal()
    memory_clicked = Signal(int)
    excerpt_clicked = Signal(int, int)
    announced = Signal(str)

    def __init__(
        self, role: str, text: str, message_id: int | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.role = role
        self.message_id = message_id
        """The stored message shown (None while a reply is still streaming)."""
        self._text = text
        self._streaming = False
        self._announced = False
        self._rendered_dark = False
        self.setObjectName(f"message-{'user' if role == 'user' else 'assistant'}")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # one stop per message, read out whole
        self.speaker = _SpeakerLabel(_SPEAKERS.get(role, role.title()), self)
        self.speaker.setObjectName("speaker")
        self.setAccessibleName(self.speaker.text())
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
        self.body.setTextInteractionFlags(TEXT_FLAGS)
        # The message itself is the Tab stop that reads the text; Enter (or a
        # click) moves into the text.  Set after the flags, which reset it.
        self.body.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.body.setOpenExternalLinks(False)
        header = self._header = QHBoxLayout()
        header.addWidget(self.speaker)
        header.addStretch(1)
        header.addWidget(self.copy_button)
        self.chips = FlowLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 8)
        layout.addLayout(header)
        layout.addWidget(self.body)
        layout.addLayout(self.chips)
        self._render_timer = QTimer(self, singleShot=True, interval=STREAM_RENDER_MS)
        self._render_timer.timeout.connect(self._render)
        self._render()

    @property
    def text(self) -> str:
        return self._text

    def add_action(self, text: str, accessible_name: str, tip: str) -> QToolButton:
        """A button beside Copy (e.g. Regenerate on the last reply)."""
        button = QToolButton()
        button.setObjectName("message-action")
        button.setText(text)
        button.setAccessibleName(accessible_name)
        button.setToolTip(tip)
        self._header.insertWidget(self._header.count() - 1, button)
        return button

    def append(self, piece: str) -> None:
        """More streamed text; rendered at the next tick of the throttle."""
        self._text += piece
        self._streaming = True
        if not self._render_timer.isActive():
            self._render_timer.start()

    def finish(self, text: str) -> None:
        """The final text, rendered in full now.  A reply (not the user's
        message, not one loaded from history) announces its end once."""
        self._render_timer.stop()
        self._text = text
        self._streaming = False
        self._render()
        self.announce_finished()

    def announce_finished(self) -> None:
        """Tell a screen reader this reply ended, and what it says; only once."""
        if self.role == "user" or self._announced or not self._text.strip():
            return
        self._announced = True
        spoken = _spoken(self.accessibleDescription(), _ANNOUNCED_CHARS)
        message = f"{self.speaker.text()} said: {spoken}"
        QAccessible.updateAccessibility(QAccessibleAnnouncementEvent(self, message))
        self.announced.emit(message)

    def show_memories(self, memories: Sequence[Memory]) -> None:
        """A chip per memory the reply was given; clicking one opens it."""
        for memory in memories[:MAX_CHIPS]:
            chip = QToolButton()
            chip.setObjectName("memory-chip")
            chip.setText(_label(f"#{memory.id} {_short(memory.content)}"))
            chip.setToolTip(plain_tip(f"Reverie recalled: {memory.content}\nClick to open it."))
            chip.setAccessibleName(f"Recalled memory {memory.id}: {memory.content}")
            chip.clicked.connect(lambda _=False, i=memory.id: self.memory_clicked.emit(i))
            self.chips.addWidget(chip)
        if len(memories) > MAX_CHIPS:
            more = QLabel(f"+{len(memories) - MAX_CHIPS} more")
            more.setObjectName("memory-chip-more")
            self.chips.addWidget(more)

    def show_excerpts(self, excerpts: Sequence[Excerpt]) -> None:
        """A chip per excerpt of another conversation the reply was given;
        clicking one opens that conversation at that message."""
        for excerpt in excerpts[:MAX_CHIPS]:
            sent = datetime.fromtimestamp(excerpt.created_at).astimezone()
            title = excerpt.conversation_title
            chip = QToolButton()
            chip.setObjectName("excerpt-chip")
            chip.setText(
                _label(f"{_short(title, 18)}, {sent:%d %b}: {_short(excerpt.content, 22)}")
            )
            chip.setToolTip(
                plain_tip(
                    f"Reverie recalled from “{title}” ({sent:%Y-%m-%d %H:%M}): "
                    f"{_short(excerpt.content, 200)}\nClick to open that conversation there."
                )
            )
            chip.setAccessibleName(f"Recalled from the conversation {title}: {excerpt.content}")
            ids = (excerpt.conversation_id, excerpt.message_id)
            chip.clicked.connect(lambda _=False, ids=ids: self.excerpt_clicked.emit(*ids))
            self.chips.addWidget(chip)

    @property
    def memory_chips(self) -> list[QToolButton]:
        return self._chips("memory-chip")

    @property
    def excerpt_chips(self) -> list[QToolButton]:
        return self._chips("excerpt-chip")

    def _chips(self, name: str) -> list[QToolButton]:
        widgets = (self.chips.itemAt(i).widget() for i in range(self.chips.count()))  # type: ignore[union-attr]
        return [w for w in widgets if isinstance(w, QToolButton) and w.objectName() == name]

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self._text)
        self.copied.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.body.setFocus(Qt.FocusReason.OtherFocusReason)
        else:  # arrows and the rest go up to the transcript
            super().keyPressEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        # The Markdown's colours are for a light or a dark background.
        if event.type() == QEvent.Type.PaletteChange and _is_dark(self) != self._rendered_dark:
            self._render()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.hasFocus():  # drawn here: the style sheet draws the frame, not a focus ring
            painter = QPainter(self)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(QPen(self.palette().color(QPalette.ColorRole.Highlight), 2))
            painter.drawRoundedRect(QRectF(self.rect()).adjusted(1, 1, -1, -1), 8, 8)

    def _render(self) -> None:
        if not self._text:
            self.body.setText("…")
            self.setAccessibleDescription("")
            return
        if self.role == "user":  # what the user typed is shown as typed
            html = render_plain(self._text)
            described = _spoken(self._text, MAX_RENDERED_CHARS)
        else:
            self._rendered_dark = _is_dark(self)
            html = render_markdown(self._text, dark=self._rendered_dark)
            # Read out as rendered, not as Markdown ("**" said as stars), once
            # finished: converting the HTML every 100 ms would slow the stream.
            described = self._text if self._streaming else _html_text(html)
        self.body.setText(breakable_html(html))
        self.setAccessibleDescription(described)


class _SpeakerLabel(QLabel):
    """Who said a message; a new name (say, "Reverie · reminder of task #4")
    renames the message for screen readers too."""

    def __init__(self, text: str, message: QWidget) -> None:
        super().__init__(text)
        self._message = message

    def setText(self, text: str, /) -> None:
        super().setText(text)
        self._message.setAccessibleName(text)


class Transcript(QScrollArea):
    """The messages of one conversation, newest at the bottom.

    Signals:
        memory_requested(int): the user asked to see this memory id.
        latest_requested(): the user asked for the latest message while
            later ones are not shown (``offer_later``): the conversation's
            end is to be shown in place of what is.
        end_shown(): the conversation's last message is shown (offered
            no later ones, ``offer_later``).
    """

    memory_requested = Signal(int)
    excerpt_requested = Signal(int, int)
    latest_requested = Signal()
    end_shown = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setAccessibleName("Conversation")
        self.setAccessibleDescription(
            "Tab, or Up and Down, moves from message to message; Enter moves into a "
            "message's text; End jumps to the latest message."
        )
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._content = QWidget()
        self._content.setObjectName("transcript-content")
        # As wide as the view, whatever a row asks: a row that cannot shrink
        # is cut, rather than every row made wider than the view.
        self._content.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._layout = QVBoxLayout(self._content)
        self._layout.setSpacing(8)
        self._layout.addStretch(1)  # a short conversation stands at the top
        self.setWidget(self._content)
        self._empty = QLabel(_EMPTY)
        self._empty.setObjectName("empty-conversation")
        self._empty.setWordWrap(True)
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._layout.insertWidget(0, self._empty)
        self._earlier = ActionNotice("", "earlier-messages")
        self._earlier_button = self._earlier.add_button("Show earlier", "Show earlier messages")
        self._earlier_button.clicked.connect(self._show_earlier)
        self._show_more: Callable[[], object] | None = None
        self._layout.insertWidget(1, self._earlier)
        self._earlier.hide()
        self._later = ActionNotice("", "later-messages")
        self._later_button = self._later.add_button("Show later", "Show later messages")
        self._later_button.clicked.connect(self._show_later)
        self._show_more_below: Callable[[], object] | None = None
        self._layout.insertWidget(2, self._later)
        self._later.hide()
        self._above: list[int] | None = None
        """While rows go in above (``above``): where the next one goes, in
        the layout and in ``messages``."""
        self.messages: list[MessageView] = []
        self._following = True
        self._scrolling = False
        """Set while the view scrolls itself: only other scrolling is the user's."""
        self._unseen = False
        """Rows came below while the user read above."""
        self._pinned: QWidget | None = None
        """A message asked for (``show_message``), or the row that was first
        before earlier ones came (``above``), kept in view until more comes."""
        self.jump_button = QToolButton(self)
        self.jump_button.setObjectName("jump-to-latest")
        self.jump_button.setAccessibleName("Jump to the latest message")
        self.jump_button.setToolTip("Show the latest message and follow new ones (End)")
        self.jump_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.jump_button.clicked.connect(self._jump_to_latest)
        self.jump_button.hide()
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._on_range_changed)
        bar.valueChanged.connect(self._on_scrolled)

    @property
    def following(self) -> bool:
        """Whether the view keeps the newest row in sight as rows come and grow."""
        return self._following

    def clear(self) -> None:
        self.messages = []
        self._pinned = None
        while self._layout.count() > 1:
            item = self._layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None and widget not in (self._empty, self._earlier, self._later):
                widget.deleteLater()
        self._layout.insertWidget(0, self._empty)
        self._layout.insertWidget(1, self._earlier)
        self._layout.insertWidget(2, self._later)
        self._empty.show()
        self.offer_earlier(0, None)
        self.offer_later(0, None)
        self._set_following(True)

    def offer_earlier(self, hidden: int, show: Callable[[], object] | None) -> None:
        """Say at the top that *hidden* earlier messages are not shown, with
        a button that calls *show* (which puts some in, ``above``); no row
        when *hidden* is 0."""
        self._show_more = show if hidden else None
        _say_hidden(self._earlier, self._earlier_button, hidden, "earlier")

    def offer_later(self, hidden: int, show: Callable[[], object] | None) -> None:
        """Say at the bottom that *hidden* later messages are not shown, with
        a button that calls *show* (which puts some in, ``below``); no row
        when *hidden* is 0."""
        self._show_more_below = show if hidden else None
        _say_hidden(self._later, self._later_button, hidden, "later")
        self._update_jump_button()
        if show is not None and not hidden:
            self.end_shown.emit()

    @property
    def later_hidden(self) -> bool:
        """Whether messages after the last shown are not shown (``offer_later``):
        a row added now would not follow the conversation's last."""
        return self._show_more_below is not None

    @contextmanager
    def below(self) -> Iterator[None]:
        """Rows added inside are later messages: the row that was last stays
        in view, and they are not new (no "New messages")."""
        last = self.messages[-1] if self.messages else None
        yield
        if last is not None:
            self._pinned = last
            self._unseen = False
            self._set_following(False)
            self._keep_pinned_in_view()

    @contextmanager
    def above(self) -> Iterator[None]:
        """Rows added inside go above the rows shown, in the order added; the
        row that was first stays in view."""
        first = self._layout.itemAt(self._layout.indexOf(self._earlier) + 1)
        anchor = first.widget() if first is not None else None
        self._above = [self._layout.indexOf(self._earlier) + 1, 0]
        try:
            yield
        finally:
            self._above = None
        if anchor is not None:
            self._pinned = anchor
            self._set_following(False)
            self._keep_pinned_in_view()

    def _show_earlier(self) -> None:
        if self._show_more is not None:
            self._show_more()

    def _show_later(self) -> None:
        if self._show_more_below is not None:
            self._show_more_below()

    def add_message(self, role: str, text: str = "", message_id: int | None = None) -> MessageView:
        view = MessageView(role, text, message_id)
        view.memory_clicked.connect(self.memory_requested)
        view.excerpt_clicked.connect(self.excerpt_requested)
        self._insert(view)
        if self._above is None:
            self.messages.append(view)
        else:
            self.messages.insert(self._above[1], view)
            self._above[1] += 1
        return view

    def add_notice(self, text: str, name: str = "notice") -> QLabel:
        label = WrappedLabel(text, name)
        self._insert(label)
        return label

    def add_action_notice(self, text: str) -> ActionNotice:
        """A notice with buttons (``ActionNotice.add_button``)."""
        row = ActionNotice(text)
        self._insert(row)
        return row

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
            if widget is None or (
                widget in (self._empty, self._earlier, self._later) and widget.isHidden()
            ):
                continue
            if isinstance(widget, MessageView):
                parts.append(f"{widget.speaker.text()}: {widget.text}")
            elif isinstance(widget, ActionNotice):
                parts.append(widget.label.original)
            elif isinstance(widget, ToolCallView):
                parts.append(widget.toggle.text())
            elif isinstance(widget, WrappedLabel):
                parts.append(widget.original)
            elif widget is self._empty:
                parts.append(widget.text())
        return "\n\n".join(parts)

    def view_of(self, message_id: int) -> MessageView | None:
        """The shown message with *message_id*; None if it is not shown."""
        return next((v for v in self.messages if v.message_id == message_id), None)

    def show_message(self, message_id: int) -> bool:
        """Scroll to the message with *message_id* and mark it as the one asked
        for; False if it is not shown (a system event, or deleted)."""
        view = self.view_of(message_id)
        for other in self.messages:
            if other.property("found") and other is not view:
                _mark_found(other, False)
        if view is None:
            return False
        _mark_found(view, True)
        self._pinned = view  # kept in view while the layout settles
        self._set_following(False)
        self._keep_pinned_in_view()
        return True

    def show_latest(self) -> None:
        """Show the conversation's latest message: the newest row, or, were
        later messages not shown, the conversation's end (``latest_requested``)."""
        if self.later_hidden:
            self.latest_requested.emit()
        else:
            self.scroll_to_bottom()

    def scroll_to_bottom(self) -> None:
        """Show the newest row and follow new ones from now on."""
        self._pinned = None
        self._set_following(True)
        self._scroll_to(self.verticalScrollBar().maximum())

    # -- events ----------------------------------------------------------------
    def resizeEvent(self, event: QResizeEvent) -> None:
        # Also called when only the viewport changed (the scroll bar came or went).
        self._fit_column()
        super().resizeEvent(event)
        self._place_jump_button()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        focused = QApplication.focusWidget()
        current = focused if isinstance(focused, MessageView) else None
        if current not in self.messages or not self._move_focus(current, Qt.Key(event.key())):
            super().keyPressEvent(event)  # the scroll area's own keys: pages, arrows

    # -- following the newest row ------------------------------------------------
    def _insert(self, widget: QWidget) -> None:
        self._empty.hide()
        if self._above is not None:  # older rows: nothing new below
            self._layout.insertWidget(self._above[0], widget)
            self._above[0] += 1
            return
        self._pinned = None
        if not self._following:
            self._unseen = True
        self._layout.insertWidget(self._layout.indexOf(self._later), widget)
        self._update_jump_button()

    def _on_range_changed(self, _minimum: int, maximum: int) -> None:
        """The rows' height changed (a row came or grew, the width changed)."""
        if self._pinned is not None:
            self._keep_pinned_in_view()
        elif self._following:
            self._scroll_to(maximum)
        elif self.verticalScrollBar().value() >= maximum - AT_END_PX:
            self._scroll_to(maximum)  # what was below went: the user is at the end
            self._set_following(True)
        self._update_jump_button()

    def _on_scrolled(self, value: int) -> None:
        if self._scrolling:
            return
        # The user scrolled (or moved the focus): follow only from the end.
        self._pinned = None
        self._set_following(value >= self.verticalScrollBar().maximum() - AT_END_PX)
        if value == self.verticalScrollBar().minimum() and self._show_more is not None:
            # Scrolled to the top: the earlier messages come as if asked for
            # (once the scroll is over: they are put in above, moving it).
            QTimer.singleShot(0, self._show_earlier)
        elif value == self.verticalScrollBar().maximum() and self.later_hidden:
            QTimer.singleShot(0, self._show_later)  # and at the bottom, the later ones

    def _scroll_to(self, value: int) -> None:
        self._scrolling = True
        try:
            self.verticalScrollBar().setValue(value)
        finally:
            self._scrolling = False

    def _keep_pinned_in_view(self) -> None:
        if self._pinned is not None:
            self._scrolling = True
            try:
                self.ensureWidgetVisible(self._pinned, 0, self.viewport().height() // 3)
            finally:
                self._scrolling = False

    def _set_following(self, following: bool) -> None:
        self._following = following
        if following:
            self._unseen = False
        self._update_jump_button()

    def _jump_to_latest(self) -> None:
        had_focus = self.jump_button.hasFocus()
        self.show_latest()
        if had_focus and self.messages:  # the button is gone: focus the message it showed
            self.messages[-1].setFocus(Qt.FocusReason.OtherFocusReason)

    def _update_jump_button(self) -> None:
        show = self.later_hidden or (not self._following and self.verticalScrollBar().maximum() > 0)
        self.jump_button.setText("↓ New messages" if self._unseen else "↓ Jump to latest")
        if show:
            self._place_jump_button()
            self.jump_button.raise_()
        self.jump_button.setVisible(show)

    def _place_jump_button(self) -> None:
        hint = self.jump_button.sizeHint()
        area = self.viewport().geometry()
        x = area.x() + (area.width() - hint.width()) // 2
        y = area.y() + area.height() - hint.height() - 12
        self.jump_button.setGeometry(x, y, hint.width(), hint.height())

    # -- width -----------------------------------------------------------------
    def _fit_column(self) -> None:
        """Side margins that keep the column of rows at most READING_WIDTH, centred."""
        side = max(_SIDE_MARGIN, (self.viewport().width() - READING_WIDTH) // 2)
        if self._layout.contentsMargins().left() != side:
            self._layout.setContentsMargins(side, _SIDE_MARGIN, side, _SIDE_MARGIN)

    def _move_focus(self, current: MessageView, key: Qt.Key) -> bool:
        """Up/Down/Home/End from message *current*; False for other keys."""
        index = self.messages.index(current)
        targets = {
            Qt.Key.Key_Up: max(index - 1, 0),
            Qt.Key.Key_Down: min(index + 1, len(self.messages) - 1),
            Qt.Key.Key_Home: 0,
            Qt.Key.Key_End: len(self.messages) - 1,
        }
        if key not in targets:
            return False
        target = self.messages[targets[key]]
        target.setFocus(Qt.FocusReason.OtherFocusReason)
        if key == Qt.Key.Key_End:
            self.show_latest()
        else:
            self.ensureWidgetVisible(target, 0, 0)  # the user's move: following stops above
        return True


def _say_hidden(row: ActionNotice, button: QToolButton, hidden: int, which: str) -> None:
    """*row* says that *hidden* *which* ("earlier", "later") messages are
    not shown; hidden itself when none are."""
    noun = "message is" if hidden == 1 else "messages are"
    row.label.set_text(f"{hidden:,} {which} {noun} not shown.")
    button.setAccessibleName(f"Show {which} messages ({hidden:,} not shown)")
    row.setVisible(bool(hidden))


def _mark_found(view: MessageView, found: bool) -> None:
    view.setProperty("found", found)
    view.style().unpolish(view)
    view.style().polish(view)


def _label(text: str) -> str:
    """*text* as a button shows it: an "&" the user wrote ("R&D budget") is
    no mnemonic, which would give the button a shortcut (Alt+D); in its
    stored order."""
    return stored_order(text).replace("&", "&&")


def _short(text: str, chars: int = _CHIP_CHARS) -> str:
    line = " ".join(text.split())
    if len(line) <= chars:
        return line
    cut = line[: chars - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


def _is_dark(widget: QWidget) -> bool:
    return widget.palette().color(QPalette.ColorRole.Window).lightness() < 128


def _html_text(html: str) -> str:
    return QTextDocumentFragment.fromHtml(html).toPlainText()


def _spoken(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters in the message)"
