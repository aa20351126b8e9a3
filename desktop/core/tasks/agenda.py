"""Agenda reviews: now and then the model looks over each conversation's tasks.

For every conversation with active tasks (tasks without a conversation are
left alone: there is nowhere to say what was done), one background model
call reads those tasks, numbered from 1, and the latest messages, and
answers under a JSON schema: ``[NO_ACTION]`` when nothing needs attention,
or actions: ``complete`` a task, ``add`` one, ``reschedule`` one, or
``update_memory`` (through the memory service, like every memory write,
kept only when the user's messages among those shown say it, not deny,
ask or embellish it, and named as its sources: ``harvest.users_words_for``).
The schema allows only the task numbers shown; they are mapped back to ids.
An answer off the schema, or naming a task it was not shown, changes
nothing.  Each action is then checked and applied on its own: one that
cannot be (a schedule in the past, a task changed while the model thought,
two actions on one task, a memory the write gate turns away) is refused
with a log line (the kinds of action and refusal, never their words) and
changes nothing.  An ``add`` needs a message of the user's shown that asks
for the task and names its schedule, as the chat's ``task`` tool does.  A
``complete`` quotes the user's own words (``evidence``), read by the
dream's rule (``task_evidence.said_done``): when a message the user typed
after the task was made (or reopened), among those shown, says it is done
(or might: a hedge, a done word not naming the task) and no later one
takes it back or asks, the review asks the user whether it is done, once
for those words; it never completes a task itself (a model
reading the user wrong would end it for good).  Anything else is refused, a
repeating task always (it is the user's to complete or delete).

What was done is said in the conversation as a short assistant message
(metadata ``kind``: ``agenda_review``), the model's own notice of what it
did; when nothing was done, nothing is shown or stored.  The actions and
the notice commit in one transaction (memories are planned before it, the
model's part of a memory write): a kill or a failure midway leaves none of
them, never a change nobody was told of.  A conversation is
reviewed again only when something changed since its last review (a
message, or one of its tasks edited or run), so an idle one costs nothing.

The prompt fits the model's context (``tokens.fitted_prefix``,
as the dream's do): the newest messages take up to half of it, the most
urgent tasks the rest; tasks that do not fit are left out of that review
(the app's log says how many), older messages when there is no room.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from desktop.core.base.content_words import own_words, sentences
from desktop.core.base.errors import EnvironmentProblem, ReverieError
from desktop.core.base.jobs import JobControl
from desktop.core.base.prompts import PromptLibrary, fill
from desktop.core.base.settings import TaskSettings
from desktop.core.base.text_fold import APOSTROPHES
from desktop.core.base.tokens import MESSAGE_OVERHEAD, CountTokens, cut_middle, fitted_prefix
from desktop.core.db import ConversationStore, Message, Transaction
from desktop.core.db.message_kinds import TASKS_REVIEWED, is_seed, visible_text
from desktop.core.db.schedules import Once, Schedule
from desktop.core.db.tasks import DEFAULT_PRIORITY, LOW, URGENT, Task
from desktop.core.memory.gate import MemoryRefused
from desktop.core.memory.harvest import users_words_for
from desktop.core.memory.service import (
    MemoryBatch,
    MemoryCategory,
    MemoryService,
    PlannedMemory,
)
from desktop.core.privacy.prompt_safety import safe_for_prompt
from desktop.core.privacy.redaction import Redactor
from desktop.core.tasks.evidence import QUOTE_CHARS, DoneEvidence, said_done
from desktop.core.tasks.rewrites import only_asks, schedule_unsaid, speaks_of
from desktop.core.tasks.routines import KIND, awaited, spoken_time
from desktop.core.tasks.schedules import ScheduleWords, check_upcoming, parse_schedule
from desktop.core.tasks.service import MODEL_TEXT_CHARS, TaskService, schedule_words
from models.broker import InferenceBroker, Priority
from models.errors import GenerationCancelled, ModelError, StructuredOutputError
from models.interfaces import ChatMessage, GenerationOptions
from models.structured import parse_structured

log = logging.getLogger(__name__)

TEMPLATE = "AGENDA_REVIEW_PROMPT.txt"
NO_ACTION = "[NO_ACTION]"
AGENDA_REVIEW = TASKS_REVIEWED
"""Message metadata ``kind`` of what a review said it did (an erasure reads it too)."""
ACTIONS = "actions"
"""Message metadata key: the actions a review applied, as the model wrote them."""
ASKED, ASKED_FROM = "asked", "asked_from"
"""An action's keys: the task a review asked about, and the message whose words it asked from."""
MAX_ACTIONS = 6
ANSWER_TOKENS = 400
MESSAGE_CHARS = 600
MESSAGES_SHARE = 0.5
"""Of the prompt's room, what the messages may take before the tasks are fitted."""
FACT_CHARS = 400
_MARGIN_TOKENS = 32
_SPEAKERS = {"user": "User", "assistant": "Reverie"}


class CompleteTask(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["complete"]
    task: int = Field(ge=1)
    evidence: str | None = Field(None, max_length=QUOTE_CHARS)
    """The user's own words saying the task is done (``said_done`` reads them)."""


class AddTask(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["add"]
    text: str = Field(min_length=1, max_length=MODEL_TEXT_CHARS)
    priority: int = Field(DEFAULT_PRIORITY, ge=URGENT, le=LOW)
    schedule: ScheduleWords | None = None


class RescheduleTask(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["reschedule"]
    task: int = Field(ge=1)
    schedule: ScheduleWords


class UpdateMemory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["update_memory"]
    fact: str = Field(min_length=1, max_length=FACT_CHARS)
    category: MemoryCategory = "other"


AgendaAction = Annotated[
    CompleteTask | AddTask | RescheduleTask | UpdateMemory, Field(discriminator="action")
]


class AgendaAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    actions: list[AgendaAction] = Field(max_length=MAX_ACTIONS)


class AgendaFailed(ReverieError):
    """The review's answer could not be used; nothing was changed."""


class ActionRefused(ReverieError):
    """One action of a review that cannot be applied; nothing was changed by it."""


def _check_asked_to_move(
    task: Task, words: str, schedule: Schedule | None, messages: Sequence[Message]
) -> None:
    """``ActionRefused`` unless a message of the user's shown speaks of
    *task* and names its new schedule (*words*, read as *schedule*); a
    repeating task made one-off or unscheduled is never a review's call
    (it would end every later reminder, as a completion would)."""
    repeats = task.schedule is not None and not isinstance(task.schedule, Once)
    if repeats and (schedule is None or isinstance(schedule, Once)):
        raise ActionRefused(f"task #{task.id} repeats: a review does not end its reminders")
    said = [m.content for m in messages if m.role == "user" and speaks_of(task.text, m.content)]
    if not any(schedule_unsaid(words, text) is None for text in said):
        raise ActionRefused(f"the user has not asked to move task #{task.id} to {words}")


def _check_asked_to_add(text: str, words: str | None, messages: Sequence[Message]) -> None:
    """``ActionRefused`` unless a message of the user's shown asks for the
    task *text*, as the chat's ``task`` tool must: a sentence of their own
    words (not a paste) speaks of it, not only asking about it, and the
    message names its schedule (*words*).  After small talk a review added
    "Take a double dose of warfarin daily"."""
    for message in messages:
        if message.role != "user":
            continue
        said = own_words(message.content)
        about = [s for s in sentences(said.translate(APOSTROPHES)) if speaks_of(text, s)]
        asks = about and not all(only_asks(s) for s in about)
        if asks and (words is None or schedule_unsaid(words, said) is None):
            return
    raise ActionRefused("the user has not asked for this task in the messages shown")


class NotSaidDone(ActionRefused):
    """A completion the user's own words do not (plainly) back; ``kind`` is
    why, a key of ``task_evidence.AGAINST`` or ``DOUBTS``, which a log may
    name (the reason itself may quote the task)."""

    def __init__(self, task: Task, evidence: DoneEvidence) -> None:
        self.kind = evidence.against
        super().__init__(f"task #{task.id} was not asked about: {evidence.reason}")


@dataclass(frozen=True)
class AgendaReview:
    """What one conversation's review did."""

    conversation_id: int
    done: tuple[str, ...]
    """One line per applied action, as the notice says it."""
    refused: tuple[tuple[str, str], ...]
    """(action as JSON, reason) of each action turned away."""
    notice: Message | None
    """The message saying what was done; None when nothing was."""


@dataclass(frozen=True)
class _Shown:
    """What the model was shown (the tasks and messages that fit) and the
    memories its answer would note, planned."""

    tasks: Sequence[Task]
    messages: Sequence[Message]
    memories: dict[int, PlannedMemory | ActionRefused]


class AgendaReviewer:
    def __init__(
        self,
        tasks: TaskService,
        conversations: ConversationStore,
        memories: MemoryService | None,
        broker: InferenceBroker,
        prompts: PromptLibrary,
        count_tokens: CountTokens,
        *,
        context_length: int,
        settings: TaskSettings | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        self._tasks = tasks
        self._redact = redactor or Redactor()
        """Takes secrets out of the actions kept with the notice, as the
        task and memory services do out of what the actions write."""
        self._conversations = conversations
        self._memories = memories
        self._broker = broker
        self._prompts = prompts
        self._count_tokens = count_tokens
        self._context_length = context_length
        self._settings = settings or TaskSettings()

    def due(self) -> list[int]:
        """Every conversation with active tasks: time passing is itself news
        (a task due "before Friday" needs a word on Friday); tasks that
        belong to no conversation have nobody to tell."""
        tasks = self._tasks.list(("active",))
        return sorted({t.conversation_id for t in tasks if t.conversation_id is not None})

    def review_due(
        self,
        control: JobControl | None = None,
        report: Callable[[AgendaReview], None] | None = None,
    ) -> list[AgendaReview]:
        """Review every conversation that is due; a failure is logged and the
        others go on (the failed one is tried again next time)."""
        control = control or JobControl()
        reviews = []
        for conversation_id in self.due():
            if control.cancelled:
                break
            try:
                review = self.review(conversation_id, control)
            except GenerationCancelled:
                log.info("the agenda review was stopped")
                break
            except AgendaFailed as error:
                log.warning(
                    "the agenda review of conversation %d failed: %s", conversation_id, error
                )
                continue
            reviews.append(review)
            if report is not None:
                report(review)
        return reviews

    def review(self, conversation_id: int, control: JobControl | None = None) -> AgendaReview:
        """Review one conversation's active tasks now."""
        tasks = self._tasks.list(("active",), conversation_id=conversation_id)
        conversation = self._conversations.get(conversation_id)
        if not tasks or conversation is None or conversation.deleted_at is not None:
            return AgendaReview(conversation_id, (), (), None)
        control = control or JobControl()
        with control.scope():  # what it looks up stops with it too
            shown, said, answer = self._ask(tasks, self._transcript(conversation_id), control)
            memories = self._planned(conversation_id, answer, said)
        with self._writing() as (tx, batch):
            done, refused, applied = self._apply(
                conversation_id, _Shown(shown, said, memories), answer, tx, batch
            )
            notice = None
            if done:
                lines = "\n".join(f"- {line}" for line in done)
                notice = self._conversations.add_message(
                    conversation_id,
                    "assistant",
                    fill(self._section("notice"), actions=lines),
                    metadata={KIND: AGENDA_REVIEW, ACTIONS: self._redact.within(applied)},
                    tx=tx,
                )
        log.info(
            "agenda review of conversation %d: %d done, %d refused",
            conversation_id,
            len(done),
            len(refused),
        )
        return AgendaReview(conversation_id, tuple(done), tuple(refused), notice)

    # -- what it reads -----------------------------------------------------------
    def _transcript(self, conversation_id: int) -> list[Message]:
        """The latest messages the review may show, oldest first."""
        limit = self._settings.agenda_messages
        readable = [
            m
            for m in self._conversations.messages(conversation_id)
            if m.role in _SPEAKERS and not is_seed(m) and visible_text(m).strip()
        ]
        return readable[-limit:] if limit else []

    def _prompt(self, tasks: Sequence[Task], lines: Sequence[str]) -> list[ChatMessage]:
        listed = "\n".join(f"[{n}] {_task_line(task)}" for n, task in enumerate(tasks, start=1))
        text = fill(
            self._section("input"),
            time=spoken_time(self._tasks.now()),
            tasks=listed,
            conversation="\n\n".join(lines) or "(none)",
        )
        return [ChatMessage("system", self._section("instructions")), ChatMessage("user", text)]

    def _fitted(
        self, tasks: Sequence[Task], messages: list[Message]
    ) -> tuple[list[ChatMessage], Sequence[Task], list[Message]]:
        """The prompt that fits the context, the tasks and the messages it
        shows: the newest messages take up to half of it, the most urgent
        tasks what is left (the others wait for a later review), then older
        messages any room the tasks did not need."""
        room = self._context_length - ANSWER_TOKENS - _MARGIN_TOKENS - 2 * MESSAGE_OVERHEAD
        newest = [_message_line(m) for m in messages[::-1]]
        listed = [_task_line(task) for task in tasks]

        def talk(shown: Sequence[Task], share: float) -> list[str]:
            def build(count: int) -> list[ChatMessage]:
                return self._prompt(shown, newest[:count][::-1])

            fitted = fitted_prefix(build, newest, self._count_tokens, room, share)
            return newest[: fitted.shown][::-1]

        said = talk([], MESSAGES_SHARE)
        shown = fitted_prefix(
            lambda count: self._prompt(tasks[:count], said), listed, self._count_tokens, room
        ).shown
        if not shown:
            raise AgendaFailed("the model's context is too small for even one task")
        if shown < len(tasks):
            log.info("agenda review: %d of %d tasks fit the model's context", shown, len(tasks))
        said = talk(tasks[:shown], 1.0)
        read = messages[len(messages) - len(said) :]  # the newest, as many as the lines shown
        return self._prompt(tasks[:shown], said), tasks[:shown], read

    # -- the answer --------------------------------------------------------------
    def _ask(
        self, tasks: Sequence[Task], messages: list[Message], control: JobControl
    ) -> tuple[Sequence[Task], list[Message], AgendaAnswer]:
        """The tasks and messages shown (those that fit) and the model's
        answer about them."""
        try:
            prompt, tasks, messages = self._fitted(tasks, messages)
            options = GenerationOptions(
                max_tokens=ANSWER_TOKENS, temperature=0.0, json_schema=schema(len(tasks))
            )
            job = control.run(self._broker.chat(prompt, options, Priority.BACKGROUND))
            raw = str(awaited(job, control))
            answer = parse_answer(raw)
        except StructuredOutputError as error:
            raise AgendaFailed(f"the model's answer was not usable: {error}") from error
        except GenerationCancelled:
            raise  # stopped: not a failure
        except ModelError as error:
            raise AgendaFailed(f"the model could not review the tasks: {error}") from error
        named = [a.task for a in answer.actions if isinstance(a, CompleteTask | RescheduleTask)]
        if any(not 1 <= n <= len(tasks) for n in named):
            # Not the answer itself: it quotes the tasks, and this reaches the log.
            raise AgendaFailed("the model named tasks it was not shown")
        return tasks, messages, answer

    def _planned(
        self, conversation_id: int, answer: AgendaAnswer, said: Sequence[Message]
    ) -> dict[int, PlannedMemory | ActionRefused]:
        """Each memory the answer notes, planned before anything is written
        (the write gate and the embedding may wait on a model, and no
        transaction waits on a model), or why it is not noted; by action.
        The messages *said* (those shown) are what a fact may rest on."""
        planned: dict[int, PlannedMemory | ActionRefused] = {}
        for index, action in enumerate(answer.actions):
            if isinstance(action, UpdateMemory):
                try:
                    planned[index] = self._plan_memory(conversation_id, action, said)
                except ActionRefused as error:
                    planned[index] = error
        return planned

    @contextmanager
    def _writing(self) -> Iterator[tuple[Transaction, MemoryBatch | None]]:
        """One transaction for everything a review does and says: a kill or
        a failure anywhere leaves all of it undone, never changes unsaid."""
        if self._memories is None:
            with self._tasks.transaction() as tx:
                yield tx, None
        else:
            with self._memories.writing("tool") as batch:
                yield batch.transaction, batch

    def _apply(
        self,
        conversation_id: int,
        shown: _Shown,
        answer: AgendaAnswer,
        tx: Transaction,
        batch: MemoryBatch | None,
    ) -> tuple[list[str], list[tuple[str, str]], list[dict[str, Any]]]:
        done: list[str] = []
        refused: list[tuple[str, str]] = []
        applied: list[dict[str, Any]] = []
        touched: set[int] = set()
        for index, action in enumerate(answer.actions):
            try:
                asked: dict[str, Any] = {}
                if isinstance(action, UpdateMemory):
                    line = self._remember(shown.memories[index], batch)
                else:
                    line, asked = self._apply_one(conversation_id, shown, action, touched, tx)
            except EnvironmentProblem:
                raise  # the database failed: the whole review is undone
            except ReverieError as error:  # refused: a past schedule, a task gone, the gate
                # Kinds only: the action and the refusal quote the
                # conversation, which the log would keep after it is erased.
                kind = type(error).__name__
                if isinstance(error, NotSaidDone):
                    kind = f"{kind}: {error.kind}"
                log.info("agenda review refused an action: %s (%s)", action.action, kind)
                refused.append((action.model_dump_json(), str(error)))
                continue
            done.append(line)
            # Not the quote: the user's words stay in their message, and
            # go when it is erased; a copy here would outlive it.
            applied.append(action.model_dump(exclude={"evidence"}) | asked)
        return done, refused, applied

    def _apply_one(
        self,
        conversation_id: int,
        shown: _Shown,
        action: CompleteTask | AddTask | RescheduleTask,
        touched: set[int],
        tx: Transaction,
    ) -> tuple[str, dict[str, Any]]:
        """What *action* did, in the notice's words, and what to keep of it
        beyond the action itself."""
        if isinstance(action, AddTask):
            return self._add(conversation_id, action, shown.messages, tx), {}
        task = self._unchanged(shown.tasks[action.task - 1], touched)
        if isinstance(action, CompleteTask):
            return self._ask_if_done(conversation_id, task, action.evidence, shown)
        schedule = parse_schedule(action.schedule, self._tasks.now())
        if schedule is not None:  # a time gone by says so first
            check_upcoming(schedule, self._tasks.now(), self._tasks.zone)
        _check_asked_to_move(task, action.schedule, schedule, shown.messages)
        moved = self._tasks.update(task.id, schedule=schedule, tx=tx)
        words = schedule_words(moved) or "no schedule"
        line = fill(
            self._section("did_reschedule"), id=str(moved.id), task=moved.text, schedule=words
        )
        return line, {}

    def _ask_if_done(
        self, conversation_id: int, task: Task, quote: str | None, shown: _Shown
    ) -> tuple[str, dict[str, Any]]:
        """The question whether *task* is done, when the user's own words
        (*quote*) say so, or might, by the dream's rule: typed after the task
        was made or reopened, and nothing later taking them back.  A review
        never completes a task itself (a model reading the user wrong would
        end it for good: "I'm so done with these plants"); the user says yes,
        or completes it in Tasks.  Words it already asked about are not
        asked about again."""
        evidence = said_done(task, quote, shown.messages)
        if evidence.against or evidence.message is None:  # a doubt is asked about too
            raise NotSaidDone(task, evidence)
        asked = {ASKED: task.id, ASKED_FROM: evidence.message.id}
        if any(asked.items() <= action.items() for action in self._asked(conversation_id)):
            raise ActionRefused(f"task #{task.id} was asked about those words already")
        return fill(self._section("ask_complete"), id=str(task.id), task=task.text), asked

    def _asked(self, conversation_id: int) -> Iterator[dict[str, Any]]:
        """The actions this conversation's reviews said before."""
        for message in self._conversations.messages(conversation_id, include_archived=True):
            metadata = message.metadata or {}
            if metadata.get(KIND) == AGENDA_REVIEW:
                yield from (a for a in metadata.get(ACTIONS, ()) if isinstance(a, dict))

    def _unchanged(self, task: Task, touched: set[int]) -> Task:
        """*task* as the model saw it; refused if this review already acted
        on it or it changed since."""
        if task.id in touched:
            raise ActionRefused(f"task #{task.id} already has an action in this review")
        touched.add(task.id)
        current = self._tasks.get(task.id)
        if current != task:
            raise ActionRefused(f"task #{task.id} changed while the review was thinking")
        return task

    def _add(
        self, conversation_id: int, action: AddTask, messages: Sequence[Message], tx: Transaction
    ) -> str:
        """Add *action*'s task if a user's message among *messages* (those
        shown) asks for it."""
        wanted = " ".join(action.text.split()).casefold()
        open_tasks = self._tasks.list(conversation_id=conversation_id)
        if any(" ".join(t.text.split()).casefold() == wanted for t in open_tasks):
            raise ActionRefused(f"“{action.text}” is already a task")
        schedule = (
            None if action.schedule is None else parse_schedule(action.schedule, self._tasks.now())
        )
        task = self._tasks.add(
            action.text,
            conversation_id=conversation_id,
            priority=action.priority,
            schedule=schedule,
            tx=tx,
            approve=lambda text: _check_asked_to_add(text, action.schedule, messages),
        )
        words = schedule_words(task)
        return fill(
            self._section("did_add"),
            id=str(task.id),
            task=task.text,
            schedule=f" [{words}]" if words else "",
        )

    def _plan_memory(
        self, conversation_id: int, action: UpdateMemory, said: Sequence[Message]
    ) -> PlannedMemory:
        """*action*'s fact, planned with the user's messages it rests on as
        its sources (``users_words_for``, the harvest's rule: a fact about
        the user nothing they said says is a model's guess)."""
        conversation = self._conversations.get(conversation_id)
        if self._memories is None or conversation is None or conversation.off_record:
            raise ActionRefused("memories are not kept from this conversation")
        try:
            sources = users_words_for(action.fact, said)
            return self._memories.plan(
                action.fact,
                source_kind="inferred",
                category=action.category,
                message_ids=[m.id for m in sources],
                priority=Priority.BACKGROUND,
            )
        except MemoryRefused as error:
            raise ActionRefused(f"not remembered: {error}") from error

    def _remember(self, planned: PlannedMemory | ActionRefused, batch: MemoryBatch | None) -> str:
        if isinstance(planned, ActionRefused):
            raise planned
        assert batch is not None  # planned only with a memory service
        try:
            remembered = batch.write(planned)
        except MemoryRefused as error:  # the user deleted one like it meanwhile
            raise ActionRefused(f"not remembered: {error}") from error
        return fill(self._section("did_update_memory"), fact=remembered.memory.content)

    def _section(self, name: str) -> str:
        return self._prompts.section(TEMPLATE, name)


def parse_answer(raw: str) -> AgendaAnswer:
    """The model's answer: ``[NO_ACTION]`` (bare or as a JSON string) is no
    actions; anything else must be a valid ``AgendaAnswer``."""
    text = raw.strip()
    if text in (NO_ACTION, json.dumps(NO_ACTION)):
        return AgendaAnswer(actions=[])
    return parse_structured(AgendaAnswer, text)


def schema(shown: int) -> dict[str, Any]:
    """The answer's schema: ``"[NO_ACTION]"`` or actions, task numbers
    limited to the *shown* ones."""
    answer = AgendaAnswer.model_json_schema()
    defs = answer.pop("$defs")
    for name in ("CompleteTask", "RescheduleTask"):
        defs[name]["properties"]["task"] = {"type": "integer", "enum": list(range(1, shown + 1))}
    return {"anyOf": [{"const": NO_ACTION}, answer], "$defs": defs}


def _message_line(message: Message) -> str:
    """*message* on one line of the transcript (a line of its own could
    pose as the next speaker)."""
    text = visible_text(message).strip()
    text = cut_middle(text, len(text), MESSAGE_CHARS)
    return f"{_SPEAKERS[message.role]}: {safe_for_prompt(text, 'message')}"


def _task_line(task: Task) -> str:
    when = schedule_words(task)
    return f"(P{task.priority}) {safe_for_prompt(task.text)}{f' [{when}]' if when else ''}"
