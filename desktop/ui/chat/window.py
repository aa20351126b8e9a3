"""The chat window: conversations on the side, the transcript, the input box.

The window talks to the Qt-free ``ChatService``; every turn, compaction and
slash command that may wait on the model runs on a ``Worker`` thread, whose
signals update the transcript.  The window never blocks on the model.

A new conversation greets the user while they may already write: a message
sent meanwhile waits (``_queued``) and is answered right after the greeting.
A message stored just as the chat model went away (the user chose another
in Settings while it was read) waits the same way, in the transcript, and is
answered once a chat model is there again; a turn never starts without one.
This module is longer than most because it is the one owner of a turn's
state (busy, greeting, the queued message, editing the last message); what
does not touch that state lives beside it: the banners, the button row, the
message box, the history and its actions, the memory commands.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QKeyCombination, Qt, Signal, SignalInstance
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.base.errors import ReverieError
from desktop.core.chat import commands
from desktop.core.chat.commands import Command
from desktop.core.chat.compaction import CompactionResult
from desktop.core.chat.service import (
    ChatService,
    Reply,
    Stage,
    Turn,
    TurnListener,
)
from desktop.core.chat.tools.toolbox import ToolCall
from desktop.core.dreaming.erasure import Eraser
from desktop.core.privacy.redaction import redaction_notice
from desktop.ui.chat.banners import ProblemBanner, RolesBanner, SuggestionCard
from desktop.ui.chat.buttons import ChatButtons
from desktop.ui.chat.conversation_actions import ConversationActions
from desktop.ui.chat.conversation_list import ConversationList
from desktop.ui.chat.history import CUT_SHORT, offer_actions, show_history, show_tool_call
from desktop.ui.chat.memory_commands import MemoryCommands
from desktop.ui.chat.message_input import EditingBar, MessageInput
from desktop.ui.chat.transcript import MessageView, Transcript
from desktop.ui.widgets.direction_guard import guarded
from desktop.ui.widgets.worker import TaskDone, TaskFailed, TaskQueue, WorkerThread

log = logging.getLogger(__name__)

_SHUTDOWN_WAIT_S = 5.0
_STAGE_STATUS = {
    Stage.COMPACTING: "Summarising older messages to make room…",
    Stage.READING: "Reading the conversation…",
    Stage.REPLYING: "Replying…",
}
_OFF_RECORD = "Off the record: nothing said here is kept in Reverie's memory."
_NO_DREAMING = "Dreaming is not available yet: memory consolidation arrives in a later version."
_WAITS_FOR_MODEL = "Your message is answered once the chat model is ready"
_MODEL_COMMANDS = ("new", "compact")
"""Commands that wait on the chat model; the others work without one."""

W = TypeVar("W", bound=QWidget)
NoticeAction = tuple[str, Callable[[], object]]
"""A notice's button: its label, and what pressing it does."""
R = TypeVar("R")


def _named(widget: W, name: str) -> W:
    """*widget* with an object name, which the style sheet and tests refer to."""
    widget.setObjectName(name)
    return widget


class ChatWindow(QMainWindow):
    """Signals:
    turn_ended(str): a turn or command finished, stopped or failed; the new status.
    chat_availability_changed(bool): chatting was enabled or disabled.
    dream_requested(): the user typed /dream.
    busy_changed(bool): a turn or command started (True) or ended (False);
        ``only_greeting`` says whether it was only Reverie's greeting.
    memories_requested(): the user asked for the memory browser.
    memory_requested(int): the user asked to see this memory id (a chip, Open).
    tasks_requested(): the user asked for the tasks window.
    skills_requested(): the user asked for the skill editor.
    dream_report_requested(): the user asked for the dream report.
    work_requested(): the user asked for the Work window (background workers).
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
    work_requested = Signal()
    settings_requested = Signal()
    models_requested = Signal()
    suggestion_accepted = Signal()
    suggestion_dismissed = Signal()

    def __init__(
        self,
        chat: ChatService | None,
        conversation_id: int | None,
        *,
        hide_on_close: bool,
        eraser: Eraser | None = None,
    ) -> None:
        super().__init__()
        self._hide_on_close = hide_on_close
        self.setWindowTitle("Reverie")
        self.resize(960, 680)
        self.setMinimumSize(640, 480)  # room for a few lines of the conversation
        self._chat = chat
        self._conversation_id = conversation_id
        self._turn: Turn | None = None
        self._busy = False
        """Whether a task runs on the worker (a turn, a compaction, an erasure)."""
        self._reading = False
        """Whether a sent message is being read (for secrets) and stored."""
        self._announced = False
        """What ``busy_changed`` last said."""
        self._only_greeting = False
        """Whether Reverie is (or was, till ``busy_changed`` said False) busy
        only with its own greeting: nothing the user sent or asked."""
        self._queued: Turn | None = None
        """A message sent while the greeting is written, or stored while no
        chat model is there: answered right after the greeting, or once one is."""
        self._editing: int | None = None
        """The message the box replaces when sent (Up, or Edit), by id."""
        self._damage = ""
        """The start's report of a damaged database (``show_damage``)."""
        self._actions: list[QToolButton] = []
        """Regenerate and Edit, on the messages they act on."""
        self._held: list[tuple[str, NoticeAction | None]] = []
        """Notices that came while an old page was shown: put in at the end
        once it is shown, not pulling the user away from what they read."""
        self._loading = False
        """Set while the conversation is put in the transcript (``_load_history``)."""
        self._streaming: MessageView | None = None
        self._after: Callable[[object], None] | None = None
        self._failed_as = "The model could not reply"
        """What the banner says when the task on the worker fails."""
        self._told_why_redacted = False
        """Whether this run of the app said why a secret became a placeholder."""
        self.dreaming_available = False
        self._build(eraser)
        self._memory_commands = (
            None
            if chat is None
            else MemoryCommands(
                chat, self.transcript, self.show_problem, self.input.setPlainText, self._off_thread
            )
        )
        self._worker = WorkerThread("chat-worker", self)
        self._connect_worker()
        # Reading a long paste for secrets takes seconds: off the UI thread,
        # and beside the worker, so a message sent during the greeting is
        # stored (and shown) at once.
        self._reader = TaskQueue("chat-reader", self)
        self._available = False  # until the chat model is loaded: set_chat_available
        self.show_conversation(conversation_id)
        self.set_status(self._idle_status())

    # -- construction --------------------------------------------------------
    def _build(self, eraser: Eraser | None) -> None:
        self.banner = ProblemBanner()
        self.banner.fix_requested.connect(self.models_requested)
        self.off_record_label = _named(QLabel(_OFF_RECORD), "off-record")
        self.off_record_label.setAccessibleName("Off the record")
        self.off_record_label.hide()
        self.transcript = Transcript()
        self.transcript.memory_requested.connect(self.memory_requested)
        self.transcript.excerpt_requested.connect(self.open_conversation)
        self.transcript.latest_requested.connect(self._load_history)
        self.transcript.end_shown.connect(self._on_end_shown)
        self.input = MessageInput()
        self.input.submitted.connect(self.send)
        self.input.edit_last_requested.connect(self.edit_last_message)
        self.input.textChanged.connect(self._update_send)
        self.editing_bar = EditingBar()
        self.editing_bar.cancelled.connect(self.cancel_edit)
        self.buttons = ChatButtons()
        self.memories_button, self.tasks_button = self.buttons.memories, self.buttons.tasks
        self.skills_button, self.dreams_button = self.buttons.skills, self.buttons.dreams
        self.settings_button, self.work_button = self.buttons.settings, self.buttons.work
        self.send_button, self.stop_button = self.buttons.send, self.buttons.stop
        self.send_button.clicked.connect(self.send)
        self.stop_button.clicked.connect(self.stop)
        self.memories_button.clicked.connect(self.memories_requested)
        self.tasks_button.clicked.connect(self.tasks_requested)
        self.skills_button.clicked.connect(self.skills_requested)
        self.dreams_button.clicked.connect(self.dream_report_requested)
        self.work_button.clicked.connect(self.work_requested)
        self.settings_button.clicked.connect(self.settings_requested)
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
        layout.addWidget(guarded(self.input))
        layout.addWidget(self.buttons)
        chat_pane = QWidget()
        chat_pane.setLayout(layout)
        self.conversation_list = ConversationList()
        self.conversations = ConversationActions(
            self._chat, eraser, self.conversation_list, self, self
        )
        self.conversation_list.selected.connect(self.open_conversation)
        self.conversation_list.search_changed.connect(self.conversations.refresh)
        self.conversation_list.new_requested.connect(self.new_conversation)
        self.conversation_list.off_record_requested.connect(
            lambda: self.new_conversation(off_record=True)
        )
        self.conversation_list.rename_requested.connect(self.conversations.rename)
        self.conversation_list.delete_requested.connect(self.conversations.delete)
        self.conversation_list.deleted_shown.connect(lambda _: self.conversations.refresh())
        self.conversation_list.restore_requested.connect(self.conversations.restore)
        self.conversation_list.erase_requested.connect(self.conversations.erase)
        self.conversation_list.learn_again_requested.connect(self.conversations.learn_again)
        splitter = QSplitter()
        splitter.addWidget(self.conversation_list)
        splitter.addWidget(chat_pane)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)  # a collapsed list is a sliver nobody can grab
        self.conversation_list.setMinimumWidth(160)
        splitter.setSizes([230, 730])
        self.setCentralWidget(splitter)
        self._shortcuts()
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

    def _load_history(self, including: int | None = None) -> None:
        """Show the conversation's messages (from its end, or from a few
        before message *including*)."""
        self.conversations.refresh()
        self.transcript.clear()
        if self._chat is None or self._conversation_id is None:
            return
        shown = self._conversation_id
        # A damaged database fails here first: said in the banner, not a crash.
        conversation = self.conversations.guarded(lambda chat: chat.conversation(shown))
        self.off_record_label.setVisible(conversation is not None and conversation.off_record)
        if conversation is not None:
            self._loading = True
            try:
                show_history(self.transcript, self.conversations.guarded, conversation, including)
            finally:
                self._loading = False
        self.transcript.scroll_to_bottom()
        self._offer_actions()

    def _show_the_end(self) -> None:
        """Show the conversation's end before a row is added below, were it
        opened at an old message: the row would follow the page shown, not
        the conversation's last message."""
        if self.transcript.later_hidden:
            self._load_history()

    # -- conversations -------------------------------------------------------
    @property
    def conversation_id(self) -> int | None:
        return self._conversation_id

    def show_conversation(self, conversation_id: int | None, including: int | None = None) -> None:
        """Show *conversation_id* (with message *including*, if given); the
        conversations nobody wrote in go."""
        self._conversation_id = conversation_id
        self.cancel_edit()
        if self._queued is not None and self._queued.conversation_id != conversation_id:
            self._queued = None  # it stays in its conversation, to regenerate there
        if self._chat is not None:
            self.conversations.guarded(lambda chat: chat.discard_unused(keep=conversation_id))
        self._load_history(including)

    def open_conversation(self, conversation_id: int, message_id: int | None = None) -> None:
        """Show the conversation, at *message_id* if given (a memory's source)."""
        if self.busy:
            self.set_status("Stop the reply (Esc) before switching conversations")
            self.conversations.refresh()
            return
        self.show_conversation(conversation_id, message_id)
        self.input.setFocus()
        if message_id is not None and not self.transcript.show_message(message_id):
            self.set_status("That message is no longer shown in this conversation")
        else:
            self._greet()

    def new_conversation(self, off_record: bool = False) -> None:
        """A new conversation, which Reverie opens with a greeting."""
        if self._chat is None:
            return
        if self.busy:
            self.set_status("Stop the reply (Esc) before starting a new conversation")
            return
        self.conversations.guarded(
            lambda chat: self.open_conversation(chat.new_conversation(off_record).id)
        )

    # -- state ---------------------------------------------------------------
    def set_chat_available(self, available: bool, reason: str) -> None:
        """Enable replies, or disable them and show *reason* in the banner
        with the way to a model.  Commands that need no model still work."""
        self._available = available and self._chat is not None
        if reason:
            self.show_problem(reason, "Choose a model…")
        elif self._available and self.banner.fix_button.isVisible():
            self.clear_problem()  # the problem it offered to fix is fixed
        self._update_send()
        self.set_status(self._idle_status())
        self.chat_availability_changed.emit(self._available)
        if self._queued is not None and self._available and not self.busy:
            queued, self._queued = self._queued, None  # stored while there was no model
            self._start_turn(queued)
        else:
            self._greet()

    def show_problem(self, message: str, fix: str = "") -> None:
        """*message* in the banner; *fix* labels a button to the Models page.
        Once the database was found damaged, the way back to a sound copy
        stays under whatever is said after (``show_damage``)."""
        said = (
            f"{message}\n\n{self._damage}" if self._damage and message != self._damage else message
        )
        self.banner.show_problem(said, fix)

    def clear_problem(self) -> None:
        """Take the problem out of the banner; the way back to a sound copy
        (``show_damage``) stays."""
        if self._damage:
            self.banner.show_problem(self._damage)
        else:
            self.banner.clear()

    def show_damage(self, report: str) -> None:
        """The start's check found the database damaged: *report* says what
        and the way back, and stays in the banner (a read that fails on the
        damage later would otherwise put only "the file is damaged" there)."""
        self._damage = report
        self.show_problem(report)

    def set_status(self, message: str) -> None:
        self.statusBar().showMessage(message)

    def _idle_status(self) -> str:
        if self._available:
            return "Ready"
        if self._queued is not None:
            return _WAITS_FOR_MODEL
        if self._chat is None:
            return "Chat is unavailable"
        return "No chat model: commands work, replies need a model"

    @property
    def busy(self) -> bool:
        """Is Reverie replying, or reading a message just sent?"""
        return self._busy or self._reading

    @property
    def reading(self) -> bool:
        """Is a message just sent still being read and stored?"""
        return self._reading

    @property
    def only_greeting(self) -> bool:
        """Was what ``busy_changed`` last said only Reverie's own greeting,
        with nothing the user sent or asked (a message typed meanwhile is)?"""
        return self._only_greeting

    def _announce(self) -> None:
        """Say ``busy_changed`` when ``busy`` changed since it was last said."""
        users = self.busy and (self._reading or not self._greeting())
        if self.busy != self._announced:
            self._announced = self.busy
            if self._announced:
                self._only_greeting = not users
            self.busy_changed.emit(self._announced)
        elif users:
            self._only_greeting = False

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
            self._chat is not None
            and self.input.has_text()
            and not self._reading
            and (not self._busy or can_queue)
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
        if self._reading:  # the box holds what is being sent
            return
        parsed = commands.parse(typed)
        if isinstance(parsed, Command):
            self._typed_command(parsed)
        elif not self._available:  # loading, or missing: the banner says which
            self.set_status("No chat model yet: your message waits in the box")
        elif self._busy and not (self._greeting() and self._queued is None):
            self.set_status("Reverie is still replying: wait, or stop it (Esc)")
        else:
            self._send_message(self._chat, self._conversation_id, parsed)

    def _send_message(self, chat: ChatService, conversation_id: int, text: str) -> None:
        """Store *text* (read for secrets first, on the reader: a long paste
        takes seconds), then answer it; the box keeps it until it is stored."""
        editing = self._editing is not None

        def store() -> Turn | ReverieError:
            try:
                if editing:
                    return chat.edit_last(conversation_id, text)
                return chat.send(conversation_id, text)
            except ReverieError as error:  # for the banner, not the log
                return error

        self._reading = True
        self.input.setReadOnly(True)
        self._update_send()
        self._announce()
        self.set_status("Sending…")
        self._reader.run(store, lambda result: self._stored(result, editing), self._not_stored)

    def _not_stored(self, problem: str) -> None:
        self._read()
        self._edit_only_what_is_shown()
        self.show_problem(f"Your message was not sent: {problem}")  # the text stays in the box
        if not self._busy:  # else the greeting's status stands
            self.set_status(self._idle_status())
        self._announce()

    def _edit_only_what_is_shown(self) -> None:
        """After a failed edit, stay in edit mode only while the message it
        replaces is still the user's last: were it gone, sending again would
        replace the one before it, an unrelated message.  The text stays in
        the box, and the transcript shows what is stored."""
        conversation_id = self._conversation_id
        if self._editing is None or self._chat is None or conversation_id is None:
            return
        last = self.conversations.guarded(lambda chat: chat.last_user_message(conversation_id))
        if last is None or last.id != self._editing:
            self._editing = None
            self.editing_bar.hide()
            self._load_history()

    def _read(self) -> None:
        self._reading = False
        self.input.setReadOnly(False)
        self._update_send()

    def _stored(self, result: object, editing: bool) -> None:
        if not self._worker.qthread.isRunning():  # the app quit meanwhile
            return
        if isinstance(result, ReverieError):
            self._not_stored(str(result))
            return
        assert isinstance(result, Turn)
        turn = result
        self._read()
        self.input.clear()
        self.cancel_edit()
        if editing or turn.rewrote or self.transcript.later_hidden:
            self._load_history()  # messages before it changed, or are not shown
        else:
            assert turn.user_message is not None
            self.transcript.add_message("user", turn.user_message.content, turn.user_message.id)
            self.conversations.refresh()  # moved to the top, maybe with a new title
        self._tell_why_redacted(turn.redacted)
        self.transcript.scroll_to_bottom()
        self._answer_or_hold(turn)
        self._announce()

    def _answer_or_hold(self, turn: Turn) -> None:
        """Answer *turn* now, or hold it (``_queued``) until the greeting is
        written or, if the chat model went away while it was stored, until
        one is there again."""
        if self._busy:
            self._queued = turn
            self._update_send()
            self.set_status("Greeting you first; your message is answered next…")
        elif not self._available:
            self._queued = turn
            self.set_status(self._idle_status())
        else:
            self._start_turn(turn)

    def _tell_why_redacted(self, kinds: tuple[str, ...]) -> None:
        """Under the first message a secret was taken out of, once per run of
        the app: the placeholder then speaks for itself."""
        if kinds and not self._told_why_redacted:
            self._told_why_redacted = True
            self._on_notice(redaction_notice(kinds))

    def _typed_command(self, command: Command) -> None:
        if command.name in _MODEL_COMMANDS and self.busy:
            self.set_status(f"/{command.name} waits for the reply: wait, or stop it (Esc)")
        elif command.name in _MODEL_COMMANDS and not self._available:
            self.set_status(f"/{command.name} needs a chat model: choose one in Settings → Models")
        else:
            self.input.clear()
            self._command(command)

    def regenerate(self) -> None:
        """Answer the last message again, in place of the last answer."""
        if self._chat is None or self._conversation_id is None or self.busy:
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
        if self._chat is None or self._conversation_id is None or self.busy:
            return
        last = self._chat.last_user_message(self._conversation_id)
        if last is None:
            return
        self._editing = last.id
        self.input.setPlainText(last.content)
        self.input.moveCursor(self.input.textCursor().MoveOperation.End)
        self.editing_bar.show()
        self.input.setFocus()

    def cancel_edit(self) -> None:
        if self._editing is not None:
            self._editing = None
            self.editing_bar.hide()
            self.input.clear()

    def _start_turn(self, turn: Turn) -> None:
        assert self._chat is not None
        chat = self._chat
        self._turn = turn
        self.run(lambda listener: chat.run(turn, listener))
        if turn.seed:  # shown at once, so a message written meanwhile comes after it
            self._streaming = self.transcript.add_message("seed")
            self.set_status("Saying hello… you can write meanwhile")

    def _greet(self) -> None:
        """Open a conversation nothing was said in with a greeting, while the
        user may already write."""
        if self._chat is None or self._conversation_id is None:
            return
        if self.busy or not self._available:
            return
        conversation_id = self._conversation_id
        if turn := self.conversations.guarded(lambda chat: chat.greeting(conversation_id)):
            self._start_turn(turn)

    def run(
        self,
        task: Callable[[TurnListener], object],
        after: Callable[[object], None] | None = None,
        *,
        failed_as: str = "The model could not reply",
    ) -> None:
        """Run *task* on the worker; *after(result)* once it returned; if it
        fails, the banner says *failed_as* and why."""
        self._after = after
        self._failed_as = failed_as
        self._busy = True
        self._offer_actions()  # none while Reverie is busy
        self._announce()
        self._update_send()
        self.stop_button.setEnabled(True)
        self._worker.submit(task)

    def stop(self) -> None:
        if self._editing is not None and not self.busy:
            self.cancel_edit()
        elif self._turn is not None:
            self._turn.cancel()
            self.set_status("Stopping…")

    def _command(self, command: Command) -> None:
        assert self._chat is not None and self._conversation_id is not None
        self._show_the_end()
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
        elif command.name == "remember" and self._memory_commands is not None:
            if self._memory_commands.remember(command.argument, conversation_id):
                return  # it ends off the window's thread
        elif command.name == "forget" and self._memory_commands is not None:
            self._memory_commands.forget(command.argument)
        elif command.name == "memory":
            self._off_thread(lambda: chat.given_memories(conversation_id), self._show_given)
            return
        self._command_ended()

    def _command_ended(self) -> None:
        if not self.busy:
            self.set_status(self._idle_status())
        self.turn_ended.emit(self.statusBar().currentMessage())

    def _off_thread(self, task: Callable[[], object], shown: Callable[[object], None]) -> None:
        """Run a command's *task* on the reader, then *shown* with what it
        gave, and end the command.  What asks the model's lane (an
        embedding) waits there behind a reply in flight: on the window's
        thread it froze the window, Stop included, until the reply ended.
        The box is read-only meanwhile, so what a failed command puts back
        in it is written over nothing typed since."""

        def done(result: object) -> None:
            if not self._worker.qthread.isRunning():  # the app quit meanwhile
                return
            self._read()
            shown(result)
            self._announce()
            self._command_ended()

        def failed(problem: str) -> None:
            if not self._worker.qthread.isRunning():
                return
            self._read()
            self.show_problem(f"That did not work: {problem}")
            self._announce()
            self._command_ended()

        self._reading = True
        self.input.setReadOnly(True)
        self._update_send()
        self._announce()
        self._reader.run(task, done, failed)

    def _show_given(self, result: object) -> None:
        """``/memory``: the memories the next reply is given."""
        assert isinstance(result, list)
        listed = "\n".join(f"#{m.id} ({m.category}): {m.content}" for m in result)
        self._on_notice(
            f"Reverie's next reply is given these memories, most relevant first:\n{listed}"
            if result
            else "No memories are given to the model right now."
        )

    def _compact(self, chat: ChatService, conversation_id: int) -> None:
        """``/compact`` waits on the model: it runs on the worker like a turn."""
        self._turn = Turn(conversation_id, None, seed=False)
        control = self._turn.control
        self.run(lambda _: chat.compact(conversation_id, control), self._compacted)
        self.set_status("Summarising older messages…")

    def _on_tool_called(self, call: ToolCall) -> None:
        show_tool_call(self.transcript, call)
        remembered = call.result.remembered
        if remembered is not None and self._memory_commands is not None:
            self._memory_commands.updated(remembered)

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
        if reply.message is not None:
            view.message_id = reply.message.id
        if not reply.text:
            view.deleteLater()
            self.transcript.messages.remove(view)
        elif self._chat is not None and reply.message is not None:
            view.show_memories(self._chat.used_memories(reply.message))
            view.show_excerpts(self._chat.used_excerpts(reply.message))
        if reply.text and reply.finish_reason == "length":
            self._on_notice(CUT_SHORT)

    def notice(self, text: str, action: NoticeAction | None = None) -> None:
        """A line for the user in the transcript (e.g. what a dream did),
        with a button for *action* (its label and what it does).  While an
        old page is shown, it waits for the end to be, said meanwhile in
        the status bar."""
        if self.transcript.later_hidden:
            self._held.append((text, action))
            self.set_status(text)
            return
        if action is None:
            self._on_notice(text)
            return
        label, act = action
        row = self.transcript.add_action_notice(text)
        row.add_button(label, label).clicked.connect(act)

    def _on_end_shown(self) -> None:
        """The conversation's last message came into the transcript: the
        notices held meanwhile follow it, and, reached by *Show later*, the
        last exchange gets its Edit and Regenerate (``_load_history`` offers
        them itself)."""
        held, self._held = self._held, []
        for text, action in held:
            self.notice(text, action)
        if not self._loading:
            self._offer_actions()

    def _offer_actions(self) -> None:
        """Edit on the user's last message, Regenerate on the answer to it."""
        for button in self._actions:
            button.deleteLater()
        self._actions = []
        if (
            self._chat is not None
            and (shown := self._conversation_id) is not None
            and not self.busy
        ):
            last = self.conversations.guarded(
                lambda chat: (chat.last_user_message(shown), chat.last_answer(shown))
            )
            if last is not None:
                self._actions = offer_actions(
                    self.transcript, *last, self.edit_last_message, self.regenerate
                )

    def _on_notice(self, text: str) -> None:
        self._show_the_end()
        self.transcript.add_notice(text)

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
        if self._queued is not None and self._available:  # sent while Reverie said hello
            queued, self._queued = self._queued, None
            self._start_turn(queued)
            return
        # Without a chat model now, "Ready" would contradict the banner.
        self._end_turn("Stopped" if stopped and self._queued is None else self._idle_status())

    def _on_failed(self, failure: TaskFailed) -> None:
        self._after = None
        if self._streaming is not None:
            self._on_reply_finished(Reply("answer", self._streaming.text, "error", None))
        self.show_problem(f"{self._failed_as}: {failure.message}")
        self._queued = None  # it stays in the conversation, to regenerate once the model is back
        self._end_turn("Failed")

    def _end_turn(self, status: str) -> None:
        self._turn = None
        self._busy = False
        self._announce()
        self.stop_button.setEnabled(False)
        self._update_send()
        self.set_status(status)
        self.conversations.refresh()
        self._offer_actions()
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
        self._reader.stop()  # a message being read is stored, to answer at the next start

    def closeEvent(self, event: QCloseEvent) -> None:
        # The user closing the window (a spontaneous event) only hides it: the
        # app lives on in the tray.  Quitting the app closes windows with a
        # non-spontaneous event, and refusing that would cancel the quit.
        if self._hide_on_close and event.spontaneous():
            event.ignore()
            self.hide()
        else:
            super().closeEvent(event)
