"""The harvest: lasting facts about the user, read from conversations in the background.

A conversation is harvested when enough new user messages arrived since the
last harvest, or when it went quiet with a few.  The model reads the new
part as a numbered transcript (user and assistant messages only, each one
line made safe as every prompt takes stored text, so none can pose as
another message or as the prompt's own markup; a very long message cut in
the middle; the whole near ``harvest_transcript_chars`` and within the
model's context), together with related memories it must not
repeat, and answers in JSON under a schema: facts, each with a category and
the numbers of the messages it comes from (the schema allows only numbers
it was shown; they are mapped back to message ids for provenance).  A fact
citing only Reverie's own messages, or whose cited user messages do not
say it (``content_words.support``: not denied, asked, ended or embellished),
is refused (``NotTheUsersWords``): what is kept about the user rests on
the user's words (the agenda review's facts too, which cite nothing:
``users_words_for``).  Each fact, stored as a
reader sees it (``text.readable``), then goes through the memory service
(write gate, deduplication): everything that runs a model (the answer,
the facts' vectors) comes first, then one transaction stores all the facts
of the harvest with its watermark, so a crash never keeps half a harvest to be counted twice.
That transaction first checks the conversation is still there and not
deleted: one the user deleted or erased while the model read it teaches
nothing, nor does a message edited meanwhile (its facts are refused; the
edit is read next).  A memory erased for good meanwhile ("Delete now")
leaves no row to refuse a fact by, as a deletion does: then only facts
already known are counted, none is learned new.
Conversations off the record are never read.

An unusable answer is not retried at once (the same greedy prompt would
fail the same way): the same messages are read again after
``RETRY_AFTER_HOURS``, each time fewer of them and sampled, not greedy.
After ``ATTEMPTS`` unusable answers the part is skipped, recorded as a gap
the user sees on the conversation and can ask to be learned again.  The
count of failures is in the database, so a restart does not reset it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from desktop.core.base.content_words import support
from desktop.core.base.errors import ReverieError
from desktop.core.base.jobs import JobControl
from desktop.core.base.prompts import PromptLibrary, fill
from desktop.core.base.settings import MemorySettings
from desktop.core.base.text import readable
from desktop.core.base.tokens import MESSAGE_OVERHEAD, CountTokens, cut_middle
from desktop.core.db import ConversationStore, Memory, Message
from desktop.core.db.conversations import HarvestGap
from desktop.core.db.message_kinds import is_command, is_seed, visible_text
from desktop.core.memory.gate import HARVEST_PROMPT, MemoryRefused
from desktop.core.memory.lines import COMPONENTS, memory_line
from desktop.core.memory.service import MemoryCategory, MemoryService, PlannedMemory, one_each
from desktop.core.privacy.prompt_safety import safe_for_prompt
from models.broker import InferenceBroker, Priority
from models.errors import GenerationCancelled, ModelError, ModelUnavailable, StructuredOutputError
from models.interfaces import ChatMessage, GenerationOptions
from models.structured import Numbers, parse_structured

log = logging.getLogger(__name__)

ANSWER_TOKENS = 700
_MARGIN_TOKENS = 32
_SPEAKERS = {"user": "User", "assistant": "Reverie"}
RETRY_AFTER_HOURS: tuple[float, ...] = (1.0, 4.0, 24.0)
"""When the same new messages are read again after the first, second and
third unusable answer.  At once would fail the same way and spend a model
call on every check (5 minutes); an hour lets a passing cause clear (a model
being swapped, a busy server), four hours and a day give the user time to
change models.  So one part the model cannot read holds back the rest of a
conversation 29 hours at most."""
ATTEMPTS = len(RETRY_AFTER_HOURS) + 1
"""Unusable answers for the same messages before they are skipped."""
_RETRY_TEMPERATURE = 0.6
"""A retry samples (with a seed per attempt) instead of the greedy first try:
the same prompt read greedily gives the same answer."""
_REASON_CHARS = 300
_EDITED_MEANWHILE = (
    "A message it came from was edited or removed while it was read; the edit is read next."
)


class HarvestedFact(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    fact: str = Field(min_length=1, max_length=400)
    category: MemoryCategory
    messages: Numbers = Field(min_length=1, max_length=8)


class HarvestAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    facts: list[HarvestedFact] = Field(max_length=15)


class NotTheUsersWords(MemoryRefused):
    """A fact that nothing the user said is behind: it cites only Reverie's
    own messages (a reply may still be cited beside the user's, for the
    question it answers), or the user's messages it cites, or those read
    when it cites none, do not say it (``users_words_for``).  What is kept about the user rests
    on something the user said."""

    def __init__(
        self, why: str = "It rests only on Reverie's own messages, not on anything you said"
    ) -> None:
        super().__init__(f"{why}; facts about you come from your own words.")


class HarvestFailed(ReverieError):
    """The harvest could not read the conversation; nothing was stored, the watermark stays."""


class HarvestStopped(HarvestFailed):
    """The harvest's model work was stopped (quitting, the work cut short):
    nothing was stored, and nothing failed."""


class UnusableAnswer(HarvestFailed):
    """The model answered, but with nothing usable: the messages are tried
    again later, differently, and skipped after ``ATTEMPTS`` such answers."""


@dataclass(frozen=True)
class HarvestReport:
    conversation_id: int
    through_message_id: int
    added: tuple[Memory, ...] = ()
    reinforced: tuple[Memory, ...] = ()
    refused: tuple[tuple[str, str], ...] = field(default=())
    """(text, reason) of each fact the write gate or deduplication turned away."""
    skipped: HarvestGap | None = None
    """The part given up on after ``ATTEMPTS`` unusable answers (nothing learned from it)."""
    learned_again: HarvestGap | None = None
    """The skipped part this harvest read again, as the user asked."""


@dataclass(frozen=True)
class _Window:
    """The new messages one harvest reads, numbered from 1."""

    messages: tuple[Message, ...]
    lines: tuple[str, ...]
    through_message_id: int
    known: str
    """Related memories already kept, for the prompt."""
    erased: int = 0
    """How many memories were erased for good before the model read it."""

    @property
    def has_user_words(self) -> bool:
        return any(m.role == "user" for m in self.messages)


@dataclass(frozen=True)
class _Learned:
    """The facts of one answer, planned (gated and embedded), not stored yet."""

    planned: tuple[tuple[str, PlannedMemory], ...]
    refused: tuple[tuple[str, str], ...]


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
        """Conversations to harvest now, longest waiting first; one whose
        harvest failed lately waits for its retry time."""
        settings = self._settings
        now = self._clock()
        quiet_since = now - settings.harvest_idle_minutes * 60
        retries = self._conversations.harvest_retries()
        return [
            backlog.conversation_id
            for backlog in self._conversations.harvest_backlog()
            if (
                backlog.new_user_messages >= settings.harvest_after_messages
                or (
                    backlog.new_user_messages >= settings.harvest_idle_min_messages
                    and backlog.last_message_at <= quiet_since
                )
            )
            and ((retry := retries.get(backlog.conversation_id)) is None or retry.retry_at <= now)
        ]

    def harvest_due(self, control: JobControl | None = None) -> list[HarvestReport]:
        """Learn again the skipped parts the user asked for, then harvest
        every conversation that is due; a failure is logged and the others
        go on (see ``harvest`` for when the failed one is tried again)."""
        control = control or JobControl()
        jobs: list[tuple[str, Callable[[], HarvestReport | None]]] = [
            (
                f"learning again part of conversation {gap.conversation_id}",
                partial(self.learn_again, gap, control),
            )
            for gap in self._conversations.harvest_gaps(asked_again=True)
        ]
        jobs += [
            (
                f"harvesting conversation {conversation_id}",
                partial(self.harvest, conversation_id, control),
            )
            for conversation_id in self.due()
        ]
        reports = []
        for what, job in jobs:
            if control.cancelled:
                break
            try:
                report = job()
            except HarvestStopped as error:  # cut short: tried again at the next run
                log.debug("%s stopped: %s", what, error)
                continue
            except HarvestFailed as error:
                log.warning("%s failed: %s", what, error)
                continue
            if report is not None:
                reports.append(report)
        return reports

    def harvest(
        self, conversation_id: int, control: JobControl | None = None
    ) -> HarvestReport | None:
        """Read the new part of a conversation into memories; None if there
        is nothing to read (or it is off the record).

        ``HarvestFailed`` if it could not: nothing is stored.  After an
        unusable answer (``UnusableAnswer``) the next try waits (see
        ``RETRY_AFTER_HOURS``); after ``ATTEMPTS`` of them the part is
        skipped and the report says so (``skipped``).
        """
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
        retry = self._conversations.harvest_retry(conversation_id)
        failures = 0 if retry is None else retry.failures
        # Each retry reads half as much as the one before: a shorter part is
        # likelier to be answered well, and less is skipped if it is not.
        window = self._window_of(new, control, self._settings.harvest_transcript_chars >> failures)
        if not window.has_user_words:
            self._conversations.mark_harvested(conversation_id, window.through_message_id)
            return HarvestReport(conversation_id, window.through_message_id)
        try:
            learned = self._learn(window, failures, control)
        except UnusableAnswer as error:
            return self._failed(conversation_id, new[0].id, window, failures + 1, error)
        report = self._commit(conversation_id, window, learned)
        if report is None:
            log.info("conversation %d went while it was harvested: nothing stored", conversation_id)
            return None
        log.info(
            "harvested conversation %d: %d added, %d reinforced, %d refused",
            conversation_id,
            len(report.added),
            len(report.reinforced),
            len(report.refused),
        )
        return report

    def learn_again(self, gap: HarvestGap, control: JobControl | None = None) -> HarvestReport:
        """Read a part skipped before (the user asked to), as ``harvest``
        reads new messages; if it fails again it stays skipped until asked
        again (``HarvestFailed``)."""
        messages = [
            m
            for m in self._conversations.messages(gap.conversation_id, include_archived=True)
            if gap.first_message_id <= m.id <= gap.last_message_id
        ]
        control = control or JobControl()
        window = (
            self._window_of(messages, control, self._settings.harvest_transcript_chars)
            if messages
            else _Window((), (), gap.last_message_id, "")
        )
        if not window.has_user_words:  # nothing left to read (the messages went)
            self._conversations.close_gap(gap.id, gap.last_message_id)
            return HarvestReport(gap.conversation_id, gap.last_message_id, learned_again=gap)
        if window.through_message_id == messages[-1].id:  # all of it, whatever went since
            window = replace(window, through_message_id=gap.last_message_id)
        try:
            # Another seed than any try before, as asking again is meant to help.
            learned = self._learn(window, gap.attempts, control)
        except UnusableAnswer as error:
            self._conversations.gap_failed_again(gap.id, _reason(error))
            raise
        report = self._commit(gap.conversation_id, window, learned, gap)
        if report is None:
            raise HarvestFailed("the conversation was deleted while it was read")
        return report

    def _failed(
        self,
        conversation_id: int,
        first: int,
        window: _Window,
        failures: int,
        error: UnusableAnswer,
    ) -> HarvestReport:
        """Record an unusable answer for the messages from *first* to the
        window's end: try again later, or give up on them after ``ATTEMPTS``."""
        reason = _reason(error)
        if failures < ATTEMPTS:
            hours = RETRY_AFTER_HOURS[failures - 1]
            self._conversations.record_harvest_failure(
                conversation_id, reason, self._clock() + hours * 3600
            )
            raise UnusableAnswer(
                f"{error} (tried {failures} of {ATTEMPTS} times; again in {hours:g} h)"
            ) from error
        gap = self._conversations.skip_harvest(
            conversation_id, first, window.through_message_id, attempts=failures, reason=reason
        )
        log.warning(
            "gave up harvesting messages %d to %d of conversation %d after %d unusable"
            " answers (%s); 'Learn again' on the conversation reads them again",
            first,
            window.through_message_id,
            conversation_id,
            failures,
            reason,
        )
        return HarvestReport(conversation_id, window.through_message_id, skipped=gap)

    # -- the prompt -------------------------------------------------------------
    def _known(self, new: Sequence[Message]) -> str:
        """Related memories already kept, one per line, so the model skips them."""
        asked = " ".join(m.content for m in new if m.role == "user")[:2000]
        limit = self._settings.harvest_known_memories
        found = self._memories.background_retriever.retrieve(asked, k=limit) if limit else []
        quoted = self._prompts.section(COMPONENTS, "memory_quoted") or '"{text}"'
        lines = [memory_line(r.memory).render(quoted, numbered=False) for r in found]
        return "\n".join(lines) or "- (nothing yet)"

    def _window_of(self, new: Sequence[Message], control: JobControl, budget: int) -> _Window:
        """The messages of *new* one harvest reads (about *budget* characters
        of them), with the related memories it is shown."""
        try:
            with control.scope():  # the search for related memories stops with it too
                known = self._known(new)
        except ModelError as error:  # not the messages' fault: not counted as a try
            raise _not_read("the related memories could not be searched", error) from error
        return self._window(new, known, budget)

    def _window(self, new: Sequence[Message], known: str, budget: int) -> _Window:
        """The new messages that fit in one harvest, in order, numbered."""
        settings = self._settings
        # As the user saw it: a reply's tool call is no part of what was said.
        readable = [
            m
            for m in new
            if m.role in _SPEAKERS and not (is_seed(m) or is_command(m)) and visible_text(m).strip()
        ]
        chosen: list[Message] = []
        lines: list[str] = []
        used = 0
        for message in readable:
            text = visible_text(message).strip()
            text = cut_middle(text, len(text), settings.max_message_chars)
            said = safe_for_prompt(text, "message")
            line = f"[{len(lines) + 1}] {_SPEAKERS[message.role]}: {said}"
            if lines and used + len(line) > budget:
                break
            chosen.append(message)
            lines.append(line)
            used += len(line) + 2
        lines = self._fitted(lines, chosen, known)
        chosen = chosen[: len(lines)]
        # Everything up to the last message read is done, events and tool
        # results between them included; if nothing readable was new, all is.
        through = chosen[-1].id if chosen and len(chosen) < len(readable) else new[-1].id
        erased = self._memories.store.count_erased()
        return _Window(tuple(chosen), tuple(lines), through, known, erased)

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
    def _learn(self, window: _Window, attempt: int, control: JobControl) -> _Learned:
        """The facts of the model's answer, each gated and embedded (nothing
        stored yet); *attempt* counts the unusable answers before."""
        answer = self._ask(window, attempt, control)
        planned: list[tuple[str, PlannedMemory]] = []
        refused: list[tuple[str, str]] = []
        with control.scope():
            for fact in answer.facts:
                # Stored as a reader sees it: no override reordering what is
                # shown, no invisible letters only a model reads.
                text = readable(fact.fact)
                cited = [window.messages[n - 1] for n in fact.messages]
                try:
                    self._memories.vet(text)  # junk is said to be junk first
                    _check_users_words(text, cited)
                    planned.append(
                        (
                            text,
                            self._memories.plan(
                                text,
                                source_kind="harvested",
                                category=fact.category,
                                message_ids=sorted({m.id for m in cited}),
                                priority=Priority.BACKGROUND,
                            ),
                        )
                    )
                except MemoryRefused as error:
                    refused.append((text, str(error)))
                except ModelError as error:  # the embedding of a fact
                    raise _not_read("the facts could not be embedded", error) from error
        # A fact the answer names twice in other words is one fact, read from
        # the messages of both (the write counts it once).
        once = one_each(planned, lambda fact: fact[1].saying, _joined)
        return _Learned(tuple(once), tuple(refused))

    def _ask(self, window: _Window, attempt: int, control: JobControl) -> HarvestAnswer:
        options = GenerationOptions(
            max_tokens=ANSWER_TOKENS,
            temperature=_RETRY_TEMPERATURE if attempt else 0.0,
            seed=attempt or None,
            json_schema=_schema(len(window.lines)),
        )
        prompt = self._prompt(window.lines, window.known)
        try:
            raw = str(control.run(self._broker.chat(prompt, options, Priority.BACKGROUND)).result())
            answer = parse_structured(HarvestAnswer, raw)
        except StructuredOutputError as error:
            raise UnusableAnswer(f"the model's answer was not usable: {error}") from error
        except (GenerationCancelled, ModelUnavailable) as error:
            # Not the messages' fault: this does not count as a try.
            raise _not_read("the model could not read the conversation", error) from error
        except ModelError as error:
            raise UnusableAnswer(f"the model could not read the conversation: {error}") from error
        shown = range(1, len(window.lines) + 1)
        if any(n not in shown for fact in answer.facts for n in fact.messages):
            raise UnusableAnswer("the model named messages it was not shown")
        return answer

    def _commit(
        self,
        conversation_id: int,
        window: _Window,
        learned: _Learned,
        gap: HarvestGap | None = None,
    ) -> HarvestReport | None:
        """Store the facts and move the watermark (or shrink the *gap* read
        again), in one transaction; None, storing nothing, if the
        conversation was deleted or erased while the model read it."""
        added: dict[int, Memory] = {}
        reinforced: dict[int, Memory] = {}
        refused = list(learned.refused)
        with self._memories.writing("harvest") as batch:
            if not ConversationStore.is_live(batch.transaction, conversation_id):
                return None  # nothing was written: the transaction commits empty
            cited = (i for _, planned in learned.planned for i in planned.message_ids)
            gone = ConversationStore.missing_messages(batch.transaction, cited)
            # "Delete now" leaves no row to refuse a fact by, as a deletion does.
            may_add = self._memories.store.count_erased(batch.transaction) == window.erased
            for text, planned in learned.planned:
                if gone.intersection(planned.message_ids):  # edited while the model read it
                    refused.append((text, _EDITED_MEANWHILE))
                    continue
                try:
                    remembered = batch.write(planned, may_add=may_add)
                except MemoryRefused as error:  # deleted by the user meanwhile
                    refused.append((text, str(error)))
                    continue
                if remembered.outcome != "known":  # read before: nothing changed
                    kept = added if remembered.outcome == "added" else reinforced
                    kept[remembered.memory.id] = remembered.memory
            through = window.through_message_id
            if gap is None:
                self._conversations.mark_harvested(conversation_id, through, batch.transaction)
            else:
                self._conversations.close_gap(gap.id, through, batch.transaction)
        return HarvestReport(
            conversation_id,
            through,
            tuple(added.values()),
            tuple(reinforced.values()),
            tuple(refused),
            learned_again=gap,
        )


def _joined(
    first: tuple[str, PlannedMemory], repeat: tuple[str, PlannedMemory]
) -> tuple[str, PlannedMemory]:
    return first[0], first[1].joined(repeat[1])


def users_words_for(fact: str, messages: Sequence[Message]) -> list[Message]:
    """The user's messages among *messages* that say *fact*
    (``content_words.support``): the sources of a fact its model cited none
    for (an agenda review's); ``NotTheUsersWords`` when they do not say it
    ("User is allergic to penicillin" after "I'm not allergic to anything")."""
    users = [m for m in messages if m.role == "user"]
    said = support(fact, [visible_text(m) for m in users])
    if not said:
        raise NotTheUsersWords(f"What you said does not say it ({said.reason})")
    return [users[index] for index in said.sources]


def _check_users_words(fact: str, cited: Sequence[Message]) -> None:
    """``NotTheUsersWords`` unless the user's messages among *cited* say
    *fact* (``content_words.support``): a small model cites the user's
    message for whatever it makes up."""
    if not any(message.role == "user" for message in cited):
        raise NotTheUsersWords
    users_words_for(fact, cited)


def _not_read(why: str, error: ModelError) -> HarvestFailed:
    """The harvest's failure for a model call that raised *error*:
    ``HarvestStopped`` when its work was stopped rather than failing."""
    kind = HarvestStopped if isinstance(error, GenerationCancelled) else HarvestFailed
    return kind(f"{why}: {error}")


def _reason(error: HarvestFailed) -> str:
    """What went wrong, short enough to keep."""
    return str(error)[:_REASON_CHARS]


def _schema(shown: int) -> dict[str, Any]:
    """The answer's JSON schema, message numbers limited to the *shown* ones."""
    schema = HarvestAnswer.model_json_schema()
    numbers = schema["$defs"]["HarvestedFact"]["properties"]["messages"]["items"]
    numbers["enum"] = list(range(1, shown + 1))
    return schema
