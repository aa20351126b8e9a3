"""Context compaction: older messages become the conversation's one summary.

The summary is chained: the model is given ``[PRIOR SUMMARY]`` and ``[NEW
MESSAGES]`` and writes one merged summary, which replaces the old one.  The
last messages are always kept word for word, and a command the user typed
(``/remember``) is never summarised, as the chat never reads it.  Compacted messages are
archived (kept, out of the prompt) and purged after some days.  Nothing is
written until every model call has succeeded, so a compaction that fails or
is stopped leaves the conversation exactly as it was.

Messages too long for one call are summarised in chunks, each chained onto
the summary so far; a single message longer than a chunk is cut in the
middle for the summariser (the stored message is untouched).  What goes
in, the prior summary included, passes ``safe_for_prompt``: secrets and
prompt markup never reach the summary every later prompt carries, and each
message is one line of the transcript, so none can pose as the next speaker.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from desktop.core.base.errors import ReverieError
from desktop.core.base.jobs import JobControl
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.tokens import CountTokens, cut_middle
from desktop.core.db import ChangedMeanwhile, ConversationStore, Message
from desktop.core.db.message_kinds import is_command
from desktop.core.privacy.prompt_safety import safe_for_prompt
from desktop.core.privacy.redaction import Redactor
from models.broker import InferenceBroker, Priority
from models.errors import GenerationCancelled
from models.interfaces import ChatMessage, GenerationOptions

log = logging.getLogger(__name__)

TEMPLATE = "COMPACTION_PROMPT.txt"
SUMMARY_TOKENS = 400
_MARGIN_TOKENS = 64
_SPEAKERS = {"user": "User", "assistant": "Reverie", "event": "Event"}


class CompactionFailed(ReverieError):
    """The model could not summarise; the conversation is unchanged."""


class CompactionCancelled(ReverieError):
    """Stopped by the user or by shutdown; the conversation is unchanged."""


@dataclass(frozen=True)
class CompactionResult:
    summary: str
    archived: int


class Compactor:
    def __init__(
        self,
        conversations: ConversationStore,
        broker: InferenceBroker,
        prompts: PromptLibrary,
        count_tokens: CountTokens,
        *,
        context_length: int,
        keep_recent: int = 10,
        redactor: Redactor | None = None,
    ) -> None:
        self._conversations = conversations
        self._redact = redactor or Redactor()
        self._broker = broker
        self._prompts = prompts
        self._count_tokens = count_tokens
        self._context_length = context_length
        self.keep_recent = keep_recent

    def foldable(self, conversation_id: int) -> list[Message]:
        """The live messages a compaction would summarise (all but the last ones)."""
        live = self._conversations.messages(conversation_id)
        return live[: -self.keep_recent] if len(live) > self.keep_recent else []

    def compact(
        self,
        conversation_id: int,
        priority: Priority = Priority.USER,
        control: JobControl | None = None,
    ) -> CompactionResult | None:
        """Summarise the foldable messages into the summary; None if there
        are none.  Written only if nothing it was made from changed while
        the model wrote it (a message deleted, or rewritten to take a secret
        out; another compaction's summary): else made again, once."""
        control = control or JobControl()
        for again in (False, True):
            try:
                return self._compact_once(conversation_id, priority, control)
            except ChangedMeanwhile as error:
                if again:
                    raise CompactionFailed(str(error)) from error
        return None  # never reached: the second attempt returns or raises

    def _compact_once(
        self, conversation_id: int, priority: Priority, control: JobControl
    ) -> CompactionResult | None:
        conversation = self._conversations.get(conversation_id)
        older = self.foldable(conversation_id)
        if conversation is None or not older:
            return None
        summary = conversation.summary or ""
        # A command the user typed is archived with the rest, never read:
        # the chat does not show it to the model, and the summary is in
        # every later prompt.
        said = [m for m in older if not is_command(m)]
        for chunk in self._chunks(said, summary) if said else ():
            summary = self._summarise(summary, chunk, priority, control)
        archived = self._conversations.apply_compaction(
            conversation_id, summary, older[-1].id, made_from=(conversation.summary, older)
        )
        log.info("compacted conversation %d: %d messages archived", conversation_id, archived)
        return CompactionResult(summary, archived)

    def purge_archived(self, days: int, now: float | None = None) -> int:
        cutoff = (time.time() if now is None else now) - days * 86400
        return self._conversations.purge_archived(cutoff)

    def _summarise(
        self, prior: str, chunk: Sequence[str], priority: Priority, control: JobControl
    ) -> str:
        prior = safe_for_prompt(prior, "paragraphs")  # the previous summary
        history = f"[PRIOR SUMMARY]\n{prior or '(none yet)'}\n\n[NEW MESSAGES]\n" + "\n\n".join(
            chunk
        )
        prompt = [ChatMessage("user", self._prompts.render(TEMPLATE, history=history))]
        options = GenerationOptions(max_tokens=SUMMARY_TOKENS, temperature=0.2)
        job = control.run(self._broker.chat(prompt, options, priority))
        try:
            text = str(job.result()).strip()
        except GenerationCancelled as error:
            raise CompactionCancelled("the compaction was stopped") from error
        except ReverieError:
            raise
        except Exception as error:  # a model error: the caller reports it, nothing is written
            raise CompactionFailed(f"the model could not summarise ({error})") from error
        if control.cancelled:
            raise CompactionCancelled("the compaction was stopped")
        if not text:
            raise CompactionFailed("the model returned an empty summary")
        # Stored, and in every later prompt: redacted as replies are.
        return self._redact.text(text)

    def _chunks(self, messages: Sequence[Message], prior: str) -> list[list[str]]:
        """The messages as transcript lines, in chunks that fit one model call."""
        frame = self._prompts.render(TEMPLATE, history="")
        texts = [frame, prior]
        # What is said goes in as every prompt takes the user's text, one
        # line each (a line of its own could pose as the next speaker): the
        # summary it becomes is in every later system prompt.
        lines = [
            f"{_SPEAKERS.get(m.role, m.role)}: {safe_for_prompt(m.content, 'message')}"
            for m in messages
        ]
        counts = self._count_tokens([*texts, *lines])
        fixed = counts[0] + max(counts[1], SUMMARY_TOKENS)  # later chunks carry a new summary
        budget = self._context_length - SUMMARY_TOKENS - fixed - _MARGIN_TOKENS
        if budget < 64:
            raise CompactionFailed("the model's context is too small to summarise in")
        chunks: list[list[str]] = [[]]
        used = 0
        for line, tokens in zip(lines, counts[2:], strict=True):
            if tokens > budget:
                line, tokens = cut_middle(line, tokens, budget), budget
            if used + tokens > budget and chunks[-1]:
                chunks.append([])
                used = 0
            chunks[-1].append(line)
            used += tokens
        return chunks
