"""Assembles the prompt of one model call from templates and the user's data.

Every call gets a fresh prompt from ``BASE_PROMPT.txt`` (the sections its
tools allow) and the components of ``PROMPT_COMPONENTS.txt``, in this order
of meaning: core instructions, the tools and how to call them, current
time, memories, active tasks, conversation summary, skills table of
contents.  Sections are separated by
``---``; empty ones are left out, except Skills.

Layout, for llama.cpp's prefix cache (it re-reads a prompt only from the
first token that differs from the previous one): what rarely changes (the
base prompt, tools, tasks, summary, skills) is the system message, and what
belongs to one message (when it was sent, the memories first given with
it: ``message_context``) goes with that message and stays there, so a turn
reads only its own message and what is new in it.

A component over its size limit is cut to the limit (whole lines, the
lowest-ranked last) unless a condensed version of exactly that content
exists; it is reported as oversized so a background job can condense it.
Excerpts of other conversations are only cut.

Every text of the user's that goes in (memories, task texts, skill names and
summaries, the summary, a condensed component) passes ``safe_for_prompt``
when it is rendered, however its line was made.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field
from datetime import datetime

from desktop.core.base.prompts import SECTION_SEPARATOR, PromptLibrary, fill
from desktop.core.memory.lines import COMPONENTS, ExcerptLine, MemoryLine
from desktop.core.privacy.prompt_safety import safe_for_prompt
from desktop.core.skills.library import SkillLine
from desktop.core.tasks.service import TaskLine
from models.interfaces import ChatMessage

_CUT_MARK = "[…]"


@dataclass(frozen=True)
class ComponentLimits:
    """Largest size of each component, in characters."""

    memories: int = 10_000
    excerpts: int = 4_000
    tasks: int = 5_000
    skills: int = 2_000


@dataclass(frozen=True)
class PromptInputs:
    now: datetime
    tools: Set[str] = frozenset()
    """The tools this call may use: they choose the base prompt's sections."""
    tool_list: str = ""
    """How to call them, one per line (``Toolbox.describe``)."""
    memories: Sequence[MemoryLine] = ()
    """Best first: when the component is cut, the last ones go."""
    excerpts: Sequence[ExcerptLine] = ()
    """Of other conversations, best first."""
    tasks: Sequence[TaskLine] = ()
    summary: str | None = None
    skills: Sequence[SkillLine] = ()


@dataclass(frozen=True)
class Oversized:
    """A component over its limit: *content* is what a condenser should shorten."""

    component: str
    content: str
    limit: int

    @property
    def content_hash(self) -> str:
        return content_hash(self.content)


@dataclass(frozen=True)
class AssembledPrompt:
    system: str
    """The system message: what rarely changes."""
    turn_context: str
    """What changes every turn; it goes with the newest user message."""
    memories: str
    """The memories component as injected ("" if none), for ``/memory``."""
    turn_template: str = field(repr=False)
    oversized: tuple[Oversized, ...] = ()
    memory_ids: tuple[int, ...] = ()
    """The memories injected (a cut component leaves some out), best first."""
    excerpt_ids: tuple[int, ...] = ()
    """The same for excerpts: the ids of their messages."""

    def messages(self, history: Sequence[ChatMessage]) -> list[ChatMessage]:
        """The full prompt: the system message, then *history* with the turn
        context joined to its last message (the one being answered)."""
        if not history:
            return [ChatMessage("system", self.system)]
        last = joined(self.turn_template, history[-1], self.turn_context)
        return [ChatMessage("system", self.system), *history[:-1], last]


Condensed = Callable[[str, str], str | None]
"""``condensed(component, content_hash)``: a stored condensed text, if any."""


def no_condensed(component: str, digest: str) -> str | None:
    return None


def assemble(
    library: PromptLibrary,
    inputs: PromptInputs,
    limits: ComponentLimits | None = None,
    condensed: Condensed = no_condensed,
) -> AssembledPrompt:
    limits = limits or ComponentLimits()
    parts = _Components(library, condensed)
    memories = parts.memories(inputs.memories, limits.memories)
    excerpts = parts.excerpts(inputs.excerpts, limits.excerpts)
    tasks = parts.component("tasks", [t.render() for t in inputs.tasks], limits.tasks)
    summary_text = safe_for_prompt(inputs.summary, "paragraphs") if inputs.summary else ""
    summary = parts.component("summary", [summary_text] if summary_text else [], None)
    skills = parts.component("skills", [s.render() for s in inputs.skills], limits.skills)
    tools = parts.component("tools", [inputs.tool_list] if inputs.tool_list else [], None)
    stable = [
        library.base_prompt(inputs.tools),
        tools,
        parts.sections.get("memories_note", ""),
        tasks,
        summary,
        skills or parts.sections.get("skills_empty", ""),
    ]
    return AssembledPrompt(
        system=_join(stable),
        turn_context=_join([parts.time(inputs.now), memories, excerpts]),
        memories=memories,
        turn_template=parts.turn_template,
        oversized=tuple(parts.oversized),
        memory_ids=_shown(inputs.memories, memories),
        excerpt_ids=_excerpts_shown(inputs.excerpts, excerpts),
    )


@dataclass(frozen=True)
class MessageContext:
    """What goes with one user message in every prompt that reads it."""

    text: str
    memory_ids: tuple[int, ...]
    """The memories in *text* (a cut component leaves some out)."""
    excerpt_ids: tuple[int, ...] = ()
    oversized: tuple[Oversized, ...] = ()


def message_context(
    library: PromptLibrary,
    sent: datetime,
    memories: Sequence[MemoryLine],
    limits: ComponentLimits | None = None,
    condensed: Condensed = no_condensed,
    previous: datetime | None = None,
    excerpts: Sequence[ExcerptLine] = (),
) -> MessageContext:
    """The context of a message *sent* then: its time, *memories* and
    *excerpts* (those first given to the model with it), each condensed or
    cut to its limit.  The time is the time of day alone when the message read before
    it (sent *previous*) gave the same day and zone: a date and zone cost
    twenty tokens, every turn.  The same inputs give the same text, so the
    prompt cache keeps it."""
    limits = limits or ComponentLimits()
    parts = _Components(library, condensed)
    text = parts.memories(memories, limits.memories)
    recalled = parts.excerpts(excerpts, limits.excerpts)
    same_day = previous is not None and _day(previous) == _day(sent)
    when = parts.time(sent, of_day=same_day)
    return MessageContext(
        "\n".join(part for part in (when, text, recalled) if part),
        _shown(memories, text),
        _excerpts_shown(excerpts, recalled),
        tuple(parts.oversized),
    )


def joined(template: str, message: ChatMessage, context: str) -> ChatMessage:
    """*message* with *context* before it, by the ``turn`` section's *template*."""
    if not context:
        return message
    text = fill(template, context=context, message=message.content)
    return ChatMessage(message.role, text.strip())


class _Components:
    """The sections of ``PROMPT_COMPONENTS.txt`` filled in, each cut to its
    limit unless a condensed version of exactly that content exists (what
    was over is kept in *oversized*, for a condenser)."""

    def __init__(self, library: PromptLibrary, condensed: Condensed = no_condensed) -> None:
        self.sections = {s.name: s.text for s in library.sections(COMPONENTS)}
        self.turn_template = self.sections.get("turn", "{context}\n\n{message}")
        self.oversized: list[Oversized] = []
        self._condensed = condensed

    def component(
        self, name: str, lines: Sequence[str], limit: int | None, condensable: bool = True
    ) -> str:
        if not lines:
            return ""
        content = "\n".join(lines)
        if limit is not None and len(content) > limit:
            if condensable:
                self.oversized.append(Oversized(name, content, limit))
                shorter = self._condensed(name, content_hash(content))
                # A condensed text is the model's rewrite of safe lines: made safe again.
                safer = None if shorter is None else safe_for_prompt(shorter, "paragraphs")
                content = safer if safer is not None else content
            content = _cut(content, limit)
        return fill(self.sections.get(name, "{" + name + "}"), **{name: content}).strip()

    def memories(self, memories: Sequence[MemoryLine], limit: int) -> str:
        quoted = self.sections.get("memory_quoted", '"{text}"')
        return self.component("memories", [m.render(quoted) for m in memories], limit)

    def excerpts(self, excerpts: Sequence[ExcerptLine], limit: int) -> str:
        """Cut, never condensed: with no ids to check a rewrite by, the model's
        could say the user said what it said, and no chip could name them."""
        lines = [e.render() for e in excerpts]
        return self.component("excerpts", lines, limit, condensable=False)

    def time(self, now: datetime, of_day: bool = False) -> str:
        """*now* in the ``time`` section: to the minute, with its date and
        zone unless *of_day*."""
        return self.component("time", [now.strftime("%H:%M") if of_day else _when(now)], None)


def _shown(memories: Sequence[MemoryLine], component: str) -> tuple[int, ...]:
    """The ids of *memories* a component kept (a cut one leaves the last out)."""
    return tuple(m.id for m in memories if f"(#{m.id})" in component)


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()


def _join(parts: Sequence[str]) -> str:
    return SECTION_SEPARATOR.join(part for part in parts if part)


def _excerpts_shown(excerpts: Sequence[ExcerptLine], component: str) -> tuple[int, ...]:
    """The ids of *excerpts* a component kept whole (a cut one leaves the last out)."""
    return tuple(e.message_id for e in excerpts if e.render() in component)


def _day(moment: datetime) -> tuple[object, ...]:
    return (moment.date(), moment.utcoffset(), moment.tzname())


def _when(now: datetime) -> str:
    """*now* to the minute, in its own time zone (the caller passes local time)."""
    return now.strftime("%A %Y-%m-%d %H:%M") + f" ({now.tzname() or 'local time'})"


def _cut(content: str, limit: int) -> str:
    """*content* shortened to *limit* characters at a line end, marked as cut."""
    if len(content) <= limit:
        return content
    room = max(0, limit - len(_CUT_MARK) - 1)
    kept = content[:room]
    if "\n" in kept:
        kept = kept[: kept.rindex("\n")]
    return f"{kept}\n{_CUT_MARK}" if kept else _CUT_MARK
