"""Tasks as the user, the model and the scheduler change them: the rules
around ``TaskStore``.

The service reads the clock and the time zone, so the store only keeps
times: a new or changed schedule gets its next run (``ScheduleInPast`` if
it has none), a resumed or restored task its next run from now (runs missed
while it was paused are skipped), and a run that happened its next one
(only the run that came due, of a task still active).  Built in a zone (at
every start), it moves each open task's next run to the time its schedule
has in that zone (``use_zone``), so a change of zone never keeps old times;
each look for due tasks after the clock went back does the same, so a clock
set back never leaves a run months away.
Refusals are ``TaskRefused``, ``TaskNotFound`` or ``TaskStateError``, each
worded for the user (and the model), and nothing is changed by one.
"""

from __future__ import annotations

import builtins
import logging
import re
import threading
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime, tzinfo

from desktop.core.base.errors import EnvironmentProblem, ReverieError
from desktop.core.base.text import readable, scrub
from desktop.core.base.text_fold import folded
from desktop.core.db.connection import Transaction
from desktop.core.db.purge import ERASED
from desktop.core.db.schedules import Schedule
from desktop.core.db.tasks import (
    DEFAULT_PRIORITY,
    KEEP,
    LOW,
    OPEN,
    URGENT,
    Keep,
    Task,
    TaskStatus,
    TaskStore,
)
from desktop.core.privacy.credential_nearby import MARKER
from desktop.core.privacy.prompt_safety import safe_for_prompt
from desktop.core.privacy.redaction import Redactor, past_any_redaction
from desktop.core.tasks.schedules import check_upcoming, describe, next_run, realigned

log = logging.getLogger(__name__)

TEXT_CHARS = 1_000
MODEL_TEXT_CHARS = 300
"""What a model may write as a task (its tool, an agenda review): longer
tasks belong in a skill or a memory."""
PROMPT_CHARS = 2_000


class TaskRefused(ReverieError):
    """Task text or priority that cannot be stored; nothing was changed."""


def _local_now() -> datetime:
    return datetime.now().astimezone()


@dataclass(frozen=True)
class TaskLine:
    id: int
    text: str
    priority: int
    schedule: str | None = None
    """In words, e.g. ``daily at 09:00``."""

    def render(self) -> str:
        when = f" [{self.schedule}]" if self.schedule else ""
        return f"[P{self.priority}] #{self.id}: {safe_for_prompt(self.text)}{when}"


class TaskService:
    """Tasks with their schedules read in the user's time zone.

    The zone is applied in one place, ``use_zone`` (at construction, that
    is at every start): each open task's stored next run, an instant
    computed in the zone of its time, is computed again from its schedule
    in the zone now in use, so after a change of ``tasks.time_zone`` or of
    the system's zone "daily at 09:00" runs at 09:00 there, not at the
    instant 09:00 was in the old zone.  In an unchanged zone nothing moves.
    """

    def __init__(
        self,
        store: TaskStore,
        zone: tzinfo,
        *,
        clock: Callable[[], datetime] = _local_now,
        redactor: Redactor | None = None,
    ) -> None:
        self.store = store
        self.zone = zone
        self._redact = redactor or Redactor()
        self._clock = clock
        self._latest = float("-inf")
        """The latest time the clock said (unix seconds), as runs were
        computed from it: one before it means the clock went back."""
        self._latest_lock = threading.Lock()
        self.problem: str | None = None
        """Why the runs could not be moved to the zone in use, for the user
        (None when they were): they keep the times of the old zone."""
        try:
            self.use_zone(zone)
        except EnvironmentProblem as error:  # the database failed: the app starts anyway
            log.warning("task runs were not moved to the time zone in use: %s", error)
            self.problem = (
                f"The times of scheduled tasks could not be moved to the time zone {zone}: "
                f"{error} Until Reverie starts again, a task made in another zone runs at "
                "the time it had there."
            )

    def use_zone(self, zone: tzinfo) -> int:
        """Read schedules in *zone* from now on, and move each open task's
        next run to the run its schedule has in *zone* (``realigned``: a
        missed run stays due, a ``once`` is never dropped); how many moved."""
        self.zone = zone
        return self._realign(self._read_clock())

    def _realign(self, now: datetime) -> int:
        """Each open task's next run as its schedule has it in the zone in
        use (``realigned``), as of *now*; how many moved."""
        moves = []
        for task in self.store.list(OPEN):
            if task.schedule is None or task.next_run_at is None:
                continue
            stored = datetime.fromtimestamp(task.next_run_at, self.zone)
            run = realigned(task.schedule, stored, now, self.zone).timestamp()
            if run != task.next_run_at:
                moves.append((task, run))
        return self.store.move_runs(moves) if moves else 0

    # -- reading -----------------------------------------------------------

    def get(self, task_id: int) -> Task | None:
        return self.store.get(task_id)

    def list(
        self, statuses: Sequence[TaskStatus] = OPEN, *, conversation_id: int | None = None
    ) -> builtins.list[Task]:
        return self.store.list(statuses, conversation_id=conversation_id)

    def count(self, statuses: Sequence[TaskStatus]) -> int:
        return self.store.count(statuses)

    def prompt_lines(self) -> builtins.list[TaskLine]:
        """The active tasks as the prompt shows them, most urgent first."""
        return [
            TaskLine(task.id, task.text, task.priority, schedule_words(task))
            for task in self.store.list(("active",))
        ]

    def next_run(self, task: Task, after: datetime | None = None) -> datetime | None:
        """When *task* runs next after *after* (now), in the user's zone."""
        if task.schedule is None:
            return None
        return next_run(task.schedule, after or self._read_clock(), self.zone)

    def now(self) -> datetime:
        """The service's clock, in the user's zone (what the UI counts "today" from)."""
        return self._read_clock().astimezone(self.zone)

    def due(self, now: datetime | None = None) -> builtins.list[Task]:
        """Active tasks whose run time has come, the longest waiting first.

        Runs are read again first if the clock went back since it was last
        read: a clock set back (it ran months ahead) leaves runs computed
        from the wrong "now" far off, and they would keep silent until
        then; a run still to come, or missed, stays.  Not at every look:
        with 10,000 tasks that took 2.5 s, and the runner looks again after
        each task it runs."""
        now = now or self._clock()
        if self._went_back(now):
            self._realign(now)
        return self.store.due(now.timestamp())

    def _read_clock(self) -> datetime:
        """The clock, for a run computed from it (``_noted``)."""
        return self._noted(self._clock())

    def _noted(self, moment: datetime) -> datetime:
        """*moment*, a run computed from it: the latest time the clock said
        moves on to it (never back: only ``_went_back`` reads runs again)."""
        with self._latest_lock:
            self._latest = max(self._latest, moment.timestamp())
        return moment

    def _went_back(self, now: datetime) -> bool:
        """Whether *now* is before the latest time the clock said (compared
        as instants: a wall clock repeats an hour in autumn); *now* is the
        latest from then on (runs read again from it are in line)."""
        with self._latest_lock:
            went_back = now.timestamp() < self._latest
            self._latest = now.timestamp() if went_back else max(self._latest, now.timestamp())
            return went_back

    # -- writing -----------------------------------------------------------

    def add(
        self,
        text: str,
        *,
        conversation_id: int | None,
        priority: int = DEFAULT_PRIORITY,
        schedule: Schedule | None = None,
        ai_prompt: str | None = None,
        tx: Transaction | None = None,
        approve: Callable[[str], None] | None = None,
    ) -> Task:
        """A new active task, belonging to *conversation_id* (the one that asked);
        with *ai_prompt* a routine, which runs that prompt when it is due.
        Inside *tx* if given (a review's actions commit with what it says).
        *approve*, given the task's text once it is found whole, raises to
        refuse it (whose call it is comes after what is wrong with it)."""
        text = self.checked_text(text)
        _check_priority(priority)
        ai_prompt = _checked_prompt(ai_prompt, self._redact)
        next_run_at = self._first_run(schedule)
        if approve is not None:
            approve(text)
        return self.store.add(
            text,
            conversation_id=conversation_id,
            priority=priority,
            schedule=schedule,
            next_run_at=next_run_at,
            ai_prompt=ai_prompt,
            tx=tx,
        )

    def update(
        self,
        task_id: int,
        *,
        text: str | None = None,
        priority: int | None = None,
        schedule: Schedule | Keep | None = KEEP,
        ai_prompt: str | Keep | None = KEEP,
        tx: Transaction | None = None,
    ) -> Task:
        """Change the text, priority, schedule or routine prompt (``None``
        removes a schedule, or makes a routine a plain task); inside *tx* if
        given (a dream changes several tasks all or nothing)."""
        text = None if text is None else self.checked_text(text)
        if priority is not None:
            _check_priority(priority)
        if not isinstance(ai_prompt, Keep):
            ai_prompt = _checked_prompt(ai_prompt, self._redact)
        if isinstance(schedule, Keep):
            return self.store.update(
                task_id, text=text, priority=priority, ai_prompt=ai_prompt, tx=tx
            )
        return self.store.update(
            task_id,
            text=text,
            priority=priority,
            schedule=schedule,
            next_run_at=self._first_run(schedule),
            ai_prompt=ai_prompt,
            tx=tx,
        )

    def checked_text(self, text: str) -> str:
        """*text* as a task keeps it (one line, as a reader sees it, its
        secrets taken out), or ``TaskRefused`` saying why it cannot be one:
        the check of every task text, whoever writes it."""
        return _checked_text(text, self._redact)

    def pause(self, task_id: int) -> Task:
        return self.store.pause(task_id)

    def resume(self, task_id: int) -> Task:
        """A paused task active again; its schedule goes on from now."""
        return self.store.resume(task_id, self._upcoming(task_id))

    def complete(self, task_id: int, tx: Transaction | None = None) -> Task:
        return self.store.complete(task_id, tx=tx)

    def transaction(self) -> AbstractContextManager[Transaction]:
        """A transaction of the tasks' database, for task changes and what
        is said of them (a message) to commit together."""
        return self.store.transaction()

    def delete(self, task_id: int) -> Task:
        """Soft: ``restore`` brings it back."""
        return self.store.delete(task_id)

    def restore(self, task_id: int) -> Task:
        return self.store.restore(task_id, self._upcoming(task_id))

    def mark_run(
        self,
        task_id: int,
        ran_at: datetime | None = None,
        *,
        due_at: float | Keep | None = KEEP,
        tx: Transaction | None = None,
    ) -> Task:
        """The task ran (spoke up, or its routine ran) at *ran_at* (now); its
        next run is the first after that, skipping any missed meanwhile.  A
        ``once`` task then has no next run and stays active until completed.

        *due_at* is the next run the task had when it was read as due: if
        the user paused, completed, deleted or rescheduled it since, that
        run is ``RunOvertaken`` and nothing is recorded (the store checks it
        in the write).  The task is read, and its next run computed, in the
        same transaction: *tx* (a caller's) if given."""
        ran = ran_at or self._read_clock()
        with self.store.writing(tx) as writing:
            task = self.store.get(task_id, writing)
            after = self._noted(max(ran, self._clock()))
            upcoming = None if task is None else self.next_run(task, after)
            return self.store.record_run(
                task_id,
                ran_at=ran.timestamp(),
                next_run_at=None if upcoming is None else upcoming.timestamp(),
                due_at=due_at,
                tx=writing,
            )

    @contextmanager
    def running(
        self, task_id: int, ran_at: datetime, *, due_at: float | Keep | None = KEEP
    ) -> Iterator[tuple[Task, Transaction]]:
        """Record that the task runs at *ran_at* (``mark_run``, *due_at* as
        there) in a transaction that what the run says joins: both are kept,
        or (if anything raises) neither.  The task given is as recorded:
        what it says is worded from its text as it is now."""
        with self.store.transaction() as tx:
            yield self.mark_run(task_id, ran_at, due_at=due_at, tx=tx), tx

    @contextmanager
    def still_running(self, task_id: int) -> Iterator[tuple[Task, Transaction]]:
        """A transaction for what a run says after its model call, given the
        task as it is now: ``RunOvertaken`` (and nothing is said) if the user
        paused, completed or deleted it while the model answered."""
        with self.store.transaction() as tx:
            yield self.store.check_running(tx, task_id), tx

    def take_back_run(self, recorded: Task, before: Task) -> bool:
        """The run ``mark_run`` *recorded* did not happen (stopped before it
        spoke): the task as it was *before*, due again, unless it changed
        meanwhile.  Whether it was taken back."""
        return self.store.take_back_run(recorded, before)

    def _first_run(self, schedule: Schedule | None) -> float | None:
        if schedule is None:
            return None
        return check_upcoming(schedule, self._read_clock(), self.zone).timestamp()

    def _upcoming(self, task_id: int) -> float | None:
        """The next run of a task from now; None if it has none (any more)."""
        task = self.store.get(task_id)
        upcoming = None if task is None else self.next_run(task)
        return None if upcoming is None else upcoming.timestamp()


def schedule_words(task: Task) -> str | None:
    """The task's schedule as the prompt and the UI say it (``daily at 09:00``)."""
    return None if task.schedule is None else describe(task.schedule)


def _checked_text(text: str, redact: Redactor) -> str:
    # As a reader sees it (as memories are kept): no control character, no
    # override reordering what is shown, no letters only a model reads, no
    # secret.  One line: the prompt lists a task per line, and a task's text
    # must not be able to add lines of its own there.  A pasted page is
    # refused before it is read for secrets (seconds a megabyte).
    cleaned = readable(scrub(text))
    if past_any_redaction(shown := " ".join(cleaned.split()), TEXT_CHARS):
        raise _text_too_long(shown)
    text = " ".join(redact.text(cleaned).split())
    if not _says_something(text):
        raise TaskRefused("A task needs some text saying what to do.")
    if len(text) > TEXT_CHARS:
        raise _text_too_long(text)
    return text


def _text_too_long(text: str) -> TaskRefused:
    return TaskRefused(
        f"A task is at most {TEXT_CHARS} characters (this one has {len(text)}); "
        "keep the task short and put the details in a skill or a memory."
    )


def _checked_prompt(prompt: str | None, redact: Redactor) -> str | None:
    """A routine's prompt, cleaned, its secrets taken out; None for a plain task."""
    if prompt is None:
        return None
    cleaned = readable(scrub(prompt))
    if past_any_redaction(cleaned.strip(), PROMPT_CHARS):
        raise _prompt_too_long(cleaned.strip())
    prompt = redact.text(cleaned).strip()
    if not _says_something(prompt):
        raise TaskRefused("A routine needs a prompt saying what Reverie should do.")
    if len(prompt) > PROMPT_CHARS:
        raise _prompt_too_long(prompt)
    return prompt


def _prompt_too_long(prompt: str) -> TaskRefused:
    return TaskRefused(
        f"A routine's prompt is at most {PROMPT_CHARS} characters (this one has "
        f"{len(prompt)}); put the details in a skill and ask the routine to follow it."
    )


def _says_something(text: str) -> bool:
    """Whether *text* shows something to do: not only characters that show
    nothing, nor only the placeholders an erasure or the redaction left
    ("[erased]", "[redacted password]") with spaces and punctuation."""
    seen = folded(text)[0]
    if not seen.strip():
        return False
    left = _PLACEHOLDER.sub(" ", seen)
    if left == seen:
        return True
    return any(not (c.isspace() or unicodedata.category(c).startswith("P")) for c in left)


_PLACEHOLDER = re.compile(rf"{re.escape(ERASED)}|{MARKER.pattern}")
"""What stands where a text was erased or a secret taken out."""


def _check_priority(priority: int) -> None:
    if not URGENT <= priority <= LOW:
        raise TaskRefused(
            f"Priority {priority} does not exist: {URGENT} is urgent, {LOW} low "
            f"({DEFAULT_PRIORITY} if unsure)."
        )
