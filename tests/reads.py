"""The statements a piece of work sends the database: counted, never timed,
so a read per row (N + 1 queries) shows on any machine."""

from __future__ import annotations

from collections.abc import Callable

from desktop.core.db import Database
from desktop.core.db.connection import Params, Row


def statements_of(work: Callable[[], object], database: Database) -> list[str]:
    """The SQL *work* ran on *database*, in order."""
    statements: list[str] = []
    database._connection.set_trace_callback(statements.append)
    try:
        work()
    finally:
        database._connection.set_trace_callback(None)
    return statements


def rows_read_by(work: Callable[[], object], database: Database) -> int:
    """How many rows *work* read from *database* (its queries' results, all told)."""
    read = database._fetch
    rows = 0

    def counted(sql: str, params: Params, *, one: bool) -> list[Row]:
        nonlocal rows
        found = read(sql, params, one=one)
        rows += len(found)
        return found

    database._fetch = counted  # type: ignore[method-assign]  # this database's reads alone, for *work*
    try:
        work()
    finally:
        del database._fetch
    return rows


def steps_of(work: Callable[[], object], database: Database) -> int:
    """About how many SQLite virtual-machine steps *work* took on *database*
    (in hundreds): what a scan of an index costs, which the rows a query
    returns do not show (a count of 50,000 rows returns one)."""
    steps = 0

    def step() -> int:
        nonlocal steps
        steps += 1
        return 0  # go on

    database._connection.set_progress_handler(step, 100)
    try:
        work()
    finally:
        database._connection.set_progress_handler(None, 0)
    return steps
