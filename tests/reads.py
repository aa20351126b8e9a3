"""The statements a piece of work sends the database: counted, never timed,
so a read per row (N + 1 queries) shows on any machine."""

from __future__ import annotations

from collections.abc import Callable

from desktop.core.db import Database


def statements_of(work: Callable[[], object], database: Database) -> list[str]:
    """The SQL *work* ran on *database*, in order."""
    statements: list[str] = []
    database._connection.set_trace_callback(statements.append)
    try:
        work()
    finally:
        database._connection.set_trace_callback(None)
    return statements
