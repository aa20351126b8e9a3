"""The clock the stores read: a callable returning unix seconds, injectable
in tests; and the time a deletion is stamped with, which a clock running
behind must not make look old (``deletion_time``)."""

from __future__ import annotations

import time
from collections.abc import Callable

from desktop.core.db.connection import Transaction

Clock = Callable[[], float]

system_clock: Clock = time.time


def deletion_time(tx: Transaction, now: float) -> float:
    """When a deletion in *tx* happens, for its restore window: *now*, or the
    newest time already stored (a memory's last change, a conversation's
    last message) if that is later.  A clock running far behind (a board
    with no clock battery that boots at an old date, before it syncs) would
    otherwise date a fresh deletion a year back, and the next start, with
    the right clock, erase it for good at once.  Both read an index."""
    newest = tx.fetch_value(
        "SELECT max(coalesce((SELECT max(updated_at) FROM memories), 0),"
        " coalesce((SELECT max(updated_at) FROM conversations WHERE deleted_at IS NULL), 0))"
    )
    return max(now, float(newest))
