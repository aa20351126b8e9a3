"""What a dream pass is, and what it is given.

A pass looks at memories (asking the model where judgement is needed) and
returns ``Proposal``s; it writes nothing itself.  Model answers go through
``PassContext.ask``: generated under a JSON schema at background priority,
after waiting for the user, validated, and kept in the run's checkpoint so
a dream resumed after a pause or a crash does not ask again.  An answer
that cannot be used raises ``PassRejected``: nothing of that pass is
applied, its raw text goes to the run's log.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from desktop.core.dreaming.control import DreamControl, DreamProgress, DreamStopped
from desktop.core.dreaming.proposals import Proposal
from desktop.core.errors import ReverieError
from desktop.core.memory_service import MemoryService
from desktop.core.prompt_safety import safe_for_prompt
from desktop.core.prompts import PromptLibrary, fill
from desktop.core.settings import DreamSettings
from models.broker import InferenceBroker, Priority
from models.errors import GenerationCancelled, ModelError, StructuredOutputError
from models.interfaces import ChatMessage, GenerationOptions
from models.structured import parse_structured

T = TypeVar("T", bound=BaseModel)

ANSWER_TOKENS = 600


class PassRejected(ReverieError):
    """A pass's model answer was unusable: nothing of the pass is applied."""

    def __init__(self, message: str, raw_output: str | None = None) -> None:
        super().__init__(message)
        self.raw_output = raw_output


@dataclass
class PassContext:
    run_id: int
    now: float
    """The run's time: memories changed after it are judged by the next run."""
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
