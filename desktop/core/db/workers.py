"""``WorkerStore``: all the SQL of ``workers``, ``worker_dependencies`` and
``worker_messages`` (migration 10).

Every step of a worker is one short transaction guarded by the state it
starts from (``UPDATE ... WHERE state = ...``, then the row count): a final
state (completed, failed, cancelled) never changes, a worker is claimed by
one runner only, and a report is taken once.  The rules of when a step is
taken (the DAG, time-outs, profiles) are ``desktop.core.workers``'; this
store only keeps what they decided.  Times are unix seconds.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Literal, get_args

from desktop.core.db.clock import Clock, system_clock
from desktop.core.db.connection import Database, Row, Transaction

WorkerState = Literal[
    "waiting_deps", "waiting_time", "running", "continuing", "completed", "failed", "cancelled"
]
WorkerMode = Literal["minimal", "full", "base_only", "none"]
WorkerRole = Literal["user", "assistant", "tool"]
FinalState = Literal["completed", "failed", "cancelled"]
FINAL: tuple[FinalState, ...] = get_args(FinalState)
WAITING: tuple[WorkerState, ...] = ("waiting_deps", "waiting_time")
MODES: tuple[WorkerMode, ...] = get_args(WorkerMode)


@dataclass(frozen=True)
class NewWorker:
    """A worker as its spawner asked for it, every rule already applied."""

    conversation_id: int
    """The root conversation: where what it finds is reported."""
    objective: str
    mode: WorkerMode
    tools: tuple[str, ...]
    max_tool_calls: int
    timeout_s: float
    depends_on: tuple[int, ...] = ()
    parent_id: int | None = None
    depth: int = 1
    profile: str | None = None
    not_before: float | None = None
    off_record: bool = False
    asked_in: int | None = None
    """The user's message whose turn spawned it (its parent's, for a sub-worker)."""


@dataclass(frozen=True)
class Worker:
    id: int
    parent_id: int | None
    """The worker that spawned it; None when a conversation did."""
    conversation_id: int
    depth: int
    objective: str
    mode: WorkerMode
    profile: str | None
    tools: tuple[str, ...]
    max_tool_calls: int
    state: WorkerState
    not_before: float | None
    timeout_s: float
    time_used: float
    """Its own running time, not the time it waited for the user."""
    continuation_of: int | None
    """The first hop of its chain when it continues a worker that timed out."""
    continuations: int
    retry_of: int | None
    runner: str | None
    result: str | None
    failure: str | None
    created_at: float
    started_at: float | None
    ended_at: float | None
    off_record: bool
    reported: bool
    asked_in: int | None
    """The user's message whose words its memory and task writes rest on;
    None when there is none (spawned by no message of the user's, or erased)."""

    @property
    def final(self) -> bool:
        return self.state in FINAL

    @property
    def head(self) -> int:
        """The id of its chain's first hop (the one its spawner knows)."""
        return self.continuation_of or self.id


@dataclass(frozen=True)
class WorkerMessage:
    id: int
    worker_id: int
    role: WorkerRole
    content: str
    created_at: float


def _worker(row: Row) -> Worker:
    return Worker(
        id=row["id"],
        parent_id=row["parent_id"],
        conversation_id=row["conversation_id"],
        depth=row["depth"],
        objective=row["objective"],
        mode=row["mode"],
        profile=row["profile"],
        tools=tuple(json.loads(row["tools"])),
        max_tool_calls=row["max_tool_calls"],
        state=row["state"],
        not_before=row["not_before"],
        timeout_s=row["timeout_s"],
        time_used=row["time_used"],
        continuation_of=row["continuation_of"],
        continuations=row["continuations"],
        retry_of=row["retry_of"],
        runner=row["runner"],
        result=row["result"],
        failure=row["failure"],
        created_at=row["created_at"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        off_record=bool(row["off_record"]),
        reported=bool(row["reported"]),
        asked_in=row["asked_in"],
    )


def _marks(count: int) -> str:
    return ", ".join("?" * count)


_FINAL_SQL = "('completed', 'failed', 'cancelled')"
_COPIED = (
    "parent_id, conversation_id, depth, objective, mode, profile, tools, max_tool_calls,"
    " timeout_s, off_record, asked_in"
)
"""What a continuation or a retry keeps of the worker it follows."""


class WorkerStore:
    """Workers, the workers each waits on, and each one's transcript."""

    def __init__(self, database: Database, *, clock: Clock = system_clock) -> None:
        self._db = database
        self._clock = clock

    def transaction(self) -> AbstractContextManager[Transaction]:
        return self._db.transaction()

    def _reader(self, tx: Transaction | None) -> Database | Transaction:
        return self._db if tx is None else tx

    # -- reading -----------------------------------------------------------

    def get(self, worker_id: int, tx: Transaction | None = None) -> Worker | None:
        row = self._reader(tx).fetch_one("SELECT * FROM workers WHERE id = ?", (worker_id,))
        return None if row is None else _worker(row)

    def is_running(self, worker_id: int, tx: Transaction | None = None) -> bool:
        """Whether *worker_id* is running (not cancelled, ended or gone meanwhile)."""
        state = self._reader(tx).fetch_value("SELECT state FROM workers WHERE id = ?", (worker_id,))
        return bool(state == "running")

    def list(self, conversation_id: int | None = None) -> builtins.list[Worker]:
        """Every worker (of one conversation, if given), oldest first."""
        if conversation_id is None:
            rows = self._db.fetch_all("SELECT * FROM workers ORDER BY id")
        else:
            rows = self._db.fetch_all(
                "SELECT * FROM workers WHERE conversation_id = ? ORDER BY id", (conversation_id,)
            )
        return [_worker(row) for row in rows]

    def existing(
        self, ids: Iterable[int], conversation_id: int, tx: Transaction | None = None
    ) -> set[int]:
        """Those of *ids* that name a worker of *conversation_id*."""
        wanted = sorted(set(ids))
        if not wanted:
            return set()
        rows = self._reader(tx).fetch_all(
            f"SELECT id FROM workers WHERE id IN ({_marks(len(wanted))}) AND conversation_id = ?",
            [*wanted, conversation_id],
        )
        return {int(row[0]) for row in rows}

    def spawned_by(
        self, conversation_id: int, parent_id: int | None, tx: Transaction | None = None
    ) -> builtins.list[int]:
        """The first hops of the workers a spawner (a conversation, or a
        worker) spawned so far, oldest first; one that was retried is
        replaced by its retry (which is in the list itself)."""
        # The retried, gathered once (a retry keeps its conversation): asked
        # of each worker, with no index on retry_of, every spawn read the
        # conversation's workers once per worker, in its write.
        rows = self._reader(tx).fetch_all(
            "SELECT id FROM workers WHERE conversation_id = ? AND parent_id IS ?"
            " AND continuation_of IS NULL AND id NOT IN (SELECT retry_of FROM workers"
            "  WHERE conversation_id = ? AND retry_of IS NOT NULL) ORDER BY id",
            (conversation_id, parent_id, conversation_id),
        )
        return [int(row[0]) for row in rows]

    def never_completing(
        self, ids: Iterable[int], tx: Transaction | None = None
    ) -> builtins.list[Worker]:
        """Those of *ids* that failed or were cancelled, oldest first: a
        worker waiting on one of them could never start."""
        wanted = sorted(set(ids))
        if not wanted:
            return []
        rows = self._reader(tx).fetch_all(
            f"SELECT * FROM workers WHERE id IN ({_marks(len(wanted))})"
            " AND state IN ('failed', 'cancelled') ORDER BY id",
            wanted,
        )
        return [_worker(row) for row in rows]

    def dependencies(self, worker_id: int, tx: Transaction | None = None) -> builtins.list[Worker]:
        rows = self._reader(tx).fetch_all(
            "SELECT w.* FROM worker_dependencies d JOIN workers w ON w.id = d.depends_on"
            " WHERE d.worker_id = ? ORDER BY w.id",
            (worker_id,),
        )
        return [_worker(row) for row in rows]

    def waits_on(self, tx: Transaction | None = None) -> dict[int, builtins.list[int]]:
        """The ids each worker waits (or waited) on, smallest first, of every
        worker at once: a listing reads them in one query, not one a row."""
        rows = self._reader(tx).fetch_all(
            "SELECT worker_id, depends_on FROM worker_dependencies ORDER BY worker_id, depends_on"
        )
        found: dict[int, builtins.list[int]] = {}
        for row in rows:
            found.setdefault(int(row[0]), []).append(int(row[1]))
        return found

    def edges(self, tx: Transaction | None = None) -> builtins.list[tuple[int, int]]:
        """Every (worker, what it depends on) pair, and every (worker, a
        worker it spawned) pair: what must end before what."""
        rows = self._reader(tx).fetch_all(
            "SELECT worker_id, depends_on FROM worker_dependencies UNION ALL"
            " SELECT parent_id, id FROM workers WHERE parent_id IS NOT NULL"
            " AND continuation_of IS NULL"
        )
        return [(int(row[0]), int(row[1])) for row in rows]

    def children(self, parent_id: int, tx: Transaction | None = None) -> builtins.list[Worker]:
        """The first hops of the workers *parent_id* spawned."""
        rows = self._reader(tx).fetch_all(
            "SELECT * FROM workers WHERE parent_id = ? AND continuation_of IS NULL ORDER BY id",
            (parent_id,),
        )
        return [_worker(row) for row in rows]

    def newest_retry(self, worker_id: int, tx: Transaction | None = None) -> int:
        """The newest retry of *worker_id* (of its retries, transitively); itself if none."""
        value = self._reader(tx).fetch_value(
            "WITH RECURSIVE retries(id) AS (SELECT ? UNION"
            " SELECT w.id FROM workers w JOIN retries r ON w.retry_of = r.id)"
            " SELECT max(id) FROM retries",
            (worker_id,),
        )
        return int(value)

    def chain(self, head_id: int, tx: Transaction | None = None) -> builtins.list[Worker]:
        """Every hop of the chain *head_id* begins, in order."""
        rows = self._reader(tx).fetch_all(
            "SELECT * FROM workers WHERE id = ? OR continuation_of = ? ORDER BY id",
            (head_id, head_id),
        )
        return [_worker(row) for row in rows]

    def messages(self, worker_id: int) -> builtins.list[WorkerMessage]:
        rows = self._db.fetch_all(
            "SELECT * FROM worker_messages WHERE worker_id = ? ORDER BY id", (worker_id,)
        )
        return [
            WorkerMessage(r["id"], r["worker_id"], r["role"], r["content"], r["created_at"])
            for r in rows
        ]

    def ready(self, now: float, runner: str) -> builtins.list[int]:
        """Workers to run now: those whose dependencies completed and whose
        time came, and those a runner other than *runner* (a process that
        ended) left running."""
        rows = self._db.fetch_all(
            "SELECT id FROM workers WHERE (state = 'waiting_time' AND coalesce(not_before, 0) <= ?)"
            " OR (state = 'running' AND runner IS NOT ?) ORDER BY id",
            (now, runner),
        )
        return [int(row[0]) for row in rows]

    def next_wake(self, now: float) -> float | None:
        """The earliest time gate still closed at *now*."""
        value = self._db.fetch_value(
            "SELECT min(not_before) FROM workers WHERE state = 'waiting_time' AND not_before > ?",
            (now,),
        )
        return None if value is None else float(value)

    # -- writing -----------------------------------------------------------

    def add(self, new: NewWorker, tx: Transaction) -> int:
        """Store *new*, waiting on its dependencies (``settle`` moves it on)."""
        state: WorkerState = "waiting_deps" if new.depends_on else "waiting_time"
        worker_id = tx.fetch_value(
            "INSERT INTO workers (parent_id, conversation_id, depth, objective, mode, profile,"
            " tools, max_tool_calls, state, not_before, timeout_s, created_at, off_record,"
            " asked_in) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                new.parent_id,
                new.conversation_id,
                new.depth,
                new.objective,
                new.mode,
                new.profile,
                json.dumps(list(new.tools)),
                new.max_tool_calls,
                state,
                new.not_before,
                new.timeout_s,
                self._clock(),
                int(new.off_record),
                new.asked_in,
            ),
        )
        self._depend(tx, int(worker_id), new.depends_on)
        return int(worker_id)

    def _depend(self, tx: Transaction, worker_id: int, depends_on: Sequence[int]) -> None:
        for dependency in sorted(set(depends_on)):
            tx.execute(
                "INSERT INTO worker_dependencies (worker_id, depends_on) VALUES (?, ?)",
                (worker_id, dependency),
            )

    def retry(self, worker_id: int, depends_on: Sequence[int], tx: Transaction) -> int:
        """A new worker with every parameter of *worker_id*, waiting on *depends_on*."""
        state = "waiting_deps" if depends_on else "waiting_time"
        new_id = tx.fetch_value(
            f"INSERT INTO workers ({_COPIED}, state, not_before, retry_of, created_at)"
            f" SELECT {_COPIED}, ?, not_before, id, ? FROM workers WHERE id = ? RETURNING id",
            (state, self._clock(), worker_id),
        )
        self._depend(tx, int(new_id), depends_on)
        return int(new_id)

    def claim(self, worker_id: int, runner: str, now: float) -> Worker | None:
        """Take *worker_id* to run as *runner*: a worker whose time came, or
        one another runner left running.  None if it is not to run (taken,
        ended, or waiting still): each is run by one runner at a time."""
        with self._db.transaction() as tx:
            taken = tx.execute(
                "UPDATE workers SET state = 'running', runner = ?,"
                " started_at = coalesce(started_at, ?) WHERE id = ?"
                " AND ((state = 'waiting_time' AND coalesce(not_before, 0) <= ?)"
                " OR (state = 'running' AND runner IS NOT ?))",
                (runner, now, worker_id, now, runner),
            )
            return self.get(worker_id, tx) if taken.rowcount == 1 else None

    def release(self, worker_id: int, runner: str) -> None:
        """Let *worker_id*, which *runner* took, be taken again (by this
        runner too): its run stopped on a problem that may pass."""
        with self._db.transaction() as tx:
            tx.execute(
                "UPDATE workers SET runner = NULL"
                " WHERE id = ? AND state = 'running' AND runner = ?",
                (worker_id, runner),
            )

    def add_message(
        self, worker_id: int, role: WorkerRole, content: str, tx: Transaction | None = None
    ) -> None:
        """Append to *worker_id*'s transcript (in *tx*, if given)."""
        with self._db.writing(tx) as writing:
            writing.execute(
                "INSERT INTO worker_messages (worker_id, role, content, created_at)"
                " VALUES (?, ?, ?, ?)",
                (worker_id, role, content, self._clock()),
            )

    def add_time(self, worker_id: int, seconds: float) -> float:
        """Count *seconds* more of its own running time; the total."""
        with self._db.transaction() as tx:
            return float(
                tx.fetch_value(
                    "UPDATE workers SET time_used = time_used + ? WHERE id = ? RETURNING time_used",
                    (max(0.0, seconds), worker_id),
                )
            )

    def finish(
        self,
        worker_id: int,
        state: FinalState,
        text: str,
        tx: Transaction,
        *,
        from_states: Sequence[WorkerState] = ("running",),
    ) -> bool:
        """End *worker_id* in *state* with *text* (its result, or why it did
        not finish), and every hop of its chain waiting on it; False if it
        was not in one of *from_states* (ended meanwhile): nothing changed."""
        column = "result" if state == "completed" else "failure"
        ended = tx.execute(
            f"UPDATE workers SET state = ?, {column} = ?, ended_at = ?"
            f" WHERE id = ? AND state IN ({_marks(len(from_states))})",
            (state, text, self._clock(), worker_id, *from_states),
        )
        if ended.rowcount != 1:
            return False
        head = tx.fetch_value(
            "SELECT coalesce(continuation_of, id) FROM workers WHERE id = ?", (worker_id,)
        )
        tx.execute(
            f"UPDATE workers SET state = ?, {column} = ?, ended_at = ?"
            " WHERE (id = ? OR continuation_of = ?) AND state = 'continuing'",
            (state, text, self._clock(), head, head),
        )
        return True

    def continue_chain(self, worker_id: int, tx: Transaction) -> int | None:
        """Set a timed-out running worker aside as ``continuing`` and add
        the next hop of its chain, with every parameter of it and a copy of
        its messages, ready at once; None if it was not running."""
        moved = tx.execute(
            "UPDATE workers SET state = 'continuing', ended_at = ?"
            " WHERE id = ? AND state = 'running'",
            (self._clock(), worker_id),
        )
        if moved.rowcount != 1:
            return None
        new_id = int(
            tx.fetch_value(
                f"INSERT INTO workers ({_COPIED}, state, continuation_of, continuations,"
                " created_at)"
                f" SELECT {_COPIED}, 'waiting_time', coalesce(continuation_of, id),"
                " continuations + 1, ? FROM workers WHERE id = ? RETURNING id",
                (self._clock(), worker_id),
            )
        )
        tx.execute(
            "INSERT INTO worker_messages (worker_id, role, content, created_at)"
            " SELECT ?, role, content, created_at FROM worker_messages WHERE worker_id = ?"
            " ORDER BY id",
            (new_id, worker_id),
        )
        return new_id

    def settle(self, tx: Transaction) -> tuple[builtins.list[int], builtins.list[int]]:
        """Move waiting workers on after an end: every worker waiting on one
        that failed or was cancelled fails, with the reason, and so do its
        own dependents, transitively; one whose dependencies all completed
        waits for its time only.  The ids (failed, now waiting for time).

        A reason names the worker waited on and the first failure behind
        it, never the reasons between: nested whole, a chain of 1,000
        workers wrote reasons as long as the chain, 15 MB together, each
        reported to the chat."""
        failed: builtins.list[int] = []
        first_failure: dict[int, str] = {}
        """Of each worker failed here, the failure it waited behind."""
        while True:
            rows = tx.fetch_all(
                "SELECT d.worker_id, min(d.depends_on) AS cause, c.state, c.failure"
                " FROM worker_dependencies d JOIN workers w ON w.id = d.worker_id"
                " JOIN workers c ON c.id = d.depends_on"
                " WHERE w.state = 'waiting_deps' AND c.state IN ('failed', 'cancelled')"
                " GROUP BY d.worker_id ORDER BY d.worker_id"
            )
            if not rows:
                break
            for row in rows:
                worker_id, cause = int(row[0]), int(row["cause"])
                why = "it was cancelled" if row["state"] == "cancelled" else row["failure"]
                reason = f"worker #{cause} did not finish: {first_failure.get(cause, why)}"
                first_failure[worker_id] = first_failure.get(cause, reason)
                tx.execute(
                    "UPDATE workers SET state = 'failed', failure = ?, ended_at = ?"
                    " WHERE id = ? AND state = 'waiting_deps'",
                    (reason, self._clock(), worker_id),
                )
                failed.append(worker_id)
        rows = tx.fetch_all(
            "UPDATE workers SET state = 'waiting_time' WHERE state = 'waiting_deps' AND NOT EXISTS"
            " (SELECT 1 FROM worker_dependencies d JOIN workers c ON c.id = d.depends_on"
            "  WHERE d.worker_id = workers.id AND c.state != 'completed') RETURNING id"
        )
        return failed, sorted(int(row[0]) for row in rows)

    def cancel(self, worker_id: int, tx: Transaction) -> builtins.list[int]:
        """Cancel *worker_id*'s whole chain and the workers it spawned, as
        far as they have not ended; the ids cancelled."""
        head = tx.fetch_value(
            "SELECT coalesce(continuation_of, id) FROM workers WHERE id = ?", (worker_id,)
        )
        if head is None:
            return []
        rows = tx.fetch_all(
            "WITH RECURSIVE doomed(id) AS ("
            "  SELECT id FROM workers WHERE id = ? OR continuation_of = ?"
            "  UNION SELECT w.id FROM workers w JOIN doomed ON w.parent_id = doomed.id"
            "  UNION SELECT w.id FROM workers w JOIN doomed ON w.continuation_of = doomed.id)"
            " UPDATE workers SET state = 'cancelled', failure = 'cancelled', ended_at = ?"
            f" WHERE id IN (SELECT id FROM doomed) AND state NOT IN {_FINAL_SQL} RETURNING id",
            (head, head, self._clock()),
        )
        return sorted(int(row[0]) for row in rows)

    def cancel_conversation(
        self, conversation_id: int, reason: str, tx: Transaction
    ) -> builtins.list[int]:
        """Cancel every worker of *conversation_id* that has not ended, for
        *reason*, with nothing to report (the ids cancelled)."""
        rows = tx.fetch_all(
            "UPDATE workers SET state = 'cancelled', failure = ?, ended_at = ?, reported = 1"
            f" WHERE conversation_id = ? AND state NOT IN {_FINAL_SQL} RETURNING id",
            (reason, self._clock(), conversation_id),
        )
        return sorted(int(row[0]) for row in rows)

    def take_report(self, worker_id: int, tx: Transaction) -> bool:
        """Mark an ended worker's report as made; True for the one caller that did."""
        taken = tx.execute(
            "UPDATE workers SET reported = 1 WHERE id = ? AND reported = 0"
            f" AND state IN {_FINAL_SQL}",
            (worker_id,),
        )
        return taken.rowcount == 1

    def take_children_report(self, parent_id: int, tx: Transaction) -> builtins.list[Worker]:
        """The children of *parent_id* not reported yet, marked reported,
        once every child has ended; [] before that and for every later caller."""
        open_children = tx.fetch_value(
            "SELECT count(*) FROM workers WHERE parent_id = ? AND continuation_of IS NULL"
            f" AND state NOT IN {_FINAL_SQL}",
            (parent_id,),
        )
        if open_children:
            return []
        rows = tx.fetch_all(
            "UPDATE workers SET reported = 1 WHERE parent_id = ? AND continuation_of IS NULL"
            " AND reported = 0 RETURNING *",
            (parent_id,),
        )
        return sorted((_worker(row) for row in rows), key=lambda w: w.id)

    def unreported(self) -> builtins.list[Worker]:
        """Ended first hops whose report was not taken (an end a process did
        not live to report)."""
        rows = self._db.fetch_all(
            f"SELECT * FROM workers WHERE reported = 0 AND state IN {_FINAL_SQL}"
            " AND continuation_of IS NULL ORDER BY id"
        )
        return [_worker(row) for row in rows]

    # -- privacy -------------------------------------------------------------

    def rewrite_holding(
        self, holding: Sequence[str], rewrite: Callable[[str], str], tx: Transaction
    ) -> int:
        """Give every worker's objective, result and failure, and every
        message of every transcript, holding one of *holding* (a value the
        user named a secret after a worker was given it, or quoted it from a
        memory), what *rewrite* makes of it, in *tx*, a caller's
        transaction; a value written escaped (a tool's JSON result) is
        rewritten escaped.  Every worker, not one conversation's: a
        transcript may quote a memory from anywhere.  How many rows changed.
        The old words stay in the WAL until the caller empties it
        (``ConversationStore.rewrote``)."""
        if not holding:
            return 0
        needles = list(dict.fromkeys(n for v in holding for n in (v, json.dumps(v)[1:-1])))
        escaped = {
            json.dumps(v)[1:-1]: json.dumps(rewrite(v))[1:-1]
            for v in holding
            if json.dumps(v)[1:-1] != v
        }

        def rewritten(text: str) -> str:
            text = rewrite(text)
            for form, replacement in escaped.items():
                text = text.replace(form, replacement)
            return text

        changed = 0
        for table, columns in (
            ("workers", ("objective", "result", "failure")),
            ("worker_messages", ("content",)),
        ):
            found = " OR ".join(
                f"instr(coalesce({column}, ''), ?)" for column in columns for _ in needles
            )
            rows = tx.fetch_all(
                f"SELECT id, {', '.join(columns)} FROM {table} WHERE {found}",
                [needle for _ in columns for needle in needles],
            )
            for row in rows:
                values = [None if row[n] is None else rewritten(row[n]) for n in range(1, len(row))]
                sets = ", ".join(f"{column} = ?" for column in columns)
                tx.execute(f"UPDATE {table} SET {sets} WHERE id = ?", (*values, row[0]))
                changed += 1
        return changed
