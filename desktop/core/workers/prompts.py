"""What a worker reads and what it reports, from ``data/WORKER_PROMPT.txt``.

The system prompt of each mode: ``minimal`` a short execution prompt (and
how to call its tools, if it has any); ``base_only`` the sectioned base
prompt with only the sections its tools allow, the chat's own mechanism
(``PromptLibrary.base_prompt``); ``full`` the chat's whole prompt
(``desktop.core.chat.prompt.assemble``: base prompt, tools, memories,
tasks, skills) and a note that it works in the background; ``none`` no
system prompt at all.  Every text of the user's or a model's that goes in
passes ``safe_for_prompt``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from desktop.core.base.prompts import SECTION_SEPARATOR, PromptLibrary, fill
from desktop.core.chat.prompt import PromptInputs, assemble
from desktop.core.db.workers import Worker
from desktop.core.memory.lines import COMPONENTS, MemoryLine
from desktop.core.privacy.prompt_safety import safe_for_prompt
from desktop.core.skills.library import SkillLine
from desktop.core.tasks.service import TaskLine
from models.interfaces import ChatMessage

TEMPLATE = "WORKER_PROMPT.txt"


class WorkerPrompts:
    def __init__(self, library: PromptLibrary) -> None:
        self._library = library

    def _section(self, name: str, **values: str) -> str:
        return fill(self._library.section(TEMPLATE, name), **values).strip()

    def messages(
        self,
        worker: Worker,
        history: Sequence[ChatMessage],
        *,
        tools: frozenset[str],
        tool_list: str,
        now: datetime,
        memories: Sequence[MemoryLine] = (),
        tasks: Sequence[TaskLine] = (),
        skills: Sequence[SkillLine] = (),
    ) -> list[ChatMessage]:
        """The prompt of *worker*'s next step: its mode's system prompt, then *history*."""
        if worker.mode == "none":
            return list(history)
        if worker.mode == "full":
            inputs = PromptInputs(
                now=now,
                tools=tools,
                tool_list=tool_list,
                memories=memories,
                tasks=tasks,
                skills=skills,
            )
            prompt = assemble(self._library, inputs).messages(history)
            note = self._section("full", id=str(worker.head))
            prompt[0] = ChatMessage("system", prompt[0].content + SECTION_SEPARATOR + note)
            return prompt
        if worker.mode == "base_only":
            parts = [self._library.base_prompt(tools)]
        else:
            parts = [self._section("minimal")]
        if tool_list:
            how = self._library.section(COMPONENTS, "tools") or "{tools}"
            parts.append(fill(how, tools=tool_list).strip())
        system = SECTION_SEPARATOR.join(part for part in parts if part)
        return [ChatMessage("system", system), *history]

    def tool_response(self, content: str) -> str:
        """A tool's result as the worker reads it back."""
        wrapper = self._library.section(COMPONENTS, "tool_response") or "{result}"
        return fill(wrapper, result=safe_for_prompt(content, "document"))

    def opening(self, worker: Worker, dependencies: Sequence[Worker]) -> str:
        """The worker's first message: its objective, and the results of
        the workers it waited on."""
        parts = [self._section("objective", objective=_safe(worker.objective))]
        if dependencies:
            lines = [
                self._section(
                    "dependency",
                    id=str(d.id),
                    objective=_one_line(d.objective),
                    result=_safe(d.result or ""),
                )
                for d in dependencies
            ]
            parts.append(self._section("dependencies", results="\n".join(lines)))
        return "\n\n".join(parts)

    def continuation(self) -> str:
        return self._section("continuation")

    def call_lost(self) -> str:
        return self._section("call_lost")

    def assistant(self, content: str) -> str:
        """What the worker wrote, as it reads it back: it may quote what its
        tools returned (memories, tasks), so it is made safe like them."""
        return _safe(content)

    def report(self, worker: Worker) -> str:
        """The system event saying how *worker* (a chain's first hop) ended.
        What a worker wrote is made safe here: the chat reads events as written."""
        objective = _one_line(worker.objective)
        if worker.state == "completed":
            result = _safe(worker.result or "")
            return self._section("completed", id=str(worker.id), objective=objective, result=result)
        return self._section(
            "failed", id=str(worker.id), objective=objective, reason=_reason(worker)
        )

    def together_report(self, workers: Sequence[Worker]) -> str:
        """One system event for first hops that ended at once (a cancel, or
        a failure, and every worker waiting on it): one report, not one each."""
        return self._section("together", count=str(len(workers)), lines=self._lines(workers))

    def children_report(self, parent_id: int, children: Sequence[Worker]) -> str:
        """One system event for every worker *parent_id* started."""
        return self._section(
            "children",
            id=str(parent_id),
            workers=(
                "a worker, which has ended"
                if len(children) == 1
                else f"{len(children)} workers, which have all ended"
            ),
            lines=self._lines(children),
        )

    def _lines(self, workers: Sequence[Worker]) -> str:
        """A line for each of *workers*, how it ended."""
        return "\n".join(
            self._section(
                "child_completed",
                id=str(w.id),
                objective=_one_line(w.objective),
                result=_safe(w.result or ""),
            )
            if w.state == "completed"
            else self._section(
                "child_failed", id=str(w.id), objective=_one_line(w.objective), reason=_reason(w)
            )
            for w in workers
        )


def _reason(worker: Worker) -> str:
    if worker.state == "cancelled":
        return "it was cancelled"
    return _safe(worker.failure or "unknown")


def _one_line(objective: str) -> str:
    """An objective where a report or a list quotes it: on one line, so its
    line breaks cannot start a line posing as another worker's ("- #9 …")."""
    return safe_for_prompt(objective, "line")


def _safe(text: str) -> str:
    """A model's or a user's text, inert in a prompt (``safe_for_prompt``)."""
    return safe_for_prompt(text, "document")
