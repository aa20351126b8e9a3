"""Assembles the prompt of one model call from templates and the user's data.

Every call gets a fresh prompt from ``BASE_PROMPT.txt`` (the sections its
tools allow) and the components of ``PROMPT_COMPONENTS.txt``, in this order
of meaning: core instructions, the tools and how to call them, current
time, memories, active tasks, conversation summary, skills table of
contents.  Sections are separated by
``---``; empty ones are left out, except Skills.

Layout, for llama.cpp's prefix cache (it re-reads a prompt only from the
first token that differs from the previous one): what rarely changes (the
base prompt, tools, tasks, summary, skills) is the system message, and what changes
every turn (the time, memories retrieved for this message) goes with the
newest user message, so the history between them is read once, not on
every turn.

A component over its size limit is cut to the limit (whole lines, the
lowest-ranked last) unless a condensed version of exactly that content
exists; it is reported as oversized so a background job can condense it.

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
from desktop.core.memory.lines import COMPONENTS, MemoryLine
from desktop.core.privacy.prompt_safety import safe_for_prompt
from desktop.core.skills.library import SkillLine
from desktop.core.tasks.service import TaskLine
from models.interfaces import ChatMessage

_CUT_MARK = "[…]"


@dataclass(frozen=True)
class ComponentLimits:
    """Largest size of each component, in characters."""

    memories: int = 10_000
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

    def messages(self, history: Sequence[ChatMessage]) -> list[ChatMessage]:
        """The full prompt: the system message, then *history* with the turn
        context joined to its last message (the one being answered)."""
        prompt = [ChatMessage("system", self.system), *history]
        if self.turn_context and history:
            last = prompt[-1]
            joined = fill(self.turn_template, context=self.turn_context, message=last.content)
            prompt[-1] = ChatMessage(last.role, joined.strip())
        return prompt


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
    sections = {s.name: s.text for s in library.sections(COMPONENTS)}
    oversized: list[Oversized] = []

    def component(name: str, lines: Sequence[str], limit: int | None) -> str:
        if not lines:
            return ""
        content = "\n".join(lines)
        if limit is not None and len(content) > limit:
            oversized.append(Oversized(name, content, limit))
            shorter = condensed(name, content_hash(content))
            # A condensed text is the model's rewrite of safe lines: made safe again.
            safer = None if shorter is None else safe_for_prompt(shorter, "paragraphs")
            content = _cut(safer if safer is not None else content, limit)
        return fill(sections.get(name, "{" + name + "}"), **{name: content}).strip()

    quoted = sections.get("memory_quoted", '"{text}"')
    memories = component("memories", [m.render(quoted) for m in inputs.memories], limits.memories)
    tasks = component("tasks", [t.render() for t in inputs.tasks], limits.tasks)
    summary_text = safe_for_prompt(inputs.summary, "paragraphs") if inputs.summary else ""
    summary = component("summary", [summary_text] if summary_text else [], None)
    skills = component("skills", [s.render() for s in inputs.skills], limits.skills)
    time = component("time", [_when(inputs.now)], None)
    tools = component("tools", [inputs.tool_list] if inputs.tool_list else [], None)
    stable = [
        library.base_prompt(inputs.tools),
        tools,
        tasks,
        summary,
        skills or sections.get("skills_empty", ""),
    ]
    return AssembledPrompt(
        system=_join(stable),
        turn_context=_join([time, memories]),
        memories=memories,
        turn_template=sections.get("turn", "{context}\n\n{message}"),
        oversized=tuple(oversized),
        memory_ids=tuple(m.id for m in inputs.memories if f"(#{m.id})" in memories),
    )


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()


def _join(parts: Sequence[str]) -> str:
    return SECTION_SEPARATOR.join(part for part in parts if part)


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
