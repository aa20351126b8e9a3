"""Chat turns, Qt-free: conversations, the conversation seed, compaction
before a reply that would not fit, prompt assembly and the reply itself.

A turn is plain work run off the UI thread: ``ChatService.run(turn,
listener)`` tells the listener what happens (compacting, reading the prompt,
each piece of text, each finished reply, notices) and can be stopped at any
point through ``Turn.cancel()``.
"""

from __future__ import annotations

import enum
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from typing import Literal, Protocol, get_args

from desktop.core.base.digits import without_leading_zeros
from desktop.core.base.errors import EnvironmentProblem, ReverieError
from desktop.core.base.jobs import JobControl
from desktop.core.base.prompts import PromptLibrary, fill
from desktop.core.base.settings import ChatSettings, ModelSettings
from desktop.core.base.text import cut, readable, scrub, shows_nothing
from desktop.core.base.tokens import MESSAGE_OVERHEAD, TokenCounter, cut_middle
from desktop.core.chat.compaction import (
    CompactionCancelled,
    CompactionFailed,
    CompactionResult,
    Compactor,
)
from desktop.core.chat.condenser import Condenser
from desktop.core.chat.contexts import GIVEN, GIVEN_EXCERPTS, given, given_with
from desktop.core.chat.prompt import (
    AssembledPrompt,
    ComponentLimits,
    Oversized,
    PromptInputs,
    assemble,
    joined,
    message_context,
)
from desktop.core.chat.tail import Tail, live_tail
from desktop.core.chat.tools.toolbox import (
    ROW_ID_MAX,
    Toolbox,
    ToolCall,
    ToolContext,
    ToolResult,
    answering,
)
from desktop.core.db import Conversation, ConversationStore, Memory, Message, MessageRole
from desktop.core.db.conversations import (
    MADE_TITLE_CHARS,
    REPLACES,
    TITLE_READ,
    MessagePage,
    replaced_ids,
    titled,
)
from desktop.core.db.message_kinds import (
    COMMAND,
    SEED,
    TOOL_CALL_START,
    greeting_first,
    is_command,
    is_seed,
    kind_of,
)
from desktop.core.db.message_search import Excerpt
from desktop.core.db.workers import WorkerStore
from desktop.core.memory.lines import COMPONENTS, excerpt_line, memory_line
from desktop.core.memory.recall import Recall
from desktop.core.memory.service import MemoryService, Remembered
from desktop.core.privacy.prompt_safety import safe_for_prompt, users_own
from desktop.core.privacy.redaction import Redactor, without
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.agenda import AGENDA_REVIEW
from desktop.core.tasks.routines import RunKind
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker, Priority
from models.errors import GenerationCancelled, ModelError
from models.interfaces import ChatMessage, GenerationOptions
from models.jobs import Job
from models.streaming import StopScanner

log = logging.getLogger(__name__)

NEW_CONVERSATION_TITLE = "New conversation"
SYSTEM_EVENT = "SYSTEM EVENT"
"""The words the hidden instructions to the model begin with; a reply stops
where it would repeat them (a small model writes "**SYSTEM EVENT**" too)."""
USED_MEMORIES = "memories"
"""Message metadata key: the ids of the memories a reply was given."""
USED_EXCERPTS = "excerpts"
"""Message metadata key: the ids of the messages of other conversations a
reply was given as excerpts."""
_PROMPT_ROLES = {"user": "user", "assistant": "assistant", "event": "user", "tool": "user"}
MAX_TOOL_CALLS = 3
"""Tool calls in one answer; after them the model must answer in words."""
TOOL = "tool"
"""Message metadata key of a tool result: the tool's name."""
CALLED_BY = "called_by"
"""Message metadata key of a tool result: the id of the reply whose call it
answers.  Which message is next to which says nothing: a reminder stored
while the tool ran lands between the call and its result."""
_MARGIN_TOKENS = 16
_LEAST_READ_TOKENS = 256
"""The least of a tool's result worth reading with the question it answers
(else the question is left out, as any older message, for more of it)."""
_GIVEN_PARTS = ("memories", "excerpts")
BACKGROUND_BATCHES = 16
"""Batches (a model call each) one background compaction of a conversation
runs: a history of thousands of messages is summarised over several runs,
never holding up the other background work for long."""

EMPTY_REPLY = (
    "The model's reply was empty: it ended before saying anything. Regenerate it; "
    "if that happens again, the model or its server may be failing (Settings → Models)."
)
"""What the user is told of an answer with no words: else nothing shows."""

ReplyKind = Literal["seed", "answer"]


class Stage(enum.Enum):
    COMPACTING = "compacting"
    READING = "reading"
    REPLYING = "replying"


@dataclass(frozen=True)
class _Used:
    """What of the past a reply was given: memories, and excerpts (message ids)."""

    memories: tuple[int, ...] = ()
    excerpts: tuple[int, ...] = ()


@dataclass(frozen=True)
class _History:
    messages: list[ChatMessage]
    used: _Used
    """What relevant to this reply the messages show."""
    oversized: tuple[Oversized, ...]
    """Components over their limits (for the condenser)."""
    answering: Message | None = None
    """The user's message being answered, as stored."""
    given: _Used = _Used()
    """What goes with *answering* now."""
    answering_at: int | None = None
    """Where *answering* is in *messages*."""


@dataclass(frozen=True)
class Reply:
    kind: ReplyKind
    text: str
    finish_reason: str
    message: Message | None
    """The stored reply; None when nothing was said."""
    memory_ids: tuple[int, ...] = ()
    """The memories the model was given for this reply."""
    excerpt_ids: tuple[int, ...] = ()
    """The messages of other conversations it was given (excerpts)."""


class TurnListener(Protocol):
    """What a running turn reports, in order, from the thread it runs on."""

    def stage(self, stage: Stage) -> None: ...

    def reply_started(self, kind: ReplyKind) -> None: ...

    def text(self, piece: str) -> None: ...

    def reply_finished(self, reply: Reply) -> None: ...

    def notice(self, text: str) -> None: ...

    def tool_called(self, call: ToolCall) -> None: ...


@dataclass
class Turn:
    """A turn to run: the greeting (seed) of a new conversation, or the
    answer to *user_message*."""

    conversation_id: int
    user_message: Message | None
    seed: bool
    control: JobControl = field(default_factory=JobControl)
    redacted: tuple[str, ...] = ()
    """The kinds of secrets taken out of *user_message* before it was
    stored, or out of what was said before it once it named them, one per
    secret (``redaction_notice`` tells the user why)."""
    rewrote: int = 0
    """How many messages said before took a secret out that this one named:
    the transcript shows them again."""
    replaced: bool = False
    """An answer was removed to be given again (*Regenerate*): its words
    leave the search indexes and the WAL as the turn runs, off the UI thread."""

    def cancel(self) -> None:
        self.control.cancel()


class ChatService:
    def __init__(
        self,
        conversations: ConversationStore,
        memories: MemoryService,
        broker: InferenceBroker,
        prompts: PromptLibrary,
        model_settings: ModelSettings,
        chat_settings: ChatSettings | None = None,
        *,
        toolbox: Toolbox | None = None,
        tasks: TaskService | None = None,
        skills: SkillLibrary | None = None,
        redactor: Redactor | None = None,
        worker_texts: WorkerStore | None = None,
        recall: Recall | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now().astimezone(),
    ) -> None:
        """*worker_texts*: the background workers' texts, which a value the
        user names a secret later is taken out of, with the messages'.
        *recall*: memories and excerpts of other conversations for a reply
        (None: the memories alone, by ``MemoryService.retriever``)."""
        self._conversations = conversations
        self._worker_texts = worker_texts
        self._on_delete: tuple[Callable[[int], object], ...] = ()
        self._redact = redactor or Redactor()
        self._tasks = tasks
        self._skills = skills
        self._memories = memories
        self._recall = recall
        self._broker = broker
        self._prompts = prompts
        self._settings = model_settings
        self._chat_settings = chat_settings or ChatSettings()
        self._toolbox = toolbox if self._chat_settings.tools_enabled else None
        self._clock = clock
        self.count_tokens = TokenCounter(broker)
        self.compactor = Compactor(
            conversations,
            broker,
            prompts,
            self.count_tokens,
            context_length=model_settings.context_length,
            keep_recent=self._chat_settings.keep_recent_messages,
            redactor=self._redact,
        )
        self.condenser = Condenser(broker, prompts)
        self._owed_lock = threading.Lock()
        self._owed: set[int] = set()
        """Conversations with more to summarise than a turn summarises
        before its reply: compacted in the background (``compact_idle``)."""
        self.reading: Job | None = None
        """The prompt being read ahead (``read_ahead``): the next turn stops it."""
        self._told: set[int] = set()
        """Of them, those whose turn said so (once)."""
        self._limits = ComponentLimits(
            memories=self._chat_settings.memories_chars,
            tasks=self._chat_settings.tasks_chars,
            skills=self._chat_settings.skills_chars,
        )

    # -- conversations ---------------------------------------------------------
    def latest_or_new_conversation(self) -> Conversation:
        existing = self._conversations.list()
        return existing[0] if existing else self.new_conversation()

    def conversations(self, query: str = "") -> list[Conversation]:
        """All conversations, or those matching *query* (titles and message text)."""
        if query.strip():
            return self._conversations.search(query)
        return self._conversations.list()

    def new_conversation(self, off_record: bool = False) -> Conversation:
        return self._conversations.create(NEW_CONVERSATION_TITLE, off_record=off_record)

    def discard_unused(self, keep: int | None = None) -> int:
        """Remove the conversations nobody wrote in, except *keep* (the one on
        screen): an unanswered greeting is not worth a place in the list."""
        return self._conversations.discard_unused(SEED, keep)

    def rename(self, conversation_id: int, title: str) -> Conversation:
        # One line: a name pasted over two lines would break out of its
        # heading in an export.  Read as the store keeps it, so a name of
        # what shows nothing (a zero-width space, accents with no letter)
        # is no name, not a blank.
        title = titled(" ".join(self._redact.text(title[:TITLE_READ]).split()))
        return self._conversations.rename(conversation_id, title or NEW_CONVERSATION_TITLE)

    def delete(self, conversation_id: int) -> None:
        """Delete, restorably until the restore window has passed; then
        call what ``when_deleted`` was given (its background work stops)."""
        self._conversations.delete(conversation_id)
        for action in self._on_delete:
            action(conversation_id)

    def when_deleted(self, action: Callable[[int], object]) -> None:
        """Call *action* with a conversation's id once it is deleted."""
        self._on_delete = (*self._on_delete, action)

    def deleted_conversations(self) -> list[Conversation]:
        """The deleted conversations, restorable until they are erased."""
        return self._conversations.deleted()

    def restore(self, conversation_id: int) -> Conversation:
        return self._conversations.restore(conversation_id)

    def learn_again(self, conversation_id: int) -> int:
        """Have the next harvest read the parts of a conversation it gave up
        on; how many there are."""
        return self._conversations.learn_again(conversation_id)

    def conversation(self, conversation_id: int) -> Conversation | None:
        return self._conversations.get(conversation_id)

    def history(self, conversation_id: int, include_archived: bool = True) -> list[Message]:
        """The messages in the order they are read: the greeting first, even
        when a message the user sent while it was written was stored before it."""
        return greeting_first(self._conversations.messages(conversation_id, include_archived))

    def history_page(
        self,
        conversation_id: int,
        size: int,
        before: int | None = None,
        including: tuple[int, int] | None = None,
        after: int | None = None,
    ) -> MessagePage:
        """The conversation's last *size* messages (before message *before*,
        or the first *size* after message *after*, if given), archived ones
        too, in the order they are read (``history``); *including* (a
        message's id, how many to show before it) reads the *size* from a
        few before it instead, unless they reach the end."""
        page = None
        if after is not None:
            page = self._conversations.page_after(conversation_id, size, after)
        elif including is not None:
            page = self._conversations.page_around(conversation_id, size, *including)
            if not page.later or all(m.id != including[0] for m in page.messages):
                page = None  # the last page holds it, or nothing does
        if page is None:
            page = self._conversations.page(conversation_id, size, before)
        return replace(page, messages=greeting_first(page.messages))

    # -- turns -------------------------------------------------------------------
    def send(self, conversation_id: int, text: str) -> Turn:
        """Store *text* as the user's message, with any secret in it replaced
        by a placeholder (the model, the search index and the snapshots only
        ever see that); the returned turn answers it.  ``MessageRefused``
        says why a text cannot be a message (nothing is stored then)."""
        return self._store(conversation_id, text)

    def _store(self, conversation_id: int, text: str, replacing: Message | None = None) -> Turn:
        """``send``, in place of *replacing* and everything after it if given."""
        text = _sendable(text)
        before = None if replacing is None else replacing.id
        after = [m.content for m in self._conversations.last_messages(conversation_id, before)]
        cleaned = self._redact(text, after=after)  # seconds for a long paste: before the writes
        metadata = None
        if replacing is not None:  # an edit replaces a message, it does not say it again
            metadata = {REPLACES: [*replaced_ids(replacing), replacing.id]}
        # A value typed before it was named ("Zx8!pre55", then "that's my
        # email password") goes from what this conversation stored before,
        # from every other one that holds it (an excerpt of one would carry
        # it into any prompt once this run's redactor has forgotten it), and
        # from the memories made of it ("/remember when it asks, type X"):
        # with the message, and with the message it replaces, so no kill or
        # full disk keeps one without the other.
        found = (*cleaned.values, *cleaned.earlier)
        with self._conversations.transaction() as tx:
            if replacing is not None:
                self._conversations.delete_messages_from(
                    conversation_id, replacing.id, keep=_KEPT, tx=tx
                )
            message = self._conversations.add_message(
                conversation_id, "user", cleaned.text, metadata=metadata, tx=tx
            )
            rewrote = self._conversations.rewrite_conversation(
                conversation_id, found, lambda stored: without(stored, found), tx
            )
            for other in self._conversations.holding(tx, found):
                if other != conversation_id:
                    self._conversations.rewrite_conversation(
                        other, found, lambda stored: without(stored, found), tx
                    )
            if self._memories.take_out(found, tx):
                self._conversations.rewrote(tx)
            workers = self._worker_texts
            if workers is not None and workers.rewrite_holding(
                found, lambda stored: without(stored, found), tx
            ):
                self._conversations.rewrote(tx)  # the old words leave the WAL too
        if found or replacing is not None:
            self._finish_rewrite()
        if found:
            self._take_out_of_skills(found)
        self._title_from_first_message(conversation_id, cleaned.text, replacing)
        kinds = (*cleaned.kinds, *("password" for _ in cleaned.earlier))
        return Turn(conversation_id, message, seed=False, redacted=kinds, rewrote=rewrote)

    def _take_out_of_skills(self, values: Sequence[str]) -> None:
        """Take *values* out of the skills written with them (their files are
        no rows of this transaction: the message is stored by now, so a
        failure here is logged, not said as the message not sent)."""
        if self._skills is None:
            return
        try:
            self._skills.take_out(values)
        except EnvironmentProblem as error:
            log.warning("a secret named later could not be taken out of the skills: %s", error)

    def _finish_rewrite(self) -> None:
        """Drop the old words of what a message took out, or of the messages
        an edit or *Regenerate* replaced, from the search indexes and the
        WAL.  The message is stored by now and this is queued for the next
        start (``ConversationStore.rewrote``), so a full disk or a busy file
        here is logged, not said as the message not sent: sent again, it
        would be stored twice."""
        try:
            finished = self._conversations.finish_rewrite()
        except EnvironmentProblem as error:  # says where and why, not what was written
            log.warning("the search indexes are cleaned of old words at the next start: %s", error)
            return
        if not finished:
            log.info(
                "the WAL is emptied of old words at the next start: another connection reads it"
            )

    def greeting(self, conversation_id: int) -> Turn | None:
        """The turn that greets the user in a conversation nothing was said
        in yet (None once anything was)."""
        if self._conversations.has_messages(conversation_id):
            return None
        return Turn(conversation_id, None, seed=True)

    def last_user_message(self, conversation_id: int) -> Message | None:
        """The user's latest message, if nothing after it was summarised away."""
        return self._conversations.last_said(conversation_id, "user", unless=COMMAND)

    def last_answer(self, conversation_id: int) -> Message | None:
        """The model's answer to the user's latest message, which ``regenerate``
        replaces (so the one the chat offers it on); None before one is
        written.  Never what Reverie said on its own after the message (a
        reminder, a routine's answer, a review's question): regenerating keeps it."""
        asked = self.last_user_message(conversation_id)
        if asked is None:
            return None
        answers = [
            m
            for m in self._conversations.messages(conversation_id, after=asked.id)
            if m.role == "assistant" and kind_of(m) not in _KEPT
        ]
        return answers[-1] if answers else None

    def regenerate(self, conversation_id: int) -> Turn | None:
        """Forget the answer to the user's latest message (and the tool calls
        on its way) and answer it again; None if there is no such message."""
        asked = self.last_user_message(conversation_id)
        if asked is None:
            return None
        self._conversations.delete_messages_from(conversation_id, asked.id + 1, keep=_KEPT)
        return Turn(conversation_id, asked, seed=False, replaced=True)

    def edit_last(self, conversation_id: int, text: str) -> Turn:
        """Replace the user's latest message (and everything after it) with
        *text*, and answer that instead: in one transaction, so a text
        refused, a kill or a full disk replaces nothing."""
        return self._store(conversation_id, text, self.last_user_message(conversation_id))

    def run(self, turn: Turn, listener: TurnListener) -> None:
        """Run *turn*: the greeting or the answer, streamed to *listener*."""
        if (reading := self.reading) is not None:
            reading.cancel()  # read after this turn, it would drop the turn from the cache
        if turn.replaced:
            self._finish_rewrite()
        if turn.seed:
            prompt = self._prompts.seed_prompt(self._chat_settings.language)
            self._conversations.add_message(turn.conversation_id, "event", prompt, metadata=_SEED)
            self._reply(turn, listener, "seed")
        if turn.user_message is not None and not turn.control.cancelled:
            self._reply(turn, listener, "answer")

    def compact(self, conversation_id: int, control: JobControl) -> CompactionResult | None:
        """``/compact``: summarise all but the last messages now."""
        return self.compactor.compact(conversation_id, Priority.USER, control)

    def compact_idle(self, now: float | None = None) -> int:
        """Periodic compaction, in the background: conversations idle for a
        while with enough messages to summarise; then old archives are purged.
        How many conversations were compacted."""
        settings = self._chat_settings
        now = time.time() if now is None else now
        idle = self._conversations.idle_with_live_messages(
            now - settings.compaction_idle_minutes * 60,
            settings.keep_recent_messages + settings.compaction_min_new_messages,
        )
        compacted: list[int] = []
        try:
            for conversation_id in dict.fromkeys([*(c.id for c in idle), *self.compaction_owed()]):
                if self._compact_in_background(conversation_id):
                    compacted.append(conversation_id)
        except (CompactionCancelled, GenerationCancelled) as stopped:
            # Quitting stopped the model under it: no failure; what is left
            # is owed still, and goes on at the next start.
            log.debug("background compaction stopped: %s", stopped)
            return len(compacted)
        if self.compactor.purge_archived(settings.archive_days, now):
            self._finish_rewrite()  # their words leave the search index and the file
        if compacted:  # the one the user wrote in last is the one likely gone on with
            self.reading = self.read_ahead(max(compacted, key=self._last_written))
        return len(compacted)

    def _last_written(self, conversation_id: int) -> float:
        conversation = self._conversations.get(conversation_id)
        return 0.0 if conversation is None else conversation.updated_at

    def read_ahead(self, conversation_id: int) -> Job | None:
        """Have the chat model read this conversation's prompt as its next
        turn will begin, in the background (``InferenceBroker.read``): after
        a background summary changed it, the next reply would read it all
        again before its first word; now it reads the user's new message and
        what goes with it.  None when the next turn would not read it as it
        is (more than fits: that turn leaves some out or summarises first)."""
        turn = Turn(conversation_id, None, seed=False)
        assembled = self.assembled(conversation_id, self._offered_tools(turn, "answer"), False)
        tail = self._tail(conversation_id)
        history = self._history(turn, "answer", assembled, tail.messages, ahead=True).messages
        if not history or not tail.whole or self._over_budget(assembled, history):
            return None
        return self._broker.read([ChatMessage("system", assembled.system), *history])

    def owes_compaction(self) -> bool:
        """Whether a turn since the start found a conversation with more to
        summarise than it summarises before its reply, or one the next turn
        may not fit (``_next_may_overflow``), not all done yet."""
        with self._owed_lock:
            return bool(self._owed)

    def compaction_owed(self) -> list[int]:
        """The conversations with more to summarise than a turn summarises
        before its reply (``_owe_compaction``): those a turn found so since
        the start, and those the database says are owed, so that a restart
        does not forget them: an imported conversation is summarised only
        once it is gone on with, so one with a summary whose live messages
        still hold more than a context was gone on with and is not done."""
        with self._owed_lock:
            owed = set(self._owed)
        started = (
            c.id
            for c in self._conversations.list()
            if c.imported_from is not None and c.summary is not None and c.id not in owed
        )
        owed.update(c for c in started if not self._tail(c).whole)
        return sorted(owed)

    def _compact_in_background(self, conversation_id: int) -> bool:
        """Summarise a batch or a few of the conversation's older messages;
        whether any were.  One owed compaction (``_owe_compaction``) is no
        longer owed once nothing is left to summarise."""
        result = None
        try:
            result = self.compactor.compact(
                conversation_id, Priority.BACKGROUND, batches=BACKGROUND_BATCHES
            )
        except CompactionFailed as error:
            log.warning("background compaction of %d failed: %s", conversation_id, error)
            return False
        if result is None or not result.more:
            with self._owed_lock:
                self._owed.discard(conversation_id)
                self._told.discard(conversation_id)
        return result is not None

    def _owe_compaction(self, conversation_id: int, listener: TurnListener) -> None:
        """The conversation has more to summarise than a turn summarises
        first: the background does it; the first turn to find so says so."""
        with self._owed_lock:
            self._owed.add(conversation_id)
            told = conversation_id in self._told
            self._told.add(conversation_id)
        if not told:
            listener.notice(
                "This conversation's older messages are too many to summarise before a "
                "reply: they are summarised in the background, a part at a time, and until "
                "then each reply reads the newest messages that fit. They are all still "
                "in the conversation."
            )

    def _reply(self, turn: Turn, listener: TurnListener, kind: ReplyKind) -> None:
        """The model's reply, with the tool calls it makes on the way: each
        call's result goes back to it, until it answers in words."""
        offered = self._offered_tools(turn, kind)
        context = self._tool_context(turn)  # one for the turn's calls
        for calls in range(MAX_TOOL_CALLS + 1):
            usable = offered if calls < MAX_TOOL_CALLS else frozenset()
            called = self._say(turn, listener, kind, offered, usable)
            # Stopped before the tool ran: none runs; after: its result is
            # kept, and no reply starts that the stop would cut at once.
            if called is None or turn.control.cancelled:
                return
            reply, call = called
            listener.tool_called(self._call_tool(turn, context, reply, call, usable))
            if turn.control.cancelled:
                return

    def _say(
        self,
        turn: Turn,
        listener: TurnListener,
        kind: ReplyKind,
        offered: frozenset[str],
        usable: frozenset[str],
    ) -> tuple[Message, str] | None:
        """One message from the model, streamed, stored and reported; if it
        ends with a tool call, the stored message and the call's JSON."""
        fitted = self._fitted_prompt(turn, listener, kind, offered)
        if fitted is None:
            return None
        prompt, used = fitted
        reply = partial(Reply, memory_ids=used.memories, excerpt_ids=used.excerpts)
        listener.stage(Stage.READING)
        listener.reply_started(kind)
        job = turn.control.run(self._broker.chat(prompt, self._options(offered, usable)))
        visible = StopScanner([TOOL_CALL_START] if usable else [])
        parts: list[str] = []
        said: list[str] = []
        reason = "stop"
        called = False
        try:
            for chunk in job.chunks():
                if chunk.text:
                    if not parts:
                        listener.stage(Stage.REPLYING)
                    parts.append(chunk.text)
                    if not called:  # the call itself is shown as a call, not as text
                        piece, called = visible.feed(chunk.text)
                        if piece:
                            said.append(piece)
                            listener.text(piece)
                reason = chunk.finish_reason or reason
        except ModelError:
            # The model went away mid-reply (a server stopped): what it said is kept.
            said.append("" if called else visible.flush())
            kept = "".join(said if called else parts)  # never half a tool call
            stored = self._record(turn, kind, kept, "error", used)
            listener.reply_finished(reply(kind, "".join(said), "error", stored))
            raise
        if not called and (held := visible.flush()):
            said.append(held)
            listener.text(held)
        text = "".join(parts)
        # A call stopped while it was written is half a call, which no
        # result answers: what is kept is what was said before it.
        shown = "".join(said).rstrip() if called else "".join(said)
        kept = shown if called and reason == "cancelled" else text
        stored = self._record(turn, kind, kept, reason, used)
        listener.reply_finished(reply(kind, shown, reason, stored))
        if kind == "answer" and reason != "cancelled" and not text.strip():
            listener.notice(EMPTY_REPLY)
        if reason == "cancelled":
            turn.control.cancel()  # a stopped seed also stops the answer after it
            return None
        if not called or stored is None:  # a reply with a call is never blank, so stored
            return None
        return stored, text.partition(TOOL_CALL_START)[2]

    def _tool_context(self, turn: Turn) -> ToolContext:
        """Where the calls of *turn* are made: the user's message it answers
        (``ToolContext.said``) and what Reverie said just before it (``asked``)."""
        if (message := turn.user_message) is None:
            return ToolContext(turn.conversation_id)
        return answering(self._conversations, message)

    def _offered_tools(self, turn: Turn, kind: ReplyKind) -> frozenset[str]:
        """The tools an answer may use (none for a greeting; none that learn
        off the record)."""
        if self._toolbox is None or kind == "seed":
            return frozenset()
        conversation = self._conversations.get(turn.conversation_id)
        off_record = conversation is not None and conversation.off_record
        return self._toolbox.offered(off_record=off_record)

    def _call_tool(
        self,
        turn: Turn,
        context: ToolContext,
        reply: Message,
        call_json: str,
        usable: frozenset[str],
    ) -> ToolCall:
        """Run the call *reply* ended with and store its result, which the
        model reads next, naming the reply; what is stored of both is
        redacted, as every message is."""
        assert self._toolbox is not None  # only offered tools are called
        call = self._toolbox.call(call_json, context, usable)
        result = call.result
        metadata = {
            TOOL: call.name,
            "arguments": self._redact.within(call.arguments),
            "ok": result.ok,
            "summary": self._redact.text(result.summary),
            CALLED_BY: reply.id,
        }
        content = json.dumps(self._redact.within(result.content), ensure_ascii=False)
        self._conversations.add_message(turn.conversation_id, "tool", content, metadata=metadata)
        return call

    def _record(
        self, turn: Turn, kind: ReplyKind, text: str, reason: str, used: _Used
    ) -> Message | None:
        """Store a reply (a stopped one keeps what was said), with the
        memories and excerpts it was given, redacted as the user's messages are: a model
        that repeats a secret must not write it to the database."""
        if not text.strip():
            return None
        text = self._redact.text(text)
        metadata: dict[str, object] = {}
        if kind == "seed":
            metadata["kind"] = SEED
        if reason != "stop":
            metadata["finish_reason"] = reason
        if used.memories:
            metadata[USED_MEMORIES] = list(used.memories)
        if used.excerpts:
            metadata[USED_EXCERPTS] = list(used.excerpts)
        return self._conversations.add_message(
            turn.conversation_id, "assistant", text, metadata=metadata or None
        )

    # -- the prompt --------------------------------------------------------------
    def assembled(
        self, conversation_id: int, tools: frozenset[str] = frozenset(), recall: bool = True
    ) -> AssembledPrompt:
        """The prompt parts a call in this conversation, offered *tools*, would
        get now (without what is recalled for its newest message, unless *recall*)."""
        conversation = self._conversations.get(conversation_id)
        memories, excerpts = self._recalled(conversation_id) if recall else ([], [])
        now = self._clock()
        inputs = PromptInputs(
            now=now,
            tools=tools,
            tool_list=self._toolbox.describe(tools) if self._toolbox and tools else "",
            memories=[memory_line(m) for m in memories],
            excerpts=[excerpt_line(e, now.tzinfo) for e in excerpts],
            tasks=self._tasks.prompt_lines() if self._tasks else (),
            summary=conversation.summary if conversation else None,
            skills=(
                self._skills.table_of_contents(self._chat_settings.skills_chars)
                if self._skills
                else ()
            ),
        )
        return assemble(self._prompts, inputs, self._limits, self.condenser.condensed)

    def _recalled(self, conversation_id: int) -> tuple[list[Memory], list[Excerpt]]:
        """The memories and the excerpts of other conversations for the
        newest user message and the reply before it; before the user has
        said anything, the most important memories."""
        top_k = self._chat_settings.memories_top_k
        asked = self._last_said(conversation_id, "user")
        if not asked.strip():
            return self._memories.store.listed(limit=top_k), []
        replied = self._last_said(conversation_id, "assistant")
        if self._recall is None:
            retrieved = self._memories.retriever.retrieve(asked, replied, k=top_k)
            return [found.memory for found in retrieved], []
        recalled = self._recall.recall(
            asked,
            replied,
            conversation_id=conversation_id,
            memories_k=top_k,
            excerpts_k=self._chat_settings.excerpts_top_k,
        )
        return [r.memory for r in recalled.memories], [r.excerpt for r in recalled.excerpts]

    def _last_said(self, conversation_id: int, role: MessageRole) -> str:
        """The text of the conversation's latest live message of *role*, any kind."""
        said = self._conversations.last_said(conversation_id, role, unless="")
        return "" if said is None else said.content

    def _tail(self, conversation_id: int) -> Tail:
        """The newest live messages a turn reads: all of them, unless those
        before the last ``keep_recent`` hold more than a model's context
        (more than a turn summarises before its reply: ``_fitted_prompt``)."""
        keep = self.compactor.keep_recent

        def enough(read: Sequence[Message]) -> bool:
            older = [m.content for m in read[: max(0, len(read) - keep)]]
            tokens = sum(self.count_tokens(older)) + MESSAGE_OVERHEAD * len(older)
            return tokens > self._settings.context_length

        return live_tail(self._conversations, conversation_id, enough)

    def _fitted_prompt(
        self, turn: Turn, listener: TurnListener, kind: ReplyKind, tools: frozenset[str]
    ) -> tuple[list[ChatMessage], _Used] | None:
        """The prompt for the next reply, compacted or trimmed to fit the
        context, and the memories and excerpts in it."""
        cid = turn.conversation_id
        assembled = self.assembled(cid, tools)
        tail = self._tail(cid)
        read = tail.messages
        if not tail.whole:  # more than a context's worth: over the budget, surely
            self._owe_compaction(cid, listener)
            # The newest that fit as stored (what the model reads is no shorter).
            read = read[self._left_out(assembled, [ChatMessage("user", m.content) for m in read]) :]
        history = self._history(turn, kind, assembled, read)
        over = tail.whole and self._over_budget(assembled, history.messages)
        summarisable = len(read) > self.compactor.keep_recent  # else all are kept word for word
        if over and summarisable:
            listener.stage(Stage.COMPACTING)
            try:
                if self.compactor.compact(cid, Priority.USER, turn.control) is not None:
                    listener.notice("Older messages were summarised to fit the model's context.")
            except CompactionCancelled:
                return None
            except CompactionFailed as error:
                listener.notice(f"Older messages could not be summarised: {error}.")
            assembled = self.assembled(cid, tools)
            tail = self._tail(cid)
            read = tail.messages
            history = self._history(turn, kind, assembled, read)
        self.condenser.submit(history.oversized)
        if left_out := self._left_out(assembled, history.messages):
            # What went with the messages left out goes with this one, if relevant.
            history = self._history(turn, kind, assembled, read, left_out)
        kept = self._trimmed(
            assembled, history.messages, listener, history.answering_at, said=tail.whole
        )
        if tail.whole and not over and summarisable and self._next_may_overflow(assembled, kept):
            with self._owed_lock:  # summarised in the background, not in the next turn
                self._owed.add(cid)
        if (asked := history.answering) is not None:
            now_given = history.given
            for key, ids in ((GIVEN, now_given.memories), (GIVEN_EXCERPTS, now_given.excerpts)):
                if ids != given(asked, key):
                    self._conversations.annotate(asked.id, key, list(ids))
        return [ChatMessage("system", assembled.system), *kept], history.used

    def _history(
        self,
        turn: Turn,
        kind: ReplyKind,
        assembled: AssembledPrompt,
        tail: Sequence[Message],
        left_out: int = 0,
        ahead: bool = False,
    ) -> _History:
        """The conversation's *tail* as the model reads it: each user message
        with its time and the memories that go with it (``contexts``), the
        one being answered with the relevant memories no message read goes
        with; a greeting's newest message with the time and memories of now.
        *ahead*: the tail as the next turn will read it, before its message."""
        read = _read(tail, kind)
        tool_response = self._prompts.section(COMPONENTS, "tool_response") or "{result}"
        history = _prompt_history(read, tool_response)
        template = assembled.turn_template
        asked = turn.user_message
        answering = next((m for m in read if asked is not None and m.id == asked.id), None)
        if (answering is None and not ahead) or kind == "seed":
            if history:
                history[-1] = joined(template, history[-1], assembled.turn_context)
            used = _Used(assembled.memory_ids, assembled.excerpt_ids)
            return _History(history, used, assembled.oversized)
        now = _Used() if answering is None else _Used(assembled.memory_ids, assembled.excerpt_ids)
        at_id = 0 if answering is None else answering.id
        goes_with = given_with(read, at_id, now.memories, left_out)
        recalled = given_with(read, at_id, now.excerpts, left_out, GIVEN_EXCERPTS)
        found = self._memories.store.get_many(_all(goes_with))
        zone = self._clock().tzinfo
        excerpts = {} if self._recall is None else self._recall.excerpts(_all(recalled))
        shown: set[int] = set()
        shown_excerpts: set[int] = set()
        # The memories and excerpts of now go with the message (its context's own).
        oversized = [o for o in assembled.oversized if o.component not in _GIVEN_PARTS]
        previous: datetime | None = None  # when the last user message read was sent
        for index, message in enumerate(read):
            if message.id not in goes_with:
                continue
            lines = [
                memory_line(found[i])
                for i in goes_with[message.id]
                if i in found and found[i].status == "active"
            ]
            quoted = [
                excerpt_line(excerpts[i], zone) for i in recalled[message.id] if i in excerpts
            ]
            sent = datetime.fromtimestamp(message.created_at, zone)
            context = message_context(
                self._prompts,
                sent,
                lines,
                self._limits,
                self.condenser.condensed,
                previous,
                quoted,
            )
            previous = sent if index >= left_out else None
            oversized += context.oversized
            history[index] = joined(template, history[index], context.text)
            if index >= left_out:
                shown.update(context.memory_ids)
                shown_excerpts.update(context.excerpt_ids)
        if answering is None:
            return _History(history, _Used(), tuple(oversized))
        used = _Used(
            tuple(i for i in assembled.memory_ids if i in shown),
            tuple(i for i in assembled.excerpt_ids if i in shown_excerpts),
        )
        given_now = _Used(goes_with[answering.id], recalled[answering.id])
        at = read.index(answering)
        return _History(history, used, tuple(oversized), answering, given_now, at)

    def _budget(self, assembled: AssembledPrompt) -> int:
        fixed = self.count_tokens([assembled.system])[0]
        return (
            self._settings.context_length
            - self._settings.max_reply_tokens
            - fixed
            - 2 * MESSAGE_OVERHEAD
            - _MARGIN_TOKENS
        )

    def _over_budget(
        self, assembled: AssembledPrompt, history: Sequence[ChatMessage], more: int = 0
    ) -> bool:
        """Whether *history*, and *more* tokens after it, hold more than the budget."""
        counts = self.count_tokens([m.content for m in history])
        return sum(counts) + MESSAGE_OVERHEAD * len(history) + more > self._budget(assembled)

    def _next_may_overflow(self, assembled: AssembledPrompt, prompt: Sequence[ChatMessage]) -> bool:
        """Whether the turn after this one may not fit: *prompt*'s history,
        this reply at its longest and a next message as long as this one
        hold more than the budget (the high-water mark at which the older
        messages are summarised in the background, before a turn must wait
        for it: ``compact_idle``)."""
        if not prompt:
            return False
        (newest,) = self.count_tokens([prompt[-1].content])
        next_turn = self._settings.max_reply_tokens + newest + 2 * MESSAGE_OVERHEAD
        return self._over_budget(assembled, prompt, more=next_turn)

    def _left_out(self, assembled: AssembledPrompt, history: Sequence[ChatMessage]) -> int:
        """How many of the oldest messages of *history* must be left out to fit."""
        budget = self._budget(assembled)
        counts = [c + MESSAGE_OVERHEAD for c in self.count_tokens([m.content for m in history])]
        dropped = 0
        while len(history) - dropped > 1 and sum(counts[dropped:]) > budget:
            dropped += 1
        return dropped

    def _trimmed(
        self,
        assembled: AssembledPrompt,
        history: list[ChatMessage],
        listener: TurnListener,
        answering_at: int | None = None,
        said: bool = True,
    ) -> list[ChatMessage]:
        """*history* without its oldest messages, and the newest cut in the
        middle, as far as needed to fit; the stored messages stay whole.
        The user's message being answered (at *answering_at*) is kept while
        what came after it (a tool's long result) can be cut to fit instead:
        a model given the result alone does not know what it was asked.
        How many were left out is said if *said* (else it was said once,
        for a history too long to count: ``_owe_compaction``)."""
        budget = self._budget(assembled)
        dropped = self._left_out(assembled, history)
        if answering_at is not None and answering_at < len(history) - 1:
            counts = self.count_tokens([m.content for m in history[answering_at:-1]])
            before_newest = sum(counts) + MESSAGE_OVERHEAD * len(counts)
            if budget - before_newest >= _LEAST_READ_TOKENS:
                dropped = min(dropped, answering_at)
                budget -= before_newest
        if dropped and said:
            listener.notice(
                f"The {dropped} oldest messages did not fit in the model's context and were "
                "left out of this reply. They are still in the conversation."
            )
        kept = history[dropped:]
        if kept and (size := self.count_tokens([kept[-1].content])[0] + MESSAGE_OVERHEAD) > budget:
            last = kept[-1]
            kept[-1] = ChatMessage(last.role, cut_middle(last.content, size, budget))
            listener.notice(
                "This message is longer than the model can read at once; it read the "
                "beginning and the end. The whole message is kept in the conversation."
            )
        return kept

    def _options(self, offered: frozenset[str], usable: frozenset[str]) -> GenerationOptions:
        """Free text; a tool call after the marker under the tools' schema while
        tools are *usable*; when they are offered but used up, text that ends
        where a call would begin."""
        options = GenerationOptions(
            max_tokens=self._settings.max_reply_tokens,
            temperature=self._settings.temperature,
            stop=(SYSTEM_EVENT,),  # a small model may echo the greeting's instruction
        )
        if usable and self._toolbox is not None:
            schema = self._toolbox.schema(usable)
            return replace(options, json_schema=schema, json_schema_after=TOOL_CALL_START)
        return replace(options, stop=(*options.stop, TOOL_CALL_START)) if offered else options

    def _title_from_first_message(
        self, conversation_id: int, text: str, replacing: Message | None = None
    ) -> None:
        """Name a new conversation after its first message, *text*; an edit
        of the message its title was made of (*replacing*) names it again
        (the words taken back must not stay in the title, which is shown
        wherever the conversation is recalled)."""
        conversation = self.conversation(conversation_id)
        if conversation is None:
            return
        made_of = None if replacing is None else _title_of(replacing.content)
        if conversation.title in (NEW_CONVERSATION_TITLE, made_of):
            self._conversations.rename(conversation_id, _title_of(text) or NEW_CONVERSATION_TITLE)

    # -- memories ----------------------------------------------------------------
    def given_memories(self, conversation_id: int) -> list[Memory]:
        """``/memory``: the memories the next reply would be given, those
        relevant now first (best first), then those that go with the
        messages it reads (``contexts``): it reads them all, so listing the
        relevant ones alone left out what the model was told earlier on."""
        relevant = self.assembled(conversation_id).memory_ids
        read = _read(self._tail(conversation_id).messages, "answer")
        asked = self.last_user_message(conversation_id)
        goes_with = given_with(read, 0 if asked is None else asked.id, relevant)
        ids = list(dict.fromkeys((*relevant, *_all(goes_with))))
        found = self._memories.store.get_many(ids)
        return [found[i] for i in ids if i in found and found[i].status == "active"]

    def used_excerpts(self, message: Message) -> list[Excerpt]:
        """The excerpts of other conversations a stored reply was given (those
        still findable: not deleted, not off the record), redacted."""
        ids = (message.metadata or {}).get(USED_EXCERPTS, [])
        if self._recall is None or not isinstance(ids, list):
            return []
        found = self._recall.excerpts([i for i in ids if isinstance(i, int)], for_model=False)
        return [found[i] for i in ids if i in found]

    def used_memories(self, message: Message) -> list[Memory]:
        """The memories a stored reply was given (those still kept)."""
        ids = (message.metadata or {}).get(USED_MEMORIES, [])
        found = (self._memories.store.get(int(i)) for i in ids)
        return [m for m in found if m is not None and m.status != "deleted"]

    def undo_remember(self, remembered: Remembered) -> None:
        """Undo ``/remember``: a memory it added is deleted (restorable from
        the memory browser); a reinforcement leaves the memory as it was."""
        if remembered.outcome == "added":
            self._memories.set_status([remembered.memory.id], "deleted")

    def remember(self, text: str, conversation_id: int | None = None) -> Remembered:
        """``/remember``: store *text* as a memory the user asked for
        (``MemoryRefused`` says why not).  Typed in *conversation_id*, the
        command is kept there as the memory's source."""
        source = None
        if conversation_id is not None:
            # What the gate refuses is refused before its source is read
            # for secrets: a megabyte pasted after /remember took minutes
            # to read, then was refused as too long for a memory.
            self._memories.vet(text)
            # The memory is redacted by the memory gate; its source, here.
            command = self._redact.text(scrub(f"/remember {text.strip()}"))
            source = self._conversations.add_message(
                conversation_id, "user", command, metadata={"kind": COMMAND}
            )
        try:
            remembered = self._memories.remember(
                text,
                source_kind="user_explicit",
                actor="user",
                importance=0.8,
                category=None,  # filed by what it says (desktop/core/memory/category.py)
                message_ids=() if source is None else (source.id,),
            )
        except ReverieError:
            if source is not None:  # nothing was kept, so there is nothing to source
                self._conversations.delete_messages_from(source.conversation_id, source.id)
                self._finish_rewrite()
            raise
        if source is None:
            return remembered
        # the conversation is named as if it were a message
        self._title_from_first_message(source.conversation_id, source.content)
        return replace(remembered, source=source)

    def forget(self, text: str) -> tuple[list[Memory], list[Memory]]:
        """``/forget``: (forgotten, candidates).  ``#id`` or text matching one memory
        forgets it; text matching several lists them instead."""
        reference = text.strip().removeprefix("#")
        if reference.isdigit():  # an id, though perhaps one no memory can have
            memory_id = _row_id(reference)
            memory = None if memory_id is None else self._memories.store.get(memory_id)
            if memory is None or memory.status != "active":
                return [], []
            return self._memories.set_status([memory.id], "deleted"), []
        hits = [hit.memory for hit in self._memories.store.search_text(text, limit=5)]
        exact = [m for m in hits if text.strip().casefold() in m.content.casefold()]
        chosen = exact if len(exact) == 1 else hits if len(hits) == 1 else []
        if chosen:
            return self._memories.set_status([chosen[0].id], "deleted"), []
        return [], hits


class MessageRefused(ReverieError):
    """A text cannot be sent as a message; ``str()`` says why."""


def _sendable(text: str) -> str:
    """*text* as a message stores it (lone surrogates replaced), or
    ``MessageRefused`` if it holds nothing to read (line breaks, control
    characters, accents with no letter, blanks: no title, nothing to answer)."""
    text = scrub(text)
    if shows_nothing(text):
        raise MessageRefused("There is nothing to send in it.")
    return text


def _row_id(digits: str) -> int | None:
    """The id *digits* (all ``str.isdigit``) stand for; None where no row can
    have it: a digit ``int`` does not read (a superscript ``²``), a number
    past what SQLite stores, or one too long for ``int`` at all."""
    if not digits.isdecimal():
        return None
    significant = without_leading_zeros(digits)  # of any script, as schedules read them
    if len(significant) > len(str(ROW_ID_MAX)):
        return None
    number = int(significant or "0")  # not the zeros: int() refuses 4,300 digits
    return number if 1 <= number <= ROW_ID_MAX else None


_SEED = {"kind": SEED}
_KEPT = (SEED, COMMAND, *get_args(RunKind), AGENDA_REVIEW)
"""What regenerating or editing the last message does not remove with the
reply: the greeting, what Reverie said on its own meanwhile (a reminder,
a routine's answer, an agenda review's question), which no reply replaces,
and a command the user typed after it (a ``/remember`` stays in the
conversation as its memory's source)."""


def stored_tool_call(message: Message) -> ToolCall:
    """A stored tool result (role ``tool``) as the call it came from."""
    metadata = message.metadata or {}
    try:
        content = json.loads(message.content)
    except ValueError:
        content = {"result": message.content}
    result = ToolResult(
        bool(metadata.get("ok")),
        content if isinstance(content, dict) else {"result": content},
        str(metadata.get("summary", "")),
    )
    arguments = metadata.get("arguments")
    return ToolCall(
        str(metadata.get(TOOL, "")), arguments if isinstance(arguments, dict) else {}, result
    )


def _all(given: dict[int, tuple[int, ...]]) -> list[int]:
    """The ids any message goes with, each once."""
    return sorted({i for ids in given.values() for i in ids})


def _read(messages: Sequence[Message], kind: ReplyKind) -> list[Message]:
    """The messages the model reads, in order: the seed opens the
    conversation, even when it was stored after the first user message it
    greets (and the seed itself is written seeing only the seed event)."""
    ordered = [m for m in messages if is_seed(m)] if kind == "seed" else greeting_first(messages)
    return [m for m in ordered if m.role in _PROMPT_ROLES and not is_command(m)]


def _title_of(text: str) -> str:
    """The title a conversation is given from its first message, *text*:
    its first line that shows something, as the store keeps a title
    (without what shows nothing: an edit finds the title it made), cut;
    "" when no line shows anything."""
    lines = (line.strip() for line in readable(text).splitlines())
    first_line = next((line for line in lines if not shows_nothing(line)), "")
    return cut(first_line, MADE_TITLE_CHARS + 1)


def _prompt_history(read: Sequence[Message], tool_response: str) -> list[ChatMessage]:
    """*read* as the model sees it: a tool's result comes back to it as a
    message wrapped in *tool_response*."""
    calls = _calls_made(read)
    return [
        ChatMessage(
            _PROMPT_ROLES[m.role],  # type: ignore[arg-type]  # mapped roles
            _as_read(m, tool_response, calls.get(m.id)),
        )
        for m in read
    ]


def _calls_made(messages: Sequence[Message]) -> dict[int, ToolCall]:
    """The calls among *messages*, by the id of the reply that made each, as
    its result names it (``CALLED_BY``), never by what was stored next to
    what.  No result names what Reverie said on its own (a reminder or a
    review's notice quoting a "<tool_call>"), wherever it was stored; a
    reply whose result was stored before results named theirs is read as
    text, made safe."""
    calls: dict[int, ToolCall] = {}
    for message in messages:
        caller = (message.metadata or {}).get(CALLED_BY)
        if message.role == "tool" and isinstance(caller, int):
            calls[caller] = stored_tool_call(message)
    return calls


def _as_read(message: Message, tool_response: str, call: ToolCall | None) -> str:
    """What the model reads of a stored message.  A tool's result, and what
    Reverie said (a reminder or an agenda review quotes tasks and memories),
    carry memories, tasks and skills: made safe like them.  A reply that
    made *call* ends with the call as it was read, not as it was written:
    the stored text holds whatever the model wrote after the marker (more
    text after the JSON, a call no one could read), which a server that
    ignores the grammar does not bound.  The user's words are theirs to
    write, but no turn token in them may become one (``users_own``)."""
    if message.role == "tool":
        return fill(tool_response, result=safe_for_prompt(message.content, "document"))
    if message.role == "assistant":
        if call is None or not call.name:  # no call, or one that could not be read
            return safe_for_prompt(message.content, "document")
        said = message.content.partition(TOOL_CALL_START)[0]
        return safe_for_prompt(said, "document") + TOOL_CALL_START + _call_as_read(call)
    if message.role == "user":
        return users_own(message.content)
    return message.content


def _call_as_read(call: ToolCall) -> str:
    """The JSON of *call* as the tool's result records it: its name and
    arguments, made safe as that result is (the model wrote them, but from
    the user's words and what the tools returned)."""
    written = json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)
    return safe_for_prompt(written, "document")
