"""The chat window: a transcript, an input box, Send and Stop.

The window talks to the Qt-free ``ChatService`` and receives streamed text
from a ``ReplyStreamer`` on its own thread.  Re-rendering the transcript is
throttled while a reply streams; the final message is rendered in full.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from PySide6.QtCore import QKeyCombination, Qt, QThread, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeyEvent, QKeySequence, QShortcut, QTextDocument
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop.core.chat import ChatService, Turn
from desktop.core.errors import ReverieError
from desktop.ui.conversation_list import ConversationList
from desktop.ui.reply_streamer import ReplyFailed, ReplyFinished, ReplyStreamer

log = logging.getLogger(__name__)

_RENDER_INTERVAL_MS = 80
_SHUTDOWN_WAIT_S = 5.0
_EMPTY_CONVERSATION = (
    "<p style='color:#8a86a0; margin-top:40px' align='center'>"
    "Say hello. Everything you write stays on this computer.</p>"
)
_SPEAKERS = {"user": "You", "assistant": "Reverie"}
# GitHub-flavoured Markdown, but raw HTML in a message is shown as text, never rendered.
_MARKDOWN = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
    | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
)


W = TypeVar("W", bound=QWidget)


def _named(widget: W, name: str) -> W:
    """*widget* with an object name, which the style sheet and tests refer to."""
    widget.setObjectName(name)
    return widget


@dataclass
class _Entry:
    role: str
    text: str


_FENCE = re.compile(r"(```.*?(?:```|$))", re.DOTALL)
_LONE_NEWLINE = re.compile(r"(?<!\n)\n(?!\n)")


def _keep_line_breaks(text: str) -> str:
    """Markdown joins single newlines into one line; in a chat they are meant.

    Outside code fences each lone newline becomes a hard break.
    """
    parts = _FENCE.split(text)
    return "".join(
        part if part.startswith("```") else _LONE_NEWLINE.sub("  \n", part) for part in parts
    )


class MessageInput(QPlainTextEdit):
    """Enter sends; Shift+Enter starts a new line.

    Signals:
        submitted(): the user pressed Enter.
    """

    submitted = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        is_enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if is_enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.submitted.emit()
            return
        super().keyPressEvent(event)


class ChatWindow(QMainWindow):
    """Signals:
    stream_requested(Job): hands a job to the streamer thread (queued).
    turn_ended(str): a reply finished, stopped or failed; the new status text.
    chat_availability_changed(bool): chatting was enabled or disabled.
    """

    stream_requested = Signal(object)
    turn_ended = Signal(str)
    chat_availability_changed = Signal(bool)

    def __init__(
        self, chat: ChatService | None, conversation_id: int | None, *, hide_on_close: bool
    ) -> None:
        super().__init__()
        self._hide_on_close = hide_on_close
        self.setWindowTitle("Reverie")
        self.resize(900, 640)
        self._chat = chat
        self._conversation_id = conversation_id
        self._entries: list[_Entry] = []
        self._turn: Turn | None = None
        self._build()
        self._start_streamer()
        self._render_timer = QTimer(self, interval=_RENDER_INTERVAL_MS, singleShot=True)
        self._render_timer.timeout.connect(self._render)
        self._load_history()
        self.set_chat_available(chat is not None, "")

    # -- construction --------------------------------------------------------
    def _build(self) -> None:
        self.banner = _named(QLabel(), "banner")
        self.banner.setWordWrap(True)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.hide()
        self.transcript = _named(QTextBrowser(), "transcript")
        self.transcript.setAccessibleName("Conversation")
        self.transcript.setOpenExternalLinks(False)
        self.input = _named(MessageInput(), "input")
        self.input.setAccessibleName("Message")
        self.input.setPlaceholderText("Write a message. Enter sends, Shift+Enter adds a line.")
        self.input.setFixedHeight(84)
        self.input.submitted.connect(self.send)
        self.send_button = _named(QPushButton("Send"), "send")
        self.send_button.setAccessibleName("Send message")
        self.send_button.clicked.connect(self.send)
        self.stop_button = _named(QPushButton("Stop"), "stop")
        self.stop_button.setAccessibleName("Stop the reply")
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.setEnabled(False)
        QShortcut(QKeySequence(QKeyCombination(Qt.Key.Key_Escape)), self, self.stop)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.send_button)
        layout = QVBoxLayout()
        layout.addWidget(self.banner)
        layout.addWidget(self.transcript, 1)
        layout.addWidget(self.input)
        layout.addLayout(buttons)
        chat_pane = QWidget()
        chat_pane.setLayout(layout)
        self.conversation_list = ConversationList()
        self.conversation_list.selected.connect(self.open_conversation)
        self.conversation_list.search_changed.connect(self._refresh_list)
        self.conversation_list.new_requested.connect(self.new_conversation)
        self.conversation_list.rename_requested.connect(self.rename_conversation)
        self.conversation_list.delete_requested.connect(self.delete_conversation)
        QShortcut(QKeySequence(QKeySequence.StandardKey.New), self, self.new_conversation)
        splitter = QSplitter()
        splitter.addWidget(self.conversation_list)
        splitter.addWidget(chat_pane)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([200, 620])
        self.setCentralWidget(splitter)
        self.setFocusProxy(self.input)
        self.input.setFocus()
        self.statusBar().showMessage("Starting…")

    def _start_streamer(self) -> None:
        self._thread = QThread(self)
        self._thread.setObjectName("reply-streamer")
        self._streamer = ReplyStreamer()
        self._streamer.moveToThread(self._thread)
        self._thread.finished.connect(self._streamer.deleteLater)
        self.stream_requested.connect(self._streamer.stream)
        self._streamer.chunk.connect(self._on_chunk)
        self._streamer.finished.connect(self._on_finished)
        self._streamer.failed.connect(self._on_failed)
        self._thread.start()

    def _load_history(self) -> None:
        self._refresh_list()
        if self._chat is None or self._conversation_id is None:
            return
        self._entries = [
            _Entry(m.role, m.content)
            for m in self._chat.history(self._conversation_id)
            if m.role in _SPEAKERS
        ]
        self._render()

    # -- conversations -------------------------------------------------------
    @property
    def conversation_id(self) -> int | None:
        return self._conversation_id

    def _refresh_list(self, query: str | None = None) -> None:
        if self._chat is None:
            return
        text = self.conversation_list.search.text() if query is None else query
        self.conversation_list.show_conversations(
            self._chat.conversations(text), self._conversation_id
        )

    def open_conversation(self, conversation_id: int) -> None:
        if self._turn is not None:
            self.set_status("Stop the reply before switching conversations")
            self._refresh_list()
            return
        self._conversation_id = conversation_id
        self._load_history()
        self.input.setFocus()

    def new_conversation(self) -> None:
        if self._chat is not None and self._turn is None:
            self._guarded(lambda chat: self.open_conversation(chat.new_conversation().id))

    def rename_conversation(self, conversation_id: int) -> None:
        if self._chat is None:
            return
        conversation = self._chat.conversation(conversation_id)
        current = conversation.title if conversation is not None else ""
        title, accepted = QInputDialog.getText(
            self, "Rename conversation", "New name:", text=current
        )
        if accepted:
            self._guarded(lambda chat: chat.rename(conversation_id, title))
            self._refresh_list()

    def delete_conversation(self, conversation_id: int) -> None:
        if self._chat is None or (
            self._turn is not None and conversation_id == self._conversation_id
        ):
            return
        answer = QMessageBox.question(
            self,
            "Delete conversation",
            "Delete this conversation? It disappears from the list; what Reverie "
            "learned from it stays in its memory.",
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        self._guarded(lambda chat: chat.delete(conversation_id))
        if conversation_id == self._conversation_id:
            self._guarded(lambda chat: self.open_conversation(chat.latest_or_new_conversation().id))
        self._refresh_list()

    def _guarded(self, action: Callable[[ChatService], object]) -> None:
        """Run *action* on the chat service; a storage problem goes to the banner."""
        assert self._chat is not None
        try:
            action(self._chat)
        except ReverieError as error:
            self.show_problem(f"That did not work: {error}")

    # -- state ---------------------------------------------------------------
    def set_chat_available(self, available: bool, reason: str) -> None:
        """Enable chatting, or disable it and show *reason* in the banner."""
        self._available = available and self._chat is not None
        self.send_button.setEnabled(self._available and self._turn is None)
        if reason:
            self.show_problem(reason)
        self.statusBar().showMessage("Ready" if self._available else "Chat is unavailable")
        self.chat_availability_changed.emit(self._available)

    def show_problem(self, message: str) -> None:
        self.banner.setText(message)
        self.banner.show()

    def set_status(self, message: str) -> None:
        self.statusBar().showMessage(message)

    @property
    def busy(self) -> bool:
        return self._turn is not None

    # -- sending and streaming ----------------------------------------------
    def send(self) -> None:
        text = self.input.toPlainText().strip()
        if not text or self._turn is not None or not self._available:
            return
        assert self._chat is not None and self._conversation_id is not None
        try:
            self._turn = self._chat.send(self._conversation_id, text)
        except ReverieError as error:
            self.show_problem(f"Your message was not sent: {error}")  # the text stays in the box
            return
        self.input.clear()
        self._refresh_list()  # the conversation moved to the top, maybe with a new title
        self._entries += [_Entry("user", text), _Entry("assistant", "")]
        self.send_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.set_status("Reading the conversation…")
        self._render()
        self.stream_requested.emit(self._turn.job)

    def stop(self) -> None:
        if self._turn is not None:
            self._turn.job.cancel()
            self.set_status("Stopping…")

    def _on_chunk(self, text: str) -> None:
        if self._turn is None:
            return
        self._entries[-1].text += text
        self.set_status("Replying…")
        if not self._render_timer.isActive():
            self._render_timer.start()

    def _on_finished(self, result: ReplyFinished) -> None:
        turn, self._turn = self._turn, None
        if turn is None or self._chat is None:
            return
        self._entries[-1].text = result.text
        try:
            self._chat.record_reply(turn, result.text, result.finish_reason)
        except ReverieError as error:
            self.show_problem(f"The reply could not be saved: {error}")
        self._end_turn("Stopped" if result.finish_reason == "cancelled" else "Ready")

    def _on_failed(self, failure: ReplyFailed) -> None:
        self._turn = None
        if self._entries and self._entries[-1].role == "assistant" and not self._entries[-1].text:
            self._entries.pop()
        self.show_problem(f"The model could not reply: {failure.message}")
        self._end_turn("Failed")

    def _end_turn(self, status: str) -> None:
        self._render_timer.stop()
        self._render()
        self.stop_button.setEnabled(False)
        self.send_button.setEnabled(self._available)
        self.set_status(status)
        self.input.setFocus()
        self.turn_ended.emit(status)

    def _render(self) -> None:
        if not self._entries:
            self.transcript.setHtml(_EMPTY_CONVERSATION)
            return
        blocks = [
            f"**{_SPEAKERS[e.role]}**\n\n{_keep_line_breaks(e.text) or '…'}" for e in self._entries
        ]
        self.transcript.document().setMarkdown("\n\n---\n\n".join(blocks), _MARKDOWN)
        bar = self.transcript.verticalScrollBar()
        bar.setValue(bar.maximum())

    # -- shutdown ------------------------------------------------------------
    def shutdown(self) -> None:
        """Stop a reply in flight (keeping what was said) and the streamer thread."""
        turn, self._turn = self._turn, None
        if turn is not None and self._chat is not None:
            turn.job.cancel()
            try:
                partial = turn.job.result(timeout=_SHUTDOWN_WAIT_S)
                self._chat.record_reply(turn, partial, "cancelled")
            except Exception:  # quitting must not fail; the question itself is stored
                log.exception("could not keep the unfinished reply")
        self._thread.quit()
        self._thread.wait()

    def closeEvent(self, event: QCloseEvent) -> None:
        # The user closing the window (a spontaneous event) only hides it: the
        # app lives on in the tray.  Quitting the app closes windows with a
        # non-spontaneous event, and refusing that would cancel the quit.
        if self._hide_on_close and event.spontaneous():
            event.ignore()
            self.hide()
        else:
            super().closeEvent(event)
