"""``TaskStore``: all the SQL of ``tasks``.

A task moves between statuses only along the allowed steps (pause an active
one, resume a paused one, complete either, delete anything not deleted,
restore a deleted one); each step is one ``UPDATE ... WHERE status IN``, so
two writers cannot both take it.  Deleting is soft: a deleted task keeps its
text and comes back with ``restore``.  Times are unix seconds; the task
service (``desktop.core.tasks.service``) decides them, this store only keeps them.
"""

from __future__ import annotations

import builtins
import enum
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal, NoReturn, get_args

from desktop.core.base.errors import ReverieError
from desktop.core.db.clock import Clock, system_clock
from desktop.core.db.connection import Database, Row, Transaction
from desktop.core.db.errors import QueryFailed
from desktop.core.db.schedules import Schedule, from_spec, to_spec

TaskStatus = Literal["active", "paused", "completed", "deleted"]
OPEN: tuple[TaskStatus, ...] = ("active", "paused")
"""The statuses of tasks still to do."""
EVERY_STATUS: tuple[TaskStatus, ...] = get_args(TaskStatus)
URGENT, LOW = 1, 10
DEFAULT_PRIORITY = 5


class Keep(enum.Enum):
    """An argument left as it is (``None`` would mean "remove")."""

    KEEP = enum.auto()


KEEP = Keep.KEEP


class TaskNotFound(ReverieError):
    def __init__(self, task_id: int) -> None:
        super().__init__(f"There is no task #{task_id}.")
        self.task_id = task_id


class TaskStateError(ReverieError):
    """A step the task's status does not allow (pausing a completed task)."""


class RunOvertaken(TaskStateError):
    """The run that came due is not the task's any more: the user paused,
    completed, deleted or rescheduled it since it was read.  Nothing was
    recorded, and nothing of that run is to be said."""

    def __init__(self, task_id: int, status: str) -> None:
        change = "rescheduled" if status == "active" else status
        super().__init__(f"Task #{task_id} was {change} meanwhile; that run is not made.")
        self.task_id = task_id


@dataclass(frozen=True)
class Task:
    id: int
    conversation_id: int | None
    """The conversation that created it (where it speaks up); None once that is gone."""
    text: str
    priority: int
    """1 urgent ... 10 low."""
    status: TaskStatus
    schedule: Schedule | None
    ai_prompt: str | None
    """Set for a routine: what the model is asked when the task runs."""
    created_at: float
    updated_at: float
    completed_at: float | None
    last_run_at: float | None
    next_run_at: float | None
    reopened_at: float | None = None
    """When it was last taken from completed back to open (a dream's
    completion undone); None if never.  Words said before do not complete it."""

    @property
    def is_routine(self) -> bool:
        return self.ai_prompt is not None


# The step each verb takes: the statuses it starts from, the one it leads to.
_STEPS: dict[str, tuple[tuple[TaskStatus, ...], str]] = {
    "pause": (("active",), "'paused'"),
    "resume": (("paused",), "'active'"),
    "complete": (OPEN, "'completed'"),
    "delete": (("active", "paused", "completed"), "'deleted'"),
    # A restored task is as it was, except that a paused one comes back active.
    "restore": (
        ("deleted",),
        "CASE WHEN completed_at IS NULL THEN 'active' ELSE 'completed' END",
    ),
}
_PUT_BACK = ("text", "priority", "status", "completed_at", "next_run_at")
"""The columns a dream may change, put back when it is undone."""
_PAST = {
    "pause": "paused",
    "resume": "resumed",
    "complete": "completed",
    "delete": "deleted",
    "restore": "restored",
}


def _task(row: Row) -> Task:
    kind = row["schedule_kind"]
    schedule = None if kind is None else from_spec(kind, json.loads(row["schedule_spec"]))
    return Task(
        id=row["id"],
        conversation_id=row["conversation_id"],
        text=row["text"],
        priority=row["priority"],
        status=row["status"],
        schedule=schedule,
        ai_prompt=row["ai_prompt"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        completed_at=row["completed_at"],
        last_run_at=row["last_run_at"],
        next_run_at=row["next_run_at"],
        reopened_at=row["reopened_at"],
    )


def _stored(schedule: Schedule | None) -> tuple[str | None, str | None]:
    if schedule is None:
        return None, None
    kind, spec = to_spec(schedule)
    return kind, json.dumps(spec)


def _check(text: str | None, priority: int | None) -> None:
    if text is not None and not text.strip():
        raise ValueError("a task needs some text")
    if priority is not None and not URGENT <= priority <= LOW:
        raise ValueError(f"priority {priority} is outside {URGENT}..{LOW}")


class TaskStore:
    """Tasks, their schedules and run times."""

    def __init__(self, database: Database, *, clock: Clock = system_clock) -> None:
        self._db = database
        self._clock = clock

    # -- reading -----------------------------------------------------------

    def get(self, task_id: int, tx: Transaction | None = None) -> Task | None:
        """The task, deleted or not; None if there never was one.  As *tx* sees it if given."""
        reader: Database | Transaction = self._db if tx is None else tx
        row = reader.fetch_one("SELECT * FROM tasks WHERE id = ?", (task_id,))
        return None if row is None else _task(row)

    def list(
        self, statuses: Sequence[TaskStatus] = OPEN, *, conversation_id: int | None = None
    ) -> builtins.list[Task]:
        """Tasks with one of *statuses* (of one conversation, if given), most urgent first."""
        if not statuses:
            return []
        where = f"status IN ({', '.join('?' * len(statuses))})"
        params: builtins.list[Any] = list(statuses)
        if conversation_id is not None:
            where += " AND conversation_id = ?"
            params.append(conversation_id)
        rows = self._db.fetch_all(
            f"SELECT * FROM tasks WHERE {where} ORDER BY priority, id", params
        )
        return [_task(row) for row in rows]

    def count(self, statuses: Sequence[TaskStatus]) -> int:
        """How many tasks have one of *statuses* (none are read)."""
        if not statuses:
            return 0
        return int(
            self._db.fetch_value(
                f"SELECT count(*) FROM tasks WHERE status IN ({', '.join('?' * len(statuses))})",
                list(statuses),
            )
        )

    def due(self, now: float) -> builtins.list[Task]:
        """Active tasks whose next run is at or before *now*, the longest waiting first."""
        rows = self._db.fetch_all(
            "SELECT * FROM tasks WHERE status = 'active' AND next_run_at IS NOT NULL"
            " AND next_run_at <= ? ORDER BY next_run_at, priority, id",
            (now,),
        )
        return [_task(row) for row in rows]

    def next_due_at(self) -> float | None:
        """The earliest next run of an active task, if any is scheduled."""
        value = self._db.fetch_value(
            "SELECT min(next_run_at) FROM tasks WHERE status = 'active' AND next_run_at IS NOT NULL"
        )
        return None if value is None else float(value)

    # -- writing -----------------------------------------------------------

    def add(
        self,
        text: str,
        *,
        conversation_id: int | None,
        priority: int = DEFAULT_PRIORITY,
        schedule: Schedule | None = None,
        next_run_at: float | None = None,
        ai_prompt: str | None = None,
        tx: Transaction | None = None,
    ) -> Task:
        """A new active task (inside *tx*, a caller's transaction, if given)."""
        _check(text, priority)
        if schedule is None and next_run_at is not None:
            raise ValueError("only a scheduled task has a next run")
        kind, spec = _stored(schedule)
        now = self._clock()
        with self._db.writing(tx) as writing:
            row = writing.fetch_one(
                "INSERT INTO tasks (conversation_id, text, priority, schedule_kind,"
                " schedule_spec, ai_prompt, created_at, updated_at, next_run_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
                (conversation_id, text, priority, kind, spec, ai_prompt, now, now, next_run_at),
            )
        if row is None:  # INSERT ... RETURNING always returns the row it wrote
            raise QueryFailed("an INSERT ... RETURNING returned no row")
        return _task(row)

    def update(
        self,
        task_id: int,
        *,
        text: str | None = None,
        priority: int | None = None,
        schedule: Schedule | Keep | None = KEEP,
        next_run_at: float | Keep | None = KEEP,
        ai_prompt: str | Keep | None = KEEP,
        tx: Transaction | None = None,
    ) -> Task:
        """Change what is given (a new schedule comes with its next run; an
        *ai_prompt* of None makes a routine a plain task); a deleted task is
        not changed (restore it first).  Inside *tx* if given (a dream changes
        several tasks all or nothing)."""
        _check(text, priority)
        if isinstance(schedule, Keep) != isinstance(next_run_at, Keep):
            raise ValueError("a schedule is changed together with its next run")
        if schedule is None and next_run_at not in (None, KEEP):
            raise ValueError("only a scheduled task has a next run")
        sets = ["updated_at = ?"]
        params: builtins.list[Any] = [self._clock()]
        if text is not None:
            sets.append("text = ?")
            params.append(text)
        if priority is not None:
            sets.append("priority = ?")
            params.append(priority)
        if not isinstance(schedule, Keep):
            # A completed task keeps the schedule it is given but never runs again.
            sets.append(
                "schedule_kind = ?, schedule_spec = ?,"
                " next_run_at = CASE status WHEN 'completed' THEN NULL ELSE ? END"
            )
            params += [*_stored(schedule), next_run_at]
        if not isinstance(ai_prompt, Keep):
            sets.append("ai_prompt = ?")
            params.append(ai_prompt)
        with self._db.writing(tx) as writing:
            row = writing.fetch_one(
                f"UPDATE tasks SET {', '.join(sets)} WHERE id = ? AND status <> 'deleted'"
                " RETURNING *",
                [*params, task_id],
            )
            if row is None:
                self._refuse(writing, task_id, "changed", ("active", "paused", "completed"))
        assert row is not None  # _refuse raised
        return _task(row)

    def pause(self, task_id: int) -> Task:
        """An active task stops being shown and run until resumed."""
        return self._step(task_id, "pause")

    def resume(self, task_id: int, next_run_at: float | None) -> Task:
        """A paused task is active again, next running at *next_run_at*."""
        return self._step(task_id, "resume", next_run_at=next_run_at)

    def complete(self, task_id: int, tx: Transaction | None = None) -> Task:
        return self._step(task_id, "complete", next_run_at=None, completed=True, tx=tx)

    def delete(self, task_id: int, tx: Transaction | None = None) -> Task:
        """Soft: the task is hidden, and ``restore`` brings it back."""
        return self._step(task_id, "delete", tx=tx)

    def restore(self, task_id: int, next_run_at: float | None) -> Task:
        """A deleted task as it was (a paused one active), next running at *next_run_at*."""
        return self._step(task_id, "restore", next_run_at=next_run_at)

    def transaction(self) -> AbstractContextManager[Transaction]:
        """A transaction of the tasks' database, for a run's record and what
        the run says (a message) to commit together."""
        return self._db.transaction()

    def writing(self, tx: Transaction | None) -> AbstractContextManager[Transaction]:
        """*tx* (a caller's transaction), or a transaction of its own."""
        return self._db.writing(tx)

    def record_run(
        self,
        task_id: int,
        *,
        ran_at: float,
        next_run_at: float | None,
        due_at: float | Keep | None = KEEP,
        tx: Transaction | None = None,
    ) -> Task:
        """A scheduled task ran at *ran_at*; it runs next at *next_run_at* (None: never).

        Only an active task runs, and (given *due_at*, the next run it had
        when it was read as due) only the run that came due: one paused,
        completed, deleted or rescheduled since is ``RunOvertaken`` and
        nothing is recorded.  Checked by the write itself, so a click that
        lands between the runner's read and this write is never run over.
        """
        where = "id = ? AND schedule_kind IS NOT NULL AND status = 'active'"
        params: builtins.list[Any] = [ran_at, next_run_at, self._clock(), task_id]
        if not isinstance(due_at, Keep):
            where += " AND next_run_at IS ?"
            params.append(due_at)
        with self._db.writing(tx) as tx:
            row = tx.fetch_one(
                "UPDATE tasks SET last_run_at = ?, next_run_at = ?, updated_at = ?"
                f" WHERE {where} RETURNING *",
                params,
            )
            if row is None:
                self._refuse_run(tx, task_id)
        return _task(row)

    def check_running(self, tx: Transaction, task_id: int) -> Task:
        """The task as *tx* sees it, if it is still active (what its run
        says may still be said); ``RunOvertaken`` if the user paused,
        completed or deleted it since (or it was purged)."""
        row = tx.fetch_one("SELECT * FROM tasks WHERE id = ?", (task_id,))
        if row is None:
            raise RunOvertaken(task_id, "deleted")
        if row["status"] != "active":
            raise RunOvertaken(task_id, row["status"])
        return _task(row)

    @staticmethod
    def _refuse_run(tx: Transaction, task_id: int) -> NoReturn:
        row = tx.fetch_one("SELECT status, schedule_kind FROM tasks WHERE id = ?", (task_id,))
        if row is None:
            raise TaskNotFound(task_id)
        if row["schedule_kind"] is None:
            raise TaskStateError(f"Task #{task_id} has no schedule, so it never runs.")
        raise RunOvertaken(task_id, row["status"])

    def move_runs(self, moves: Sequence[tuple[Task, float]]) -> int:
        """Give each task (as read) its new next run, all in one transaction
        (the schedules read in another time zone); a task changed since it
        was read, or no longer to do, is left as it is.  How many moved."""
        moved = 0
        with self._db.transaction() as tx:
            for task, next_run_at in moves:
                moved += tx.execute(
                    "UPDATE tasks SET next_run_at = ?, updated_at = ? WHERE id = ?"
                    " AND status IN ('active', 'paused') AND next_run_at IS ?"
                    " AND updated_at IS ?",
                    (next_run_at, self._clock(), task.id, task.next_run_at, task.updated_at),
                ).rowcount
        return moved

    def take_back_run(self, recorded: Task, before: Task) -> bool:
        """Undo ``record_run``: the task as it was *before* the run was
        *recorded* (its run did not happen after all: the app quit while it
        waited for the model), so it is due again.  Only while the task is
        still as recorded: a change made meanwhile (an edit, a pause) stays.
        Whether it was taken back."""
        with self._db.transaction() as tx:
            taken = tx.execute(
                "UPDATE tasks SET last_run_at = ?, next_run_at = ?, updated_at = ?"
                " WHERE id = ? AND last_run_at IS ? AND next_run_at IS ? AND updated_at IS ?",
                (
                    before.last_run_at,
                    before.next_run_at,
                    before.updated_at,
                    recorded.id,
                    recorded.last_run_at,
                    recorded.next_run_at,
                    recorded.updated_at,
                ),
            ).rowcount
        return taken == 1

    def purge_completed(self, completed_before: float) -> int:
        """Delete for good the tasks completed before *completed_before*; how many went."""
        with self._db.transaction() as tx:
            return tx.execute(
                "DELETE FROM tasks WHERE status = 'completed' AND completed_at < ?",
                (completed_before,),
            ).rowcount

    def _step(
        self,
        task_id: int,
        verb: str,
        *,
        next_run_at: float | Keep | None = KEEP,
        completed: bool = False,
        tx: Transaction | None = None,
    ) -> Task:
        allowed, new_status = _STEPS[verb]
        now = self._clock()
        sets = [f"status = {new_status}", "updated_at = ?"]
        params: builtins.list[Any] = [now]
        if completed:
            sets.append("completed_at = ?")
            params.append(now)
        if not isinstance(next_run_at, Keep):
            # Only a scheduled task still to do has a next run.
            sets.append(
                "next_run_at = CASE WHEN schedule_kind IS NULL OR completed_at IS NOT NULL"
                " THEN NULL ELSE ? END"
            )
            params.append(next_run_at)
        with self._db.writing(tx) as writing:
            row = writing.fetch_one(
                f"UPDATE tasks SET {', '.join(sets)} WHERE id = ?"
                f" AND status IN ({', '.join('?' * len(allowed))}) RETURNING *",
                [*params, task_id, *allowed],
            )
            if row is None:
                self._refuse(writing, task_id, _PAST[verb], allowed)
        assert row is not None  # _refuse raised
        return _task(row)

    @staticmethod
    def state(tx: Transaction, task_id: int) -> dict[str, Any]:
        """What a dream may change of a task, as it is in *tx* (for undo)."""
        row = tx.fetch_one(f"SELECT {', '.join(_PUT_BACK)} FROM tasks WHERE id = ?", (task_id,))
        if row is None:
            raise TaskNotFound(task_id)
        return {name: row[name] for name in _PUT_BACK}

    def put_back(self, tx: Transaction, task_id: int, state: dict[str, Any]) -> None:
        """Give a task back the *state* it had (undoing a dream's change); a
        completed task put back open is reopened now (``Task.reopened_at``)."""
        assignments = ", ".join(f"{name} = ?" for name in _PUT_BACK)
        now = self._clock()
        changed = tx.execute(
            f"UPDATE tasks SET {assignments}, updated_at = ?, reopened_at = CASE"
            " WHEN status = 'completed' AND ? IN ('active', 'paused') THEN ? ELSE reopened_at END"
            " WHERE id = ?",
            [*(state[name] for name in _PUT_BACK), now, state["status"], now, task_id],
        ).rowcount
        if changed == 0:
            raise TaskNotFound(task_id)

    @staticmethod
    def _refuse(tx: Transaction, task_id: int, done: str, allowed: Sequence[TaskStatus]) -> None:
        status = tx.fetch_value("SELECT status FROM tasks WHERE id = ?", (task_id,))
        if status is None:
            raise TaskNotFound(task_id)
        raise TaskStateError(
            f"Task #{task_id} is {status}; only {' or '.join(allowed)} tasks can be {done}."
        )
