"""The harvest: lasting facts about the user, read from conversations in the background.

A conversation is harvested when enough new user messages arrived since the
last harvest, or when it went quiet with a few.  The model reads the new
part as a numbered transcript (user and assistant messages only; a very
long message cut in the middle; the whole near ``harvest_transcript_chars``
and within the model's context), together with related memories it must not
repeat, and answers in JSON under a schema: facts, each with a category and
the numbers of the messages it comes from (the schema allows only numbers
it was shown; they are mapped back to message ids for provenance).  Each
fact then goes through the memory service (write gate, deduplication).  The
watermark moves only after a harvest succeeded; conversations off the
record are never read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from desktop.core.chat import is_command, is_seed
from desktop.core.db import ConversationStore, Memory, Message
from desktop.core.errors import ReverieError
from desktop.core.jobs import JobControl
from desktop.core.memory_gate import HARVEST_PROMPT, MemoryRefused
from desktop.core.memory_service import MemoryCategory, MemoryService
from desktop.core.prompts import PromptLibrary, fill
from desktop.core.settings import MemorySettings
from desktop.core.tokens import MESSAGE_OVERHEAD, CountTokens, cut_middle
from models.broker import InferenceBroker, Priority
from models.errors import ModelError, StructuredOutputError
from models.interfaces import ChatMessage, GenerationOptions
from models.structured import parse_structured

log = logging.getLogger(__name__)

ANSWER_TOKENS = 700
_MARGIN_TOKENS = 32
_SPEAKERS = {"user": "User", "assistant": "Reverie"}


class HarvestedFact(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fact: str = Field(min_length=1, max_length=400)
    category: MemoryCategory
    messages: list[int] = Field(min_length=1, max_length=8)


class HarvestAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    facts: list[HarvestedFact] = Field(max_length=15)


class HarvestFailed(ReverieError):
    """The model's answer could not be used; nothing was stored, the watermark stays."""


@dataclass(frozen=True)
class HarvestReport:
    conversation_id: int
    through_message_id: int
    added: tuple[Memory, ...] = ()
    reinforced: tuple[Memory, ...] = ()
    refused: tuple[tuple[str, str], ...] = field(default=())
    """(text, reason) of each fact the write gate or deduplication turned away."""


@dataclass(frozen=True)
class _Window:
    """The new messages one harvest reads, numbered from 1."""

    messages: tuple[Message, ...]
    lines: tuple[str, ...]
    through_message_id: int


class Harvester:
    def __init__(
        self,
        conversations: ConversationStore,
        memories: MemoryService,
        broker: InferenceBroker,
        prompts: PromptLibrary,
        count_tokens: CountTokens,
        *,
        context_length: int,
        settings: MemorySettings | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._conversations = conversations
        self._memories = memories
        self._broker = broker
        self._prompts = prompts
        self._count_tokens = count_tokens
        self._context_length = context_length
        self._settings = settings or MemorySettings()
        self._clock = clock

    def due(self) -> list[int]:
        """Conversations to harvest now, longest waiting first."""
        settings = self._settings
        quiet_since = self._clock() - settings.harvest_idle_minutes * 60
        return [
            backlog.conversation_id
            for backlog in self._conversations.harvest_backlog()
            if backlog.new_user_messages >= settings.harvest_after_messages
            or (
                backlog.new_user_messages >= settings.harvest_idle_min_messages
                and backlog.last_message_at <= quiet_since
            )
        ]

    def harvest_due(self, control: JobControl | None = None) -> list[HarvestReport]:
        """Harvest every conversation that is due; a failure is logged and
        the others go on (the failed one is tried again next time)."""
        reports = []
        for conversation_id in self.due():
            if control is not None and control.cancelled:
                break
            try:
                report = self.harvest(conversation_id, control)
            except HarvestFailed as error:
                log.warning("harvesting conversation %d failed: %s", conversation_id, error)
                continue
            if report is not None:
                reports.append(report)
        return reports

    def harvest(
        self, conversation_id: int, control: JobControl | None = None
    ) -> HarvestReport | None:
        """Read the new part of a conversation into memories; None if there
        is nothing to read (or it is off the record)."""
        conversation = self._conversations.get(conversation_id)
        if conversation is None or conversation.off_record:
            return None
        watermark = conversation.harvested_through_message_id or 0
        new = [
            m
            for m in self._conversations.messages(conversation_id, include_archived=True)
            if m.id > watermark
        ]
        if not new:
            return None
        control = control or JobControl()
        with control.scope():  # the search for related memories stops with it too
            known = self._known(new)
        window = self._window(new, known)
        if not any(m.role == "user" for m in window.messages):
            self._conversations.mark_harvested(conversation_id, window.through_message_id)
            return HarvestReport(conversation_id, window.through_message_id)
        answer = self._ask(window, known, control)
        report = self._store(conversation_id, window, answer)
        self._conversations.mark_harvested(conversation_id, window.through_message_id)
        log.info(
            "harvested conversation %d: %d added, %d reinforced, %d refused",
            conversation_id,
            len(report.added),
            len(report.reinforced),
            len(report.refused),
        )
        return report

    # -- the prompt -------------------------------------------------------------
    def _known(self, new: Sequence[Message]) -> str:
        """Related memories already kept, one per line, so the model skips them."""
        asked = " ".join(m.content for m in new if m.role == "user")[:2000]
        limit = self._settings.harvest_known_memories
        found = self._memories.background_retriever.retrieve(asked, k=limit) if limit else []
        return "\n".join(f"- {r.memory.content}" for r in found) or "- (nothing yet)"

    def _window(self, new: Sequence[Message], known: str) -> _Window:
        """The new messages that fit in one harvest, in order, numbered."""
        settings = self._settings
        readable = [m for m in new if m.role in _SPEAKERS and not (is_seed(m) or is_command(m))]
        chosen: list[Message] = []
        lines: list[str] = []
        used = 0
        for message in readable:
            text = message.content.strip()
            text = cut_middle(text, len(text), settings.max_message_chars)
            line = f"[{len(lines) + 1}] {_SPEAKERS[message.role]}: {text}"
            if lines and used + len(line) > settings.harvest_transcript_chars:
                break
            chosen.append(message)
            lines.append(line)
            used += len(line) + 2
        lines = self._fitted(lines, chosen, known)
        chosen = chosen[: len(lines)]
        # Everything up to the last message read is done, events and tool
        # results between them included; if nothing readable was new, all is.
        through = chosen[-1].id if chosen and len(chosen) < len(readable) else new[-1].id
        return _Window(tuple(chosen), tuple(lines), through)

    def _fitted(self, lines: list[str], chosen: list[Message], known: str) -> list[str]:
        """*lines* without the last ones (the next harvest reads them) and the
        only one cut further, until the prompt fits the model's context."""
        while lines:
            prompt = self._prompt(lines, known)
            tokens = sum(self._count_tokens([m.content for m in prompt]))
            room = self._context_length - ANSWER_TOKENS - _MARGIN_TOKENS - 2 * MESSAGE_OVERHEAD
            if tokens <= room:
                return lines
            if len(lines) > 1:
                lines = lines[:-1]
                continue
            line_tokens = self._count_tokens([lines[0]])[0]
            budget = line_tokens - (tokens - room)
            if budget < 32:  # the instructions and known memories alone do not fit
                raise HarvestFailed("the model's context is too small to harvest in")
            lines = [cut_middle(lines[0], line_tokens, budget)]
        return lines

    def _prompt(self, lines: Sequence[str], known: str) -> list[ChatMessage]:
        sections = {s.name: s.text for s in self._prompts.sections(HARVEST_PROMPT)}
        transcript = "\n\n".join(lines)
        return [
            ChatMessage("system", sections.get("instructions", "")),
            ChatMessage(
                "user",
                fill(sections.get("input", ""), known=known, transcript=transcript).strip(),
            ),
        ]

    # -- the answer -------------------------------------------------------------
    def _ask(self, window: _Window, known: str, control: JobControl) -> HarvestAnswer:
        options = GenerationOptions(
            max_tokens=ANSWER_TOKENS,
            temperature=0.0,
            json_schema=_schema(len(window.lines)),
        )
        prompt = self._prompt(window.lines, known)
        try:
            raw = str(control.run(self._broker.chat(prompt, options, Priority.BACKGROUND)).result())
            answer = parse_structured(HarvestAnswer, raw)
        except StructuredOutputError as error:
            raise HarvestFailed(f"the model's answer was not usable: {error}") from error
        except ModelError as error:
            raise HarvestFailed(f"the model could not read the conversation: {error}") from error
        shown = range(1, len(window.lines) + 1)
        if any(n not in shown for fact in answer.facts for n in fact.messages):
            raise HarvestFailed("the model named messages it was not shown")
        return answer

    def _store(self, conversation_id: int, window: _Window, answer: HarvestAnswer) -> HarvestReport:
        added: list[Memory] = []
        reinforced: list[Memory] = []
        refused: list[tuple[str, str]] = []
        for fact in answer.facts:
            sources = sorted({window.messages[n - 1].id for n in fact.messages})
            try:
                remembered = self._memories.remember(
                    fact.fact,
                    source_kind="harvested",
                    actor="harvest",
                    category=fact.category,
                    message_ids=sources,
                    priority=Priority.BACKGROUND,
                )
            except MemoryRefused as error:
                refused.append((fact.fact, str(error)))
                continue
            kept = added if remembered.outcome == "added" else reinforced
            kept.append(remembered.memory)
        return HarvestReport(
            conversation_id,
            window.through_message_id,
            tuple(added),
            tuple(reinforced),
            tuple(refused),
        )


def _schema(shown: int) -> dict[str, Any]:
    """The answer's JSON schema, message numbers limited to the *shown* ones."""
    schema = HarvestAnswer.model_json_schema()
    numbers = schema["$defs"]["HarvestedFact"]["properties"]["messages"]["items"]
    numbers["enum"] = list(range(1, shown + 1))
    return schema
