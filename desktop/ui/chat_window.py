"""The chat window: conversations on the side, the transcript, the input box.

The window talks to the Qt-free ``ChatService``; every turn, compaction and
slash command that may wait on the model runs on a ``Worker`` thread, whose
signals update the transcript.  The window never blocks on the model.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QKeyCombination, Qt, Signal, SignalInstance
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.core import agenda, commands, routines
from desktop.core.chat import (
    ChatService,
    Reply,
    Stage,
    Turn,
    TurnListener,
    stored_tool_call,
    visible_text,
)
from desktop.core.commands import Command
from desktop.core.compaction import CompactionResult
from desktop.core.db import Message
from desktop.core.errors import ReverieError
from desktop.core.memory_service import Remembered
from desktop.core.tools import ToolCall
from desktop.ui.chat_banners import ProblemBanner, RolesBanner, SuggestionCard
from desktop.ui.conversation_list import ConversationList
from desktop.ui.message_input import EditingBar, MessageInput
from desktop.ui.transcript import MemoryUpdate, MessageView, Transcript
from desktop.ui.worker import TaskDone, TaskFailed, WorkerThread

log = logging.getLogger(__name__)

_SHUTDOWN_WAIT_S = 5.0
_STAGE_STATUS = {
    Stage.COMPACTING: "Summarising older messages to make room…",
    Stage.READING: "Reading the conversation…",
    Stage.REPLYING: "Replying…",
}
_OFF_RECORD = "Off the record: nothing said here is kept in Reverie's memory."
_NO_DREAMING = "Dreaming is not available yet: memory consolidation arrives in a later version."
_MODEL_COMMANDS = ("new", "compact")
"""Commands that wait on the chat model; the others work without one."""

W = TypeVar("W", bound=QWidget)
R = TypeVar("R")


def _named(widget: W, name: str) -> W:
    """*widget* with an object name, which the style sheet and tests refer to."""
    widget.setObjectName(name)
    return widget


def _opener(label: str, name: str, accessible: str, tip: str) -> QPushButton:
    """A button under the chat that opens another window."""
    button = _named(QPushButton(label), name)
    button.setAccessibleName(accessible)
    button.setToolTip(tip)
    return button


def _unprompted(message: Message) -> str:
    """How Reverie came to say *message* unasked ("" for a reply): a task's
    reminder, a routine's answer, or what a review of the tasks did."""
    metadata = message.metadata or {}
    kind, task = metadata.get(routines.KIND), metadata.get(routines.TASK)
    if kind == agenda.AGENDA_REVIEW:
        return "went over your tasks"
    if kind in ("reminder", "routine"):
        return f"{kind} of task #{task}"
    return ""


class ChatWindow(QMainWindow):
    """Signals:
    turn_ended(str): a turn or command finished, stopped or failed; the new status.
    chat_availability_changed(bool): chatting was enabled or disabled.
    dream_requested(): the user typed /dream.
    busy_changed(bool): a turn or command started (True) or ended (False).
    memories_requested(): the user asked for the memory browser.
    memory_requested(int): the user asked to see this memory id (a chip, Open).
    tasks_requested(): the user asked for the tasks window.
    skills_requested(): the user asked for the skill editor.
    dream_report_requested(): the user asked for the dream report.
    settings_requested(): the user asked for the settings window.
    models_requested(): the user asked for the Models page (no chat model).
    suggestion_accepted(): the user wants to choose the suggested model.
    suggestion_dismissed(): "Not now" on the model suggestion.
    """

    turn_ended = Signal(str)
    chat_availability_changed = Signal(bool)
    dream_requested = Signal()
    busy_changed = Signal(bool)
    memories_requested = Signal()
    memory_requested = Signal(int)
    tasks_requested = Signal()
    skills_requested = Signal()
    dream_report_requested = Signal()
    settings_requested = Signal()
    models_requested = Signal()
    suggestion_accepted = Signal()
    suggestion_dismissed = Signal()

    def __init__(
        self, chat: ChatService | None, conversation_id: int | None, *, hide_on_close: bool
    ) -> None:
        super().__init__()
        self._hide_on_close = hide_on_close
        self.setWindowTitle("Reverie")
        self.resize(960, 680)
        self._chat = chat
        self._conversation_id = conversation_id
        self._turn: Turn | None = None
        self._busy = False
        self._queued: Turn | None = None
        """A message sent while the greeting is written: answered right after it."""
        self._editing = False
        self._streaming: MessageView | None = None
        self._after: Callable[[object], None] | None = None
        self.dreaming_available = False
        self._build()
        self._worker = WorkerThread("chat-worker", self)
        self._connect_worker()
        self._available = False  # until the chat model is loaded: set_chat_available
        self._show_conversation(conversation_id)
        self.set_status(self._idle_status())

    # -- construction --------------------------------------------------------
    def _build(self) -> None:
        self.banner = ProblemBanner()
        self.banner.fix_requested.connect(self.models_requested)
        self.off_record_label = _named(QLabel(_OFF_RECORD), "off-record")
        self.off_record_label.setAccessibleName("Off the record")
        self.off_record_label.hide()
        self.transcript = Transcript()
        self.transcript.memory_requested.connect(self.memory_requested)
        self.input = _named(MessageInput(), "input")
        self.input.setAccessibleName("Message")
        self.input.setPlaceholderText(
            "Write a message. Enter sends, Shift+Enter adds a line, /help lists commands."
        )
        self.input.setAccessibleDescription(
            "Enter sends, Shift+Enter adds a line, Tab moves on, Ctrl+Tab types a tab, "
            "Up in an empty box edits your last message."
        )
        self.input.setFixedHeight(84)
        self.input.submitted.connect(self.send)
        self.input.edit_last_requested.connect(self.edit_last_message)
        self.input.textChanged.connect(self._update_send)
        self.editing_bar = EditingBar()
        self.editing_bar.cancelled.connect(self.cancel_edit)
        self.send_button = _named(QPushButton("Send"), "send")
        self.send_button.setAccessibleName("Send message")
        self.send_button.setToolTip("Send (Enter)")
        self.send_button.clicked.connect(self.send)
        self.stop_button = _named(QPushButton("Stop"), "stop")
        self.stop_button.setAccessibleName("Stop the reply")
        self.stop_button.setToolTip("Stop (Esc)")
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.setEnabled(False)

        self.memories_button = _opener(
            "Memories…",
            "memories",
            "Open the memory browser",
            "What Reverie remembers about you (Ctrl+M)",
        )
        self.memories_button.clicked.connect(self.memories_requested)
        # Without a tray (some desktops have none) these are the way in; the
        # app shows them when it has what they open.
        self.tasks_button = _opener(
            "Tasks…", "tasks", "Open the tasks window", "What Reverie keeps for you to do"
        )
        self.tasks_button.clicked.connect(self.tasks_requested)
        self.skills_button = _opener(
            "Skills…",
            "skills",
            "Open the skill editor",
            "The procedures Reverie has learned, to read and edit",
        )
        self.skills_button.clicked.connect(self.skills_requested)
        self.dreams_button = _opener(
            "Dreams…",
            "dreams",
            "Open the dream report",
            "What dreaming changed in what Reverie remembers, to review and undo",
        )
        self.dreams_button.clicked.connect(self.dream_report_requested)
        self.settings_button = _opener(
            "Settings…",
            "settings",
            "Open the settings",
            "Models, and how Reverie chats, remembers and dreams (Ctrl+,)",
        )
        self.settings_button.clicked.connect(self.settings_requested)
        for button in (self.tasks_button, self.skills_button, self.dreams_button):
            button.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.memories_button)
        buttons.addWidget(self.tasks_button)
        buttons.addWidget(self.skills_button)
        buttons.addWidget(self.dreams_button)
        buttons.addWidget(self.settings_button)
        buttons.addStretch(1)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.send_button)
        self.roles_banner = RolesBanner()
        self.suggestion = SuggestionCard()
        self.suggestion.accepted.connect(self.suggestion_accepted)
        self.suggestion.dismissed.connect(self.suggestion_dismissed)
        layout = QVBoxLayout()
        layout.addWidget(self.banner)
        layout.addWidget(self.roles_banner)
        layout.addWidget(self.suggestion)
        layout.addWidget(self.off_record_label)
        layout.addWidget(self.transcript, 1)
        layout.addWidget(self.editing_bar)
        layout.addWidget(self.input)
        layout.addLayout(buttons)
        chat_pane = QWidget()
        chat_pane.setLayout(layout)
        self.conversation_list = ConversationList()
        self.conversation_list.selected.connect(self.open_conversation)
        self.conversation_list.search_changed.connect(self._refresh_list)
        self.conversation_list.new_requested.connect(self.new_conversation)
        self.conversation_list.off_record_requested.connect(
            lambda: self.new_conversation(off_record=True)
        )
        self.conversation_list.rename_requested.connect(self.rename_conversation)
        self.conversation_list.delete_requested.connect(self.delete_conversation)
        splitter = QSplitter()
        splitter.addWidget(self.conversation_list)
        splitter.addWidget(chat_pane)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)  # a collapsed list is a sliver nobody can grab
        self.conversation_list.setMinimumWidth(160)
        splitter.setSizes([230, 730])
        self.setCentralWidget(splitter)
        self._shortcuts()
        self.setFocusProxy(self.input)
        self.input.setFocus()
        self.where_label = _named(QLabel(), "where-models-run")
        self.statusBar().addPermanentWidget(self.where_label)
        self.statusBar().showMessage("Starting…")

    def suggest_model(self, text: str) -> None:
        """Show the one-time card suggesting a better model (*text* says which)."""
        self.suggestion.suggest(text)

    def show_role_problem(self, role: str, problem: str | None) -> None:
        """Say (or stop saying) why a role's model could not answer."""
        self.roles_banner.show_problem(role, problem)

    def show_where_models_run(self, text: str, on_a_server: bool) -> None:
        """The status bar's note of where the models run (a server is worth saying)."""
        self.where_label.setText(text)
        self.where_label.setProperty("remote", on_a_server)
        self.where_label.style().polish(self.where_label)

    def _shortcuts(self) -> None:
        bindings: list[tuple[QKeySequence, Callable[[], object]]] = [
            (QKeySequence(QKeyCombination(Qt.Key.Key_Escape)), self.stop),
            (QKeySequence(QKeySequence.StandardKey.New), self.new_conversation),
            (QKeySequence("Ctrl+Shift+N"), lambda: self.new_conversation(off_record=True)),
            (QKeySequence(QKeySequence.StandardKey.Find), self.conversation_list.search.setFocus),
            (QKeySequence("Ctrl+L"), self.input.setFocus),
            (QKeySequence("Ctrl+Shift+C"), self.copy_last_reply),
            (QKeySequence("Ctrl+R"), self.regenerate),
            (QKeySequence("Ctrl+M"), self.memories_requested.emit),
            (QKeySequence("Ctrl+,"), self.settings_requested.emit),
        ]
        for sequence, action in bindings:
            QShortcut(sequence, self, action)

    def _worker_signals(self) -> list[tuple[SignalInstance, Callable[..., None]]]:
        worker = self._worker.worker
        return [
            (worker.stage, self._on_stage),
            (worker.reply_started, self._on_reply_started),
            (worker.text, self._on_text),
            (worker.reply_finished, self._on_reply_finished),
            (worker.notice, self._on_notice),
            (worker.tool_called, self._on_tool_called),
            (worker.done, self._on_done),
            (worker.failed, self._on_failed),
        ]

    def _connect_worker(self) -> None:
        for signal, slot in self._worker_signals():
            signal.connect(slot)

    def _load_history(self) -> None:
        self._refresh_list()
        self.transcript.clear()
        if self._chat is None or self._conversation_id is None:
            return
        conversation = self._chat.conversation(self._conversation_id)
        self.off_record_label.setVisible(conversation is not None and conversation.off_record)
        messages = self._chat.history(self._conversation_id)
        archived = [m for m in messages if m.archived_at is not None]
        for message in messages:
            shown = visible_text(message)
            if message.role in ("user", "assistant") and shown:
                view = self.transcript.add_message(message.role, shown, message.id)
                view.show_memories(self._chat.used_memories(message))
                if said_on_its_own := _unprompted(message):
                    view.speaker.setText(f"{view.speaker.text()} · {said_on_its_own}")
            elif message.role == "tool":
                self._show_tool_call(stored_tool_call(message))
            if archived and message is archived[-1]:
                summary = conversation.summary if conversation is not None else None
                self.transcript.add_notice(
                    "The messages above are summarised for the model; it reads this summary "
                    f"instead of them:\n{summary or ''}",
                    "summary-divider",
                )
        self.transcript.scroll_to_bottom()

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

    def _show_conversation(self, conversation_id: int | None) -> None:
        """Show *conversation_id*; the conversations nobody wrote in go."""
        self._conversation_id = conversation_id
        self.cancel_edit()
        if self._chat is not None:
            self._guarded(lambda chat: chat.discard_unused(keep=conversation_id))
        self._load_history()

    def open_conversation(self, conversation_id: int, message_id: int | None = None) -> None:
        """Show the conversation, at *message_id* if given (a memory's source)."""
        if self._busy:
            self.set_status("Stop the reply (Esc) before switching conversations")
            self._refresh_list()
            return
        self._show_conversation(conversation_id)
        self.input.setFocus()
        if message_id is not None and not self.transcript.show_message(message_id):
            self.set_status("That message is no longer shown in this conversation")
        else:
            self._greet()

    def new_conversation(self, off_record: bool = False) -> None:
        """A new conversation, which Reverie opens with a greeting."""
        if self._chat is None:
            return
        if self._busy:
            self.set_status("Stop the reply (Esc) before starting a new conversation")
            return
        self._guarded(lambda chat: self.open_conversation(chat.new_conversation(off_record).id))

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
        if self._chat is None or (self._busy and conversation_id == self._conversation_id):
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

    def _guarded(self, action: Callable[[ChatService], R]) -> R | None:
        """What *action* on the chat service gives; None, with the problem in
        the banner, if storage failed."""
        assert self._chat is not None
        try:
            return action(self._chat)
        except ReverieError as error:
            self.show_problem(f"That did not work: {error}")
            return None

    # -- state ---------------------------------------------------------------
    def set_chat_available(self, available: bool, reason: str) -> None:
        """Enable replies, or disable them and show *reason* in the banner
        with the way to a model.  Commands that need no model still work."""
        self._available = available and self._chat is not None
        if reason:
            self.show_problem(reason, "Choose a model…")
        elif self._available and self.banner.fix_button.isVisible():
            self.banner.clear()  # the problem it offered to fix is fixed
        self._update_send()
        self.set_status(self._idle_status())
        self.chat_availability_changed.emit(self._available)
        self._greet()

    def show_problem(self, message: str, fix: str = "") -> None:
        """*message* in the banner; *fix* labels a button to the Models page."""
        self.banner.show_problem(message, fix)

    def set_status(self, message: str) -> None:
        self.statusBar().showMessage(message)

    def _idle_status(self) -> str:
        if self._available:
            return "Ready"
        if self._chat is None:
            return "Chat is unavailable"
        return "No chat model: commands work, replies need a model"

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def chat_available(self) -> bool:
        """Whether a chat model is there to reply."""
        return self._available

    def _greeting(self) -> bool:
        return self._turn is not None and self._turn.seed

    def _update_send(self) -> None:
        """Send is on while there is something to send and a way to send it."""
        can_queue = self._greeting() and self._queued is None
        self.send_button.setEnabled(
            self._chat is not None and self.input.has_text() and (not self._busy or can_queue)
        )

    def copy_last_reply(self) -> None:
        replies = [m for m in self.transcript.messages if m.role != "user"]
        if replies:
            replies[-1].copy()
            self.set_status("Reply copied")

    # -- sending, commands and streaming ----------------------------------------
    def send(self) -> None:
        """Send what is in the box: a command, or a message for Reverie to answer
        (after its greeting, if that is still being written)."""
        typed = self.input.toPlainText()
        if not typed.strip() or self._chat is None or self._conversation_id is None:
            return
        parsed = commands.parse(typed)
        if isinstance(parsed, Command):
            self._typed_command(parsed)
        elif not self._available:
            self.set_status("Replies need a chat model: choose one in Settings → Models")
            self.banner.show()
        elif self._busy and not (self._greeting() and self._queued is None):
            self.set_status("Reverie is still replying: wait, or stop it (Esc)")
        else:
            self._send_message(self._chat, self._conversation_id, parsed)

    def _send_message(self, chat: ChatService, conversation_id: int, text: str) -> None:
        editing = self._editing
        try:
            if editing:
                turn = chat.edit_last(conversation_id, text)
            else:
                turn = chat.send(conversation_id, text)
        except ReverieError as error:
            self.show_problem(f"Your message was not sent: {error}")  # the text stays in the box
            return
        self.input.clear()
        self.cancel_edit()
        if editing:
            self._load_history()
        else:
            assert turn.user_message is not None
            self.transcript.add_message("user", turn.user_message.content, turn.user_message.id)
            self._refresh_list()  # the conversation moved to the top, maybe with a new title
        self.transcript.scroll_to_bottom()
        if self._busy:
            self._queued = turn
            self._update_send()
            self.set_status("Greeting you first; your message is answered next…")
        else:
            self._start_turn(turn)

    def _typed_command(self, command: Command) -> None:
        if command.name in _MODEL_COMMANDS and self._busy:
            self.set_status(f"/{command.name} waits for the reply: wait, or stop it (Esc)")
        elif command.name in _MODEL_COMMANDS and not self._available:
            self.set_status(f"/{command.name} needs a chat model: choose one in Settings → Models")
        else:
            self.input.clear()
            self._command(command)

    def regenerate(self) -> None:
        """Answer the last message again, in place of the last answer."""
        if self._chat is None or self._conversation_id is None or self._busy:
            return
        if not self._available:
            self.set_status("Replies need a chat model: choose one in Settings → Models")
            return
        conversation_id = self._conversation_id
        try:
            turn = self._chat.regenerate(conversation_id)
        except ReverieError as error:
            self.show_problem(f"That did not work: {error}")
            return
        if turn is None:
            self.set_status("There is no message of yours to answer again")
            return
        self._load_history()
        self._start_turn(turn)

    def edit_last_message(self) -> None:
        """Put the last message in the box, to send in place of the old one."""
        if self._chat is None or self._conversation_id is None or self._busy:
            return
        last = self._chat.last_user_message(self._conversation_id)
        if last is None:
            return
        self._editing = True
        self.input.setPlainText(last.content)
        self.input.moveCursor(self.input.textCursor().MoveOperation.End)
        self.editing_bar.show()
        self.input.setFocus()

    def cancel_edit(self) -> None:
        if self._editing:
            self._editing = False
            self.editing_bar.hide()
            self.input.clear()

    def _start_turn(self, turn: Turn) -> None:
        assert self._chat is not None
        chat = self._chat
        self._turn = turn
        self._run(lambda listener: chat.run(turn, listener))
        if turn.seed:  # shown at once, so a message written meanwhile comes after it
            self._streaming = self.transcript.add_message("seed")
            self.set_status("Saying hello… you can write meanwhile")

    def _greet(self) -> None:
        """Open a conversation nothing was said in with a greeting, while the
        user may already write."""
        if self._chat is None or self._conversation_id is None:
            return
        if self._busy or not self._available:
            return
        conversation_id = self._conversation_id
        if turn := self._guarded(lambda chat: chat.greeting(conversation_id)):
            self._start_turn(turn)

    def _run(
        self,
        task: Callable[[TurnListener], object],
        after: Callable[[object], None] | None = None,
    ) -> None:
        """Run *task* on the worker; *after(result)* once it returned."""
        self._after = after
        self._busy = True
        self.busy_changed.emit(True)
        self._update_send()
        self.stop_button.setEnabled(True)
        self._worker.submit(task)

    def stop(self) -> None:
        if self._editing and not self._busy:
            self.cancel_edit()
        elif self._turn is not None:
            self._turn.cancel()
            self.set_status("Stopping…")

    def _command(self, command: Command) -> None:
        assert self._chat is not None and self._conversation_id is not None
        chat, conversation_id = self._chat, self._conversation_id
        if command.name == "new":
            self.new_conversation()
            return
        if command.name == "compact":
            self._compact(chat, conversation_id)
            return
        if not command.known:
            self._on_notice(f"There is no /{command.name} command. {commands.help_text()}")
        elif command.name == "help":
            self._on_notice(commands.help_text())
        elif command.name == "dream":
            if self.dreaming_available:
                self.dream_requested.emit()
            else:
                self._on_notice(_NO_DREAMING)
        elif command.name == "remember":
            self._remember(chat, command.argument)
        elif command.name == "forget":
            self._forget(chat, command.argument)
        elif command.name == "memory":
            shown = chat.assembled(conversation_id).memories
            self._on_notice(shown or "No memories are given to the model right now.")
        if not self._busy:
            self.set_status(self._idle_status())
        self.turn_ended.emit(self.statusBar().currentMessage())

    def _compact(self, chat: ChatService, conversation_id: int) -> None:
        """``/compact`` waits on the model: it runs on the worker like a turn."""
        self._turn = Turn(conversation_id, None, seed=False)
        control = self._turn.control
        self._run(lambda _: chat.compact(conversation_id, control), self._compacted)
        self.set_status("Summarising older messages…")

    def _remember(self, chat: ChatService, text: str) -> None:
        if not text.strip():
            self._on_notice("Write what to remember after /remember.")
            return
        try:
            remembered = chat.remember(text, self._conversation_id)
        except ReverieError as error:
            self.show_problem(f"That was not remembered: {error}")
            self.input.setPlainText(f"/remember {text}")  # nothing typed is lost
            return
        self.transcript.add_message("user", f"/remember {text.strip()}")  # kept as its source
        self._memory_updated(chat, remembered)

    def _memory_updated(self, chat: ChatService, remembered: Remembered) -> None:
        """ "Memory updated", with Undo for a memory that is new."""
        row = self.transcript.add_memory_update(
            f"Memory updated. {remembered.describe()}",
            remembered.memory.id,
            can_undo=remembered.outcome == "added",
        )
        row.undo_requested.connect(lambda: self._undo_remember(chat, remembered, row))
        self.transcript.scroll_to_bottom()

    def _on_tool_called(self, call: ToolCall) -> None:
        self._show_tool_call(call)
        remembered = call.result.remembered
        if remembered is not None and self._chat is not None:
            self._memory_updated(self._chat, remembered)
        self.transcript.scroll_to_bottom()

    def _show_tool_call(self, call: ToolCall) -> None:
        result = call.result
        self.transcript.add_tool_call(
            call.name,
            json.dumps(call.arguments, ensure_ascii=False),
            result.ok,
            result.summary,
            json.dumps(result.content, ensure_ascii=False),
        )

    def _undo_remember(self, chat: ChatService, remembered: Remembered, row: MemoryUpdate) -> None:
        try:
            chat.undo_remember(remembered)
        except ReverieError as error:
            self.show_problem(f"That could not be undone: {error}")
            return
        row.undone(
            f"Undone: memory #{remembered.memory.id} was forgotten "
            "(it can be restored from the memory browser's Deleted list)."
        )

    def _forget(self, chat: ChatService, text: str) -> None:
        if not text.strip():
            self._on_notice("Write what to forget after /forget, or a memory's #id.")
            return
        try:
            forgotten, candidates = chat.forget(text)
        except ReverieError as error:
            self.show_problem(f"Nothing was forgotten: {error}")
            return
        if forgotten:
            self._on_notice(f"Forgotten (#{forgotten[0].id}): {forgotten[0].content}")
        elif candidates:
            listed = "\n".join(f"#{m.id}: {m.content}" for m in candidates)
            self._on_notice(f"Several memories match; forget one by its number:\n{listed}")
        else:
            self._on_notice(f"No memory matches “{text.strip()}”.")

    def _on_stage(self, stage: Stage) -> None:
        if self._busy:
            self.set_status(_STAGE_STATUS[stage])

    def _on_reply_started(self, kind: str) -> None:
        if self._streaming is None:  # a greeting's place is taken when it starts
            self._streaming = self.transcript.add_message("seed" if kind == "seed" else "assistant")

    def _on_text(self, piece: str) -> None:
        if self._streaming is not None:
            self._streaming.append(piece)

    def _on_reply_finished(self, reply: Reply) -> None:
        view, self._streaming = self._streaming, None
        if view is None:
            return
        view.finish(reply.text)
        if not reply.text:
            view.deleteLater()
            self.transcript.messages.remove(view)
        elif self._chat is not None and reply.message is not None:
            view.show_memories(self._chat.used_memories(reply.message))

    def notice(self, text: str) -> None:
        """A line for the user in the transcript (e.g. what a dream did)."""
        self._on_notice(text)

    def _on_notice(self, text: str) -> None:
        self.transcript.add_notice(text)
        self.transcript.scroll_to_bottom()

    def _compacted(self, result: object) -> None:
        if isinstance(result, CompactionResult):
            self._load_history()
            self._on_notice(f"{result.archived} older messages were summarised.")
        else:
            self._on_notice("Nothing to summarise yet: the latest messages are kept in full.")

    def _on_done(self, done: TaskDone) -> None:
        if self._streaming is not None:  # stopped before it said anything
            self._on_reply_finished(Reply("seed", "", "cancelled", None))
        after, self._after = self._after, None
        if after is not None:
            after(done.result)
        stopped = self._turn is not None and self._turn.control.cancelled
        if self._queued is not None:  # the message sent while Reverie said hello
            queued, self._queued = self._queued, None
            self._start_turn(queued)
            return
        self._end_turn("Stopped" if stopped else "Ready")

    def _on_failed(self, failure: TaskFailed) -> None:
        self._after = None
        if self._streaming is not None:
            self._on_reply_finished(Reply("answer", self._streaming.text, "error", None))
        self.show_problem(f"The model could not reply: {failure.message}")
        self._queued = None  # it stays in the conversation, to regenerate once the model is back
        self._end_turn("Failed")

    def _end_turn(self, status: str) -> None:
        self._turn = None
        self._busy = False
        self.busy_changed.emit(False)
        self.stop_button.setEnabled(False)
        self._update_send()
        self.set_status(status)
        self._refresh_list()
        self.input.setFocus()
        self.turn_ended.emit(status)

    # -- shutdown ------------------------------------------------------------
    def shutdown(self) -> None:
        """Stop work in flight (a reply keeps what was said) and the worker thread."""
        if not self._worker.qthread.isRunning():
            return
        self._queued = None
        # What the worker says on its way out is not for a window whose app is
        # closing: its database may be closed before the queued signals arrive.
        for signal, slot in self._worker_signals():
            signal.disconnect(slot)
        if self._turn is not None:
            self._turn.cancel()
        self._worker.stop()  # the worker finishes the stopped turn, storing the partial reply

    def closeEvent(self, event: QCloseEvent) -> None:
        # The user closing the window (a spontaneous event) only hides it: the
        # app lives on in the tray.  Quitting the app closes windows with a
        # non-spontaneous event, and refusing that would cancel the quit.
        if self._hide_on_close and event.spontaneous():
            event.ignore()
            self.hide()
        else:
            super().closeEvent(event)
