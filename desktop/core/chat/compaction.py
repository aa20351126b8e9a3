"""Context compaction: older messages become the conversation's one summary.

The summary is chained: the model is given ``[PRIOR SUMMARY]`` and ``[NEW
MESSAGES]`` and writes one merged summary, which replaces the old one.  The
last messages are always kept word for word, and a command the user typed
(``/remember``) is never summarised, as the chat never reads it.  Compacted messages are
archived (kept, out of the prompt) and purged after some days.

Messages are summarised a batch at a time, oldest first: what one model
call can read, read a page at a time and written (the summary with the
messages it now holds archived) before the next batch is read, so a
compaction that fails or is stopped leaves the conversation as its last
written batch left it, its summary saying exactly what was archived; a
batch is written whole or not at all.  A history of 50,000 messages is
never read, nor redacted, at once (``batches`` bounds one run).  A single
message longer than a batch is cut in the middle for the summariser (the
stored message is untouched).  What goes
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
_PAGE = 64
"""Messages read at a time while a batch is gathered."""


class CompactionFailed(ReverieError):
    """The model could not summarise; the conversation is unchanged."""


class CompactionCancelled(ReverieError):
    """Stopped by the user or by shutdown; the conversation is unchanged."""


@dataclass(frozen=True)
class CompactionResult:
    summary: str
    archived: int
    more: bool = False
    """The batches allowed ran out: older messages may be left to summarise."""


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

    def compact(
        self,
        conversation_id: int,
        priority: Priority = Priority.USER,
        control: JobControl | None = None,
        batches: int | None = None,
    ) -> CompactionResult | None:
        """Summarise the foldable messages (all but the last ones) into the
        summary, a batch at a time, at most *batches* of them (None: all);
        None if there were none.  Each batch is written only if nothing it
        was made from changed while the model wrote it (a message deleted,
        or rewritten to take a secret out; another compaction's summary):
        else made again, once."""
        control = control or JobControl()
        done: CompactionResult | None = None
        while batches is None or batches > 0:
            batch = self._batch(conversation_id, priority, control)
            if batch is None or not batch.archived:
                return done
            archived = batch.archived + (done.archived if done else 0)
            done = CompactionResult(batch.summary, archived)
            batches = None if batches is None else batches - 1
        return None if done is None else CompactionResult(done.summary, done.archived, more=True)

    def _batch(
        self, conversation_id: int, priority: Priority, control: JobControl
    ) -> CompactionResult | None:
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
        if conversation is None or conversation.deleted_at is not None:
            return None
        summary = conversation.summary or ""
        older, lines = self._next_batch(conversation_id, summary)
        if not older:
            return None
        # A command the user typed is archived with the rest, never read:
        # the chat does not show it to the model, and the summary is in
        # every later prompt.
        if lines:
            summary = self._summarise(summary, lines, priority, control)
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

    def _next_batch(self, conversation_id: int, prior: str) -> tuple[list[Message], list[str]]:
        """The oldest live messages one model call summarises onto *prior*
        (the commands among them too), never the last ``keep_recent``, read
        a page at a time; and the transcript lines of those said."""
        budget = self._line_budget(prior)
        after = self._conversations.page(conversation_id, 1, counted=0).summarised_through or 0
        batch: list[Message] = []
        lines: list[str] = []
        used = 0
        while True:
            # Counted as far as it matters: whether more than keep_recent follow.
            page = self._conversations.page_after(
                conversation_id, _PAGE, after, counted=self.keep_recent + 1
            )
            foldable = page.messages[: max(0, len(page.messages) + page.later - self.keep_recent)]
            said = [m for m in foldable if not is_command(m)]
            transcript = [_line(m) for m in said]
            counts = self._count_tokens(transcript)
            counted = {m.id: (t, n) for m, t, n in zip(said, transcript, counts, strict=True)}
            for message in foldable:
                if message.id in counted:
                    line, tokens = counted[message.id]
                    if tokens > budget:
                        line, tokens = cut_middle(line, tokens, budget), budget
                    if used + tokens > budget and lines:
                        return batch, lines
                    lines.append(line)
                    used += tokens
                batch.append(message)
            if len(foldable) < len(page.messages) or not page.later:
                return batch, lines
            after = page.messages[-1].id

    def _line_budget(self, prior: str) -> int:
        """The tokens of transcript one model call reads with *prior*."""
        frame = self._prompts.render(TEMPLATE, history="")
        counts = self._count_tokens([frame, prior])
        fixed = counts[0] + max(counts[1], SUMMARY_TOKENS)  # later batches carry a new summary
        budget = self._context_length - SUMMARY_TOKENS - fixed - _MARGIN_TOKENS
        if budget < 64:
            raise CompactionFailed("the model's context is too small to summarise in")
        return budget


def _line(message: Message) -> str:
    """*message* as a line of the transcript the summariser reads.  What is
    said goes in as every prompt takes the user's text, one line each (a
    line of its own could pose as the next speaker): the summary it
    becomes is in every later system prompt."""
    speaker = _SPEAKERS.get(message.role, message.role)
    return f"{speaker}: {safe_for_prompt(message.content, 'message')}"
