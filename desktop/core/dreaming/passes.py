"""What a dream pass is, and what it is given.

A pass looks at memories (asking the model where judgement is needed) and
returns ``Proposal``s; it writes nothing itself.  Model answers go through
``PassContext.ask``: generated under a JSON schema at background priority,
after waiting for the user, validated, and kept in the run's checkpoint so
a dream resumed after a pause or a crash does not ask again.  An answer
that cannot be used raises ``PassRejected``: nothing of that pass is
applied, its raw text goes to the run's log.

A prompt never outgrows the model's context: ``PassContext.fit`` takes, of
a list a pass would show (messages, tasks), as many as fit with room for
the answer, in the order the pass gives (what matters most first), and
says how many.  A pass that leaves some out says so in its outcome and,
when what it left out is news, keeps its mark before it
(``leave_for_next``, ``mark``), so the next dream shows it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from desktop.core.base.errors import ReverieError
from desktop.core.base.prompts import PromptLibrary, fill
from desktop.core.base.settings import DreamSettings
from desktop.core.base.tokens import (
    MESSAGE_OVERHEAD,
    CountTokens,
    Fitted,
    TokenCounter,
    cut_middle,
    fitted_prefix,
)
from desktop.core.db import Message
from desktop.core.dreaming.control import DreamControl, DreamProgress, DreamStopped
from desktop.core.dreaming.proposals import Proposal
from desktop.core.memory.service import MemoryService
from desktop.core.privacy.prompt_safety import safe_for_prompt
from models.broker import InferenceBroker, Priority
from models.errors import GenerationCancelled, ModelError, StructuredOutputError
from models.interfaces import ChatMessage, GenerationOptions
from models.jobs import Role
from models.structured import parse_structured

T = TypeVar("T", bound=BaseModel)

ANSWER_TOKENS = 600
DEFAULT_CONTEXT = 4096
"""The context assumed when the model does not say its own (as a server's may not)."""
_MARGIN_TOKENS = 32
"""Room for what counting text by text misses (a chat template's own words)."""


class PassRejected(ReverieError):
    """A pass's model answer was unusable: nothing of the pass is applied."""

    def __init__(self, message: str, raw_output: str | None = None) -> None:
        super().__init__(message)
        self.raw_output = raw_output


@dataclass
class PassContext:
    run_id: int
    now: float
    """The run's time: what changed after it is judged by the next run."""
    judged_through: float | None
    """Up to when this pass judged memories before (None: never)."""
    memories: MemoryService
    settings: DreamSettings
    prompts: PromptLibrary
    control: DreamControl
    progress: DreamProgress
    answers: dict[str, str]
    """Raw model answers of this pass so far, by step (kept across a resume)."""
    save: Callable[[], None]
    """Writes ``answers`` into the run's checkpoint."""
    broker: InferenceBroker
    notes: list[str] = field(default_factory=list)
    """What the pass left alone and why, for the run's log."""
    count_tokens: CountTokens | None = None
    """Counts the model's tokens in each text (default: the broker's chat model's)."""
    context_length: int | None = None
    """The model's context in tokens (default: what the loaded model says)."""
    left_from: float | None = None
    """What changed after this was left out of the pass (``leave_for_next``)."""

    @property
    def mark(self) -> float:
        """Up to when this pass judged: the run's time, or earlier where it
        left something out for the next dream."""
        return self.now if self.left_from is None else min(self.now, self.left_from)

    def leave_for_next(self, since: float) -> None:
        """What changed after *since* was left out of this pass (no room in
        its prompt): the pass's mark stops there, so the next dream judges it."""
        self.left_from = since if self.left_from is None else min(self.left_from, since)

    def fit(
        self,
        template: str,
        listed: str,
        items: Sequence[str],
        max_tokens: int = ANSWER_TOKENS,
        share: float = 1.0,
        **values: str,
    ) -> Fitted:
        """The prompt of *template* (see ``prompt``) with *values* and, as
        its *listed* value, the first of *items* (numbered from 1) that fit
        the model's context with room for a *max_tokens* answer: with
        *share* below 1, they take at most that share of the room the rest
        of the prompt leaves.  ``shown`` says how many; none fit: 0 (then
        the list reads "(none)")."""
        lines = numbered(items).split("\n") if items else []

        def build(shown: int) -> list[ChatMessage]:
            return self.prompt(template, **{**values, listed: "\n".join(lines[:shown]) or "(none)"})

        bare = build(0)
        room = self._room(len(bare), max_tokens)
        return fitted_prefix(build, lines, self.tokens, room, share)

    def fits(self, messages: Sequence[ChatMessage], max_tokens: int = ANSWER_TOKENS) -> bool:
        """Whether *messages* fit the model's context with room for a *max_tokens* answer."""
        tokens = sum(self.tokens([m.content for m in messages]))
        return tokens <= self._room(len(messages), max_tokens)

    def _room(self, messages: int, max_tokens: int) -> int:
        """The tokens a prompt of so many *messages* may have."""
        return self._context() - max_tokens - _MARGIN_TOKENS - messages * MESSAGE_OVERHEAD

    def fit_messages(
        self,
        template: str,
        listed: str,
        messages: Sequence[Message],
        chars: int,
        max_tokens: int = ANSWER_TOKENS,
        share: float = 1.0,
        **values: str,
    ) -> tuple[Fitted, list[Message]]:
        """``fit`` for the user's *messages* (each cut to about *chars*
        characters), and the ones shown, in the order shown: first those
        that arrived since the pass's mark, oldest first, then the others,
        newest first.  When some that arrived since are left out, the
        pass's mark stops before the first of them, and the report says so."""
        since = self.judged_through or 0.0
        news = sorted((m for m in messages if m.created_at > since), key=_arrival)
        seen = sorted((m for m in messages if m.created_at <= since), key=_arrival, reverse=True)
        ordered = news + seen
        texts = [cut_middle(m.content, len(m.content), chars) for m in ordered]
        fitted = self.fit(template, listed, texts, max_tokens, share, **values)
        if fitted.shown < len(news):
            self.notes.append(left_out("messages", fitted.shown, len(ordered)))
            self.leave_for_next(just_before(news[fitted.shown].created_at))
        elif fitted.shown < len(ordered):
            self.notes.append(
                f"Only {fitted.shown} of {len(ordered)} messages fit the model's context: "
                "those left out were read by an earlier dream."
            )
        return fitted, ordered[: fitted.shown]

    def tokens(self, texts: Sequence[str]) -> list[int]:
        """How many tokens each of *texts* takes, as the model counts them."""
        if self.count_tokens is None:
            self.count_tokens = TokenCounter(self.broker)
        return self.count_tokens(texts)

    def _context(self) -> int:
        """The smallest context of the models a dream's prompt may go to."""
        if self.context_length is None:
            self.tokens([""])  # a model unloaded while idle is loaded again: then it says
            known = [
                int(length)
                for role in (Role.CHAT, Role.BACKGROUND)
                if isinstance(
                    length := getattr(self.broker.model(role), "context_length", None), int
                )
            ]
            self.context_length = min(known, default=DEFAULT_CONTEXT)
        return self.context_length

    def ask(
        self,
        step: str,
        messages: Sequence[ChatMessage],
        answer_type: type[T],
        schema: dict[str, Any] | None = None,
        max_tokens: int = ANSWER_TOKENS,
    ) -> T:
        """The model's answer to *messages* under *schema* (default: *answer_type*'s),
        validated as *answer_type*; asked once per *step* across resumes."""
        raw = self.answers.get(step)
        if raw is None:
            self.control.give_way(self.progress)
            options = GenerationOptions(
                max_tokens=max_tokens,
                temperature=0.0,
                json_schema=schema or answer_type.model_json_schema(),
            )
            job = self.control.jobs.run(self.broker.chat(messages, options, Priority.BACKGROUND))
            try:
                raw = str(job.result())
            except GenerationCancelled as stopped:
                raise DreamStopped(self.control.stopped or "cancelled") from stopped
            except ModelError as error:
                raise PassRejected(f"the model could not answer: {error}") from error
            self.control.check()
        try:
            answer = parse_structured(answer_type, raw)
        except StructuredOutputError as error:
            raise PassRejected(f"the model's answer was not usable: {error}", raw) from error
        self.answers[step] = raw
        self.save()
        return answer

    def prompt(self, template: str, **values: str) -> list[ChatMessage]:
        """The messages of a pass's prompt: the shared dreaming instructions
        and *template*'s ``instructions`` as the system message, its
        ``input`` section (filled with *values*) as the user's."""
        shared = self.prompts.section(DREAM_MEMORIES_PROMPT, "instructions")
        sections = {s.name: s.text for s in self.prompts.sections(template)}
        system = "\n\n".join(part for part in (shared, sections.get("instructions", "")) if part)
        return [
            ChatMessage("system", system),
            ChatMessage("user", fill(sections.get("input", ""), **values).strip()),
        ]


DREAM_MEMORIES_PROMPT = "DREAM_MEMORIES_PROMPT.txt"


def _arrival(message: Message) -> tuple[float, int]:
    return message.created_at, message.id


def just_before(moment: float) -> float:
    """The mark that leaves what happened at *moment* for the next dream."""
    return math.nextafter(moment, -math.inf)


def left_out(what: str, shown: int, given: int) -> str:
    """The note of a pass that showed only *shown* of *given* *what*."""
    return (
        f"Only {shown} of {given} {what} fit the model's context: "
        "the others are left for the next dream."
    )


class DreamPass(Protocol):
    name: str
    title: str
    """For the user: "Merging duplicates"."""

    def plan(self, context: PassContext) -> list[Proposal]: ...


def numbered(texts: Sequence[str]) -> str:
    """Texts as the model sees them: ``[1] ...``, one per line (small ids it
    can name; the pass maps them back)."""
    return "\n".join(f"[{n}] {one_line(text)}" for n, text in enumerate(texts, 1))


def one_line(text: str) -> str:
    """*text* on one line, as every prompt takes the user's text
    (``safe_for_prompt``): a memory's own line breaks cannot pass for the
    prompt's, its tags cannot close a block nor its secrets reach the model."""
    return safe_for_prompt(text)
