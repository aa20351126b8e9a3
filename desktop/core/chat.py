"""Chat turns, Qt-free: conversations, the conversation seed, compaction
before a reply that would not fit, prompt assembly and the reply itself.

A turn is plain work run off the UI thread: ``ChatService.run(turn,
listener)`` tells the listener what happens (compacting, reading the prompt,
each piece of text, each finished reply, notices) and can be stopped at any
point through ``Turn.cancel()``.
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

from desktop.core.compaction import (
    CompactionCancelled,
    CompactionFailed,
    CompactionResult,
    Compactor,
)
from desktop.core.condenser import Condenser
from desktop.core.db import Conversation, ConversationStore, Memory, Message
from desktop.core.jobs import JobControl
from desktop.core.memory_gate import INSTRUCTION_LIKE, is_instruction_like
from desktop.core.memory_service import MemoryService, Remembered
from desktop.core.prompt_assembly import (
    AssembledPrompt,
    ComponentLimits,
    MemoryLine,
    PromptInputs,
    assemble,
)
from desktop.core.prompts import PromptLibrary
from desktop.core.redaction import redact
from desktop.core.settings import ChatSettings, ModelSettings
from desktop.core.text import scrub
from desktop.core.tokens import MESSAGE_OVERHEAD, TokenCounter, cut_middle
from models.broker import InferenceBroker, Priority
from models.interfaces import ChatMessage, GenerationOptions

log = logging.getLogger(__name__)

NEW_CONVERSATION_TITLE = "New conversation"
SEED = "seed"
USED_MEMORIES = "memories"
"""Message metadata key: the ids of the memories a reply was given."""
_TITLE_CHARS = 48
_PROMPT_ROLES = {"user": "user", "assistant": "assistant", "event": "user"}
_MARGIN_TOKENS = 16

ReplyKind = Literal["seed", "answer"]


class Stage(enum.Enum):
    COMPACTING = "compacting"
    READING = "reading"
    REPLYING = "replying"


@dataclass(frozen=True)
class Reply:
    kind: ReplyKind
    text: str
    finish_reason: str
    message: Message | None
    """The stored reply; None when nothing was said."""
    memory_ids: tuple[int, ...] = ()
    """The memories the model was given for this reply."""


class TurnListener(Protocol):
    """What a running turn reports, in order, from the thread it runs on."""

    def stage(self, stage: Stage) -> None: ...

    def reply_started(self, kind: ReplyKind) -> None: ...

    def text(self, piece: str) -> None: ...

    def reply_finished(self, reply: Reply) -> None: ...

    def notice(self, text: str) -> None: ...


@dataclass
class Turn:
    """A turn to run: a seed, an answer to *user_message*, or both (seed first)."""

    conversation_id: int
    user_message: Message | None
    seed: bool
    control: JobControl = field(default_factory=JobControl)

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
        clock: Callable[[], datetime] = lambda: datetime.now().astimezone(),
    ) -> None:
        self._conversations = conversations
        self._memories = memories
        self._broker = broker
        self._prompts = prompts
        self._settings = model_settings
        self._chat_settings = chat_settings or ChatSettings()
        self._clock = clock
        self.count_tokens = TokenCounter(broker)
        self.compactor = Compactor(
            conversations,
            broker,
            prompts,
            self.count_tokens,
            context_length=model_settings.context_length,
            keep_recent=self._chat_settings.keep_recent_messages,
        )
        self.condenser = Condenser(broker, prompts)
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

    def rename(self, conversation_id: int, title: str) -> Conversation:
        return self._conversations.rename(conversation_id, title.strip() or NEW_CONVERSATION_TITLE)

    def delete(self, conversation_id: int) -> None:
        self._conversations.delete(conversation_id)

    def conversation(self, conversation_id: int) -> Conversation | None:
        return self._conversations.get(conversation_id)

    def history(self, conversation_id: int, include_archived: bool = True) -> list[Message]:
        return self._conversations.messages(conversation_id, include_archived)

    # -- turns -------------------------------------------------------------------
    def send(self, conversation_id: int, text: str) -> Turn:
        """Store *text* as the user's message; the returned turn answers it
        (opening the conversation with a seed first if it was empty)."""
        text = scrub(text)
        empty = not self._conversations.messages(conversation_id, include_archived=True)
        message = self._conversations.add_message(conversation_id, "user", text)
        self._title_from_first_message(conversation_id, text)
        return Turn(conversation_id, message, seed=empty)

    def start_conversation(self, off_record: bool = False) -> Turn:
        """A new conversation and the turn that opens it with a seed (``/new``)."""
        conversation = self.new_conversation(off_record)
        return Turn(conversation.id, None, seed=True)

    def run(self, turn: Turn, listener: TurnListener) -> None:
        """Run *turn*: the seed, then the answer, each streamed to *listener*."""
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
        compacted = 0
        for conversation in idle:
            try:
                compacted += (
                    self.compactor.compact(conversation.id, Priority.BACKGROUND) is not None
                )
            except CompactionFailed as error:
                log.warning("background compaction of %d failed: %s", conversation.id, error)
        self.compactor.purge_archived(settings.archive_days, now)
        return compacted

    def _reply(self, turn: Turn, listener: TurnListener, kind: ReplyKind) -> None:
        fitted = self._fitted_prompt(turn, listener, kind)
        if fitted is None:
            return
        prompt, used = fitted
        listener.stage(Stage.READING)
        listener.reply_started(kind)
        job = turn.control.run(self._broker.chat(prompt, self._options()))
        parts: list[str] = []
        reason = "stop"
        for chunk in job.chunks():
            if chunk.text:
                if not parts:
                    listener.stage(Stage.REPLYING)
                parts.append(chunk.text)
                listener.text(chunk.text)
            reason = chunk.finish_reason or reason
        text = "".join(parts)
        stored = self._record(turn, kind, text, reason, used)
        listener.reply_finished(Reply(kind, text, reason, stored, used))
        if reason == "cancelled":
            turn.control.cancel()  # a stopped seed also stops the answer after it

    def _record(
        self, turn: Turn, kind: ReplyKind, text: str, reason: str, used: tuple[int, ...]
    ) -> Message | None:
        """Store a reply (a stopped one keeps what was said), with the
        memories it was given."""
        if not text.strip():
            return None
        metadata: dict[str, object] = {}
        if kind == "seed":
            metadata["kind"] = SEED
        if reason != "stop":
            metadata["finish_reason"] = reason
        if used:
            metadata[USED_MEMORIES] = list(used)
        return self._conversations.add_message(
            turn.conversation_id, "assistant", text, metadata=metadata or None
        )

    # -- the prompt --------------------------------------------------------------
    def assembled(self, conversation_id: int) -> AssembledPrompt:
        """The prompt parts a call in this conversation would get now."""
        conversation = self._conversations.get(conversation_id)
        memories = [_memory_line(m) for m in self._relevant_memories(conversation_id)]
        inputs = PromptInputs(
            now=self._clock(),
            memories=memories,
            summary=conversation.summary if conversation else None,
        )
        return assemble(self._prompts, inputs, self._limits, self.condenser.condensed)

    def _relevant_memories(self, conversation_id: int) -> list[Memory]:
        """The memories for the newest user message and the reply before it;
        before the user has said anything, the most important ones."""
        top_k = self._chat_settings.memories_top_k
        messages = self._conversations.messages(conversation_id)
        asked = next((m.content for m in reversed(messages) if m.role == "user"), "")
        if not asked.strip():
            return self._memories.store.listed(limit=top_k)
        replied = next((m.content for m in reversed(messages) if m.role == "assistant"), "")
        retrieved = self._memories.retriever.retrieve(asked, replied, k=top_k)
        return [found.memory for found in retrieved]

    def _fitted_prompt(
        self, turn: Turn, listener: TurnListener, kind: ReplyKind
    ) -> tuple[list[ChatMessage], tuple[int, ...]] | None:
        """The prompt for the next reply, compacted or trimmed to fit the
        context, and the memories in it."""
        cid = turn.conversation_id
        assembled = self.assembled(cid)
        history = _prompt_history(self._conversations.messages(cid), kind)
        if self._over_budget(assembled, history) and self.compactor.foldable(cid):
            listener.stage(Stage.COMPACTING)
            try:
                if self.compactor.compact(cid, Priority.USER, turn.control) is not None:
                    listener.notice("Older messages were summarised to fit the model's context.")
            except CompactionCancelled:
                return None
            except CompactionFailed as error:
                listener.notice(f"Older messages could not be summarised: {error}.")
            assembled = self.assembled(cid)
            history = _prompt_history(self._conversations.messages(cid), kind)
        self.condenser.submit(assembled.oversized)
        prompt = assembled.messages(self._trimmed(assembled, history, listener))
        return prompt, assembled.memory_ids

    def _budget(self, assembled: AssembledPrompt) -> int:
        fixed = sum(self.count_tokens([assembled.system, assembled.turn_context]))
        return (
            self._settings.context_length
            - self._settings.max_reply_tokens
            - fixed
            - 2 * MESSAGE_OVERHEAD
            - _MARGIN_TOKENS
        )

    def _over_budget(self, assembled: AssembledPrompt, history: Sequence[ChatMessage]) -> bool:
        counts = self.count_tokens([m.content for m in history])
        return sum(counts) + MESSAGE_OVERHEAD * len(history) > self._budget(assembled)

    def _trimmed(
        self, assembled: AssembledPrompt, history: list[ChatMessage], listener: TurnListener
    ) -> list[ChatMessage]:
        """*history* without its oldest messages, and the newest cut in the
        middle, as far as needed to fit; the stored messages stay whole."""
        budget = self._budget(assembled)
        counts = [c + MESSAGE_OVERHEAD for c in self.count_tokens([m.content for m in history])]
        dropped = 0
        while len(history) - dropped > 1 and sum(counts[dropped:]) > budget:
            dropped += 1
        if dropped:
            listener.notice(
                f"The {dropped} oldest messages did not fit in the model's context and were "
                "left out of this reply. They are still in the conversation."
            )
        kept = history[dropped:]
        if kept and counts[-1] > budget:
            last = kept[-1]
            kept[-1] = ChatMessage(last.role, cut_middle(last.content, counts[-1], budget))
            listener.notice(
                "This message is longer than the model can read at once; it read the "
                "beginning and the end. The whole message is kept in the conversation."
            )
        return kept

    def _options(self) -> GenerationOptions:
        return GenerationOptions(
            max_tokens=self._settings.max_reply_tokens, temperature=self._settings.temperature
        )

    def _title_from_first_message(self, conversation_id: int, text: str) -> None:
        conversation = self.conversation(conversation_id)
        if conversation is not None and conversation.title == NEW_CONVERSATION_TITLE:
            first_line = text.strip().splitlines()[0]
            title = (
                first_line if len(first_line) <= _TITLE_CHARS else first_line[:_TITLE_CHARS] + "…"
            )
            self._conversations.rename(conversation_id, title)

    # -- memories ----------------------------------------------------------------
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

    def remember(self, text: str) -> Remembered:
        """``/remember``: store *text* as a memory the user asked for
        (``MemoryRefused`` says why not)."""
        return self._memories.remember(
            text, source_kind="user_explicit", actor="user", importance=0.8
        )

    def forget(self, text: str) -> tuple[list[Memory], list[Memory]]:
        """``/forget``: (forgotten, candidates).  ``#id`` or text matching one memory
        forgets it; text matching several lists them instead."""
        reference = text.strip().removeprefix("#")
        if reference.isdigit():
            memory = self._memories.store.get(int(reference))
            if memory is None or memory.status != "active":
                return [], []
            return self._memories.set_status([memory.id], "deleted"), []
        hits = [hit.memory for hit in self._memories.store.search_text(text, limit=5)]
        exact = [m for m in hits if text.strip().casefold() in m.content.casefold()]
        chosen = exact if len(exact) == 1 else hits if len(hits) == 1 else []
        if chosen:
            return self._memories.set_status([chosen[0].id], "deleted"), []
        return [], hits


_SEED = {"kind": SEED}


def _memory_line(memory: Memory) -> MemoryLine:
    """A memory as the model sees it: secrets taken out again (the patterns
    may have grown since it was stored), an order-like text only quoted."""
    text = redact(memory.content).text
    quoted = INSTRUCTION_LIKE in memory.flags or is_instruction_like(text)
    return MemoryLine(memory.id, text, quoted)


def is_seed(message: Message) -> bool:
    return (message.metadata or {}).get("kind") == SEED


def _prompt_history(messages: Sequence[Message], kind: ReplyKind) -> list[ChatMessage]:
    """Messages as the model sees them: the seed opens the conversation, even
    when it was stored after the first user message it greets (and the seed
    itself is written seeing only the seed event)."""
    seed = [m for m in messages if is_seed(m)]
    ordered = seed if kind == "seed" else seed + [m for m in messages if not is_seed(m)]
    return [
        ChatMessage(_PROMPT_ROLES[m.role], m.content)  # type: ignore[arg-type]  # mapped roles
        for m in ordered
        if m.role in _PROMPT_ROLES
    ]
