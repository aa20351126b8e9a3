"""The purge after the restore window, or "Delete now", in a process of its
own, for the kill test (``test_purge_kills_round31``):
    python -m tests.unit.core.dreaming.purge_child HOME KILL_AT [CONVERSATION]

Over HOME's database, snapshots and ``MEMORIES.md``, it erases what was
deleted more than the window ago, its clock ``LATER`` ahead, as the app's
start does; given CONVERSATION, it erases that one now instead.  With
KILL_AT the process kills itself (SIGKILL) just before, or just after
(``"N+"``), its KILL_AT-th SQL statement (``Statements``); at the end it
prints its statements.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from desktop.core.db import Database, open_database
from desktop.core.dreaming.erasure import Eraser
from tests.children import Statements
from tests.unit.core.dreaming.test_erase_resume import eraser_over

LATER = 31 * 86_400.0
"""How far the clock is moved: past the 30-day restore window."""


def eraser_of(database: Database, home: Path, ahead: float = LATER) -> Eraser:
    """The eraser the app builds over *home*, its clock *ahead*."""
    return eraser_over(database, home, clock=lambda: time.time() + ahead)


def main(home: Path, kill_at: str, conversation: str | None) -> None:
    statements = Statements(kill_at)
    statements.install()
    with open_database(home / "reverie.sqlite3") as database:
        eraser = eraser_of(database, home)
        if conversation is None:
            eraser.erase_expired()
        else:
            eraser.erase_conversations([int(conversation)])
    statements.said()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
