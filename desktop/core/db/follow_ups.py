"""Work owed after a commit, queued in the same transaction as what owes it.

A rewrite in place commits its rows first; what follows outside them (the
search indexes' optimize, the WAL's truncation, a file written from the
rows) comes after, and a kill or a full disk can come between.  So the
rewrite queues a ``background_jobs`` row of its kind with its rows, and the
follow-up marks it done only once it did its work: one still queued at the
next start says the work is owed.  A job of its own each time, so a
follow-up marks done only the jobs queued before it began.
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop.core.db.connection import Database, Transaction


def queue_follow_up(tx: Transaction, kind: str, now: float) -> None:
    """Say, in *tx*, that a follow-up of *kind* is owed."""
    tx.execute(
        "INSERT INTO background_jobs (kind, created_at, updated_at) VALUES (?1, ?2, ?2)",
        (kind, now),
    )


def last_owed(reads: Database | Transaction, kinds: Sequence[str]) -> int | None:
    """The newest follow-up of *kinds* still owed (its job's id), or None."""
    marks = ", ".join("?" * len(kinds))
    found = reads.fetch_value(
        f"SELECT max(id) FROM background_jobs WHERE kind IN ({marks}) AND status = 'queued'",
        tuple(kinds),
    )
    return None if found is None else int(found)


def mark_done(tx: Transaction, kinds: Sequence[str], through: int, now: float) -> None:
    """Mark the follow-ups of *kinds* owed up to the job *through* done, in
    *tx*: one queued since was not covered by the work just done."""
    marks = ", ".join("?" * len(kinds))
    tx.execute(
        "UPDATE background_jobs SET status = 'done', updated_at = ?"
        f" WHERE kind IN ({marks}) AND status = 'queued' AND id <= ?",
        (now, *kinds, through),
    )
