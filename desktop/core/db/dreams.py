"""``DreamStore``: all the SQL of dream runs, their changes, log and pass marks.

A run moves from ``running`` to ``completed``, or stops as ``paused`` (the
user paused dreaming, or the app quit: it resumes from its checkpoint),
``cancelled`` or ``failed``.  A change is ``applied``, ``pending`` (risky:
waiting for the user's approval), ``reverted`` or ``rejected``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop.core.db.clock import Clock, system_clock
from desktop.core.db.connection import Database, Row, Transaction
from desktop.core.db.errors import RowNotFound
from desktop.core.db.rows import from_row, json_or_none, select_list
from desktop.core.privacy.redaction import redact

RAW_OUTPUT_KEPT = 4000
"""Characters of an unusable model answer kept in the dream log."""
_REDACTION_MARGIN = 400

RunStatus = Literal["queued", "running", "paused", "completed", "failed", "cancelled"]
ChangeStatus = Literal["applied", "pending", "reverted", "rejected"]
LogOutcome = Literal["applied", "nothing", "rolled_back", "tripped", "failed", "cancelled"]


@dataclass(frozen=True)
class DreamRun:
    id: int
    trigger: str
    status: RunStatus
    created_at: float
    started_at: float | None
    finished_at: float | None
    checkpoint: dict[str, Any] | None = field(hash=False)
    stats: dict[str, Any] | None = field(hash=False)
    error: str | None


@dataclass(frozen=True)
class DreamChange:
    id: int
    dream_run_id: int
    pass_name: str
    kind: str
    summary: str
    payload: dict[str, Any] = field(hash=False)
    before: dict[str, Any] | None = field(hash=False)
    after: dict[str, Any] | None = field(hash=False)
    status: ChangeStatus
    risky: bool
    note: str | None
    created_at: float
    decided_at: float | None


@dataclass(frozen=True)
class DreamLogEntry:
    id: int
    dream_run_id: int
    pass_name: str
    outcome: LogOutcome
    message: str
    raw_output: str | None
    created_at: float


def kept_raw_output(raw: str) -> str:
    """What the log keeps of an unusable model answer: its first
    ``RAW_OUTPUT_KEPT`` characters, redacted, and how long it was.

    Enough to see why it failed; an answer that ran on (a loop, megabytes)
    must not grow the database by as much, nor keep a secret it echoed.  A
    little past the cut is redacted too, so a secret straddling it is found.
    """
    if len(raw) <= RAW_OUTPUT_KEPT:
        return redact(raw).text
    head = redact(raw[: RAW_OUTPUT_KEPT + _REDACTION_MARGIN]).text[:RAW_OUTPUT_KEPT]
    return f"{head}\n[… cut: the answer was {len(raw):,} characters long]"


def _run(row: Row) -> DreamRun:
    return from_row(DreamRun, row, checkpoint=json_or_none, stats=json_or_none)


def _change(row: Row) -> DreamChange:
    return from_row(
        DreamChange,
        row,
        payload=json_or_none,
        before=json_or_none,
        after=json_or_none,
        risky=bool,
    )


def _log_entry(row: Row) -> DreamLogEntry:
    return from_row(DreamLogEntry, row)


def _select(row_type: type[Any]) -> str:
    """The columns of *row_type*, ``pass`` (a Python keyword) read as ``pass_name``."""
    return select_list(row_type, "t").replace("t.pass_name", "t.pass AS pass_name")


def _json(value: Mapping[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


class DreamStore:
    def __init__(self, database: Database, *, clock: Clock = system_clock) -> None:
        self._db = database
        self._clock = clock

    # -- runs --------------------------------------------------------------
    def start(self, trigger: str) -> DreamRun:
        now = self._clock()
        with self._db.transaction() as tx:
            run_id = tx.fetch_value(
                "INSERT INTO dream_runs (trigger, status, created_at, started_at)"
                " VALUES (?, 'running', ?, ?) RETURNING id",
                (trigger, now, now),
            )
        return self.run(run_id)

    def record_failed(self, trigger: str, error: str) -> DreamRun:
        """A dream that could not start (e.g. no safety copy), kept with its reason."""
        now = self._clock()
        with self._db.transaction() as tx:
            run_id = tx.fetch_value(
                "INSERT INTO dream_runs (trigger, status, created_at, started_at, finished_at,"
                " error) VALUES (?, 'failed', ?, ?, ?, ?) RETURNING id",
                (trigger, now, now, now, error),
            )
        return self.run(run_id)

    def resume(self, run_id: int) -> DreamRun:
        """A paused (or interrupted) run goes on from its checkpoint."""
        with self._db.transaction() as tx:
            tx.execute(
                "UPDATE dream_runs SET status = 'running', finished_at = NULL WHERE id = ?",
                (run_id,),
            )
        return self.run(run_id)

    def unfinished(self) -> DreamRun | None:
        """The newest run that stopped before the end (paused, or still
        marked running after a crash): the next dream resumes it."""
        row = self._db.fetch_one(
            f"SELECT {select_list(DreamRun, 'r')} FROM dream_runs r"
            " WHERE r.status IN ('running', 'paused') ORDER BY r.id DESC LIMIT 1"
        )
        return None if row is None else _run(row)

    def save_checkpoint(self, run_id: int, checkpoint: Mapping[str, Any]) -> None:
        with self._db.transaction() as tx:
            tx.execute(
                "UPDATE dream_runs SET checkpoint = ? WHERE id = ?", (_json(checkpoint), run_id)
            )

    def finish(
        self,
        run_id: int,
        status: RunStatus,
        stats: Mapping[str, Any] | None = None,
        error: str | None = None,
    ) -> DreamRun:
        with self._db.transaction() as tx:
            tx.execute(
                "UPDATE dream_runs SET status = ?, finished_at = ?, stats = ?, error = ?"
                " WHERE id = ?",
                (status, self._clock(), _json(stats), error, run_id),
            )
        return self.run(run_id)

    def run(self, run_id: int) -> DreamRun:
        row = self._db.fetch_one(
            f"SELECT {select_list(DreamRun, 'r')} FROM dream_runs r WHERE r.id = ?", (run_id,)
        )
        if row is None:
            raise RowNotFound("dream_runs", run_id)
        return _run(row)

    def runs(self, limit: int = 50) -> list[DreamRun]:
        """The newest runs first."""
        rows = self._db.fetch_all(
            f"SELECT {select_list(DreamRun, 'r')} FROM dream_runs r ORDER BY r.id DESC LIMIT ?",
            (limit,),
        )
        return [_run(row) for row in rows]

    def last_completed(self) -> DreamRun | None:
        """The newest dream that completed; None if none did, or if it
        started ahead of the clock (set back since: when it was is not known)."""
        row = self._db.fetch_one(
            f"SELECT {select_list(DreamRun, 'r')} FROM dream_runs r"
            " WHERE r.status = 'completed' ORDER BY r.id DESC LIMIT 1"
        )
        if row is None:
            return None
        run = _run(row)
        return None if (run.started_at or run.created_at) > self._clock() else run

    # -- changes -----------------------------------------------------------
    @staticmethod
    def add_change(
        tx: Transaction,
        run_id: int,
        pass_name: str,
        kind: str,
        summary: str,
        payload: Mapping[str, Any],
        *,
        status: ChangeStatus,
        risky: bool,
        now: float,
        before: Mapping[str, Any] | None = None,
        note: str | None = None,
    ) -> int:
        change_id: int = tx.fetch_value(
            "INSERT INTO dream_changes (dream_run_id, pass, kind, summary, payload, before,"
            " status, risky, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " RETURNING id",
            (
                run_id,
                pass_name,
                kind,
                summary,
                _json(payload),
                _json(before),
                status,
                int(risky),
                note,
                now,
            ),
        )
        return change_id

    @staticmethod
    def record_outcome(
        tx: Transaction,
        change_id: int,
        status: ChangeStatus,
        *,
        now: float,
        before: Mapping[str, Any] | None = None,
        after: Mapping[str, Any] | None = None,
        note: str | None = None,
    ) -> None:
        """A change was applied, reverted or rejected; *before*/*after* replace
        the stored rows when given."""
        tx.execute(
            "UPDATE dream_changes SET status = ?, decided_at = ?,"
            " before = coalesce(?, before), after = coalesce(?, after),"
            " note = coalesce(?, note) WHERE id = ?",
            (status, now, _json(before), _json(after), note, change_id),
        )

    def change(self, change_id: int) -> DreamChange:
        row = self._db.fetch_one(
            f"SELECT {_select(DreamChange)} FROM dream_changes t WHERE t.id = ?", (change_id,)
        )
        if row is None:
            raise RowNotFound("dream_changes", change_id)
        return _change(row)

    def changes(self, run_id: int) -> list[DreamChange]:
        rows = self._db.fetch_all(
            f"SELECT {_select(DreamChange)} FROM dream_changes t WHERE t.dream_run_id = ?"
            " ORDER BY t.id",
            (run_id,),
        )
        return [_change(row) for row in rows]

    def pending(self) -> list[DreamChange]:
        """Risky changes waiting for the user, oldest first."""
        rows = self._db.fetch_all(
            f"SELECT {_select(DreamChange)} FROM dream_changes t WHERE t.status = 'pending'"
            " ORDER BY t.id"
        )
        return [_change(row) for row in rows]

    # -- log and marks -----------------------------------------------------
    def log(
        self,
        run_id: int,
        pass_name: str,
        outcome: LogOutcome,
        message: str,
        raw_output: str | None = None,
    ) -> None:
        """A pass's outcome; *raw_output*, an answer the pass could not use, is
        kept redacted and cut to its start (see ``kept_raw_output``)."""
        kept = None if raw_output is None else kept_raw_output(raw_output)
        with self._db.transaction() as tx:
            tx.execute(
                "INSERT INTO dream_log (dream_run_id, pass, outcome, message, raw_output,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (run_id, pass_name, outcome, message, kept, self._clock()),
            )

    def log_entries(self, run_id: int) -> list[DreamLogEntry]:
        rows = self._db.fetch_all(
            f"SELECT {_select(DreamLogEntry)} FROM dream_log t WHERE t.dream_run_id = ?"
            " ORDER BY t.id",
            (run_id,),
        )
        return [_log_entry(row) for row in rows]

    def judged_through(self, pass_name: str) -> float | None:
        """Up to when this pass has judged the memories (None: never, or
        never that can be told: a mark ahead of the clock was made before the
        clock was set back, and what changed since is stamped before it, so
        the pass judges everything again rather than nothing for months)."""
        value = self._db.fetch_value(
            "SELECT judged_through FROM dream_pass_marks WHERE pass = ?", (pass_name,)
        )
        return None if value is None or value > self._clock() else float(value)

    @staticmethod
    def set_judged_through(tx: Transaction, pass_name: str, through: float, now: float) -> None:
        tx.execute(
            "INSERT INTO dream_pass_marks (pass, judged_through, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (pass) DO UPDATE SET judged_through = excluded.judged_through,"
            " updated_at = excluded.updated_at",
            (pass_name, through, now),
        )

    def now(self) -> float:
        return self._clock()
