"""Reverie's first start on an older database, in a process of its own
killed at a chosen statement (``tests.children.Statements``), for
``test_migration_kills_round36``:

    python -m tests.unit.core.db.migration_kill_child DATABASE KILL_AT

Opens *DATABASE* as the start does (``open_database``: every missing
migration applied); then prints its statement counts (with KILL_AT 0)."""

from __future__ import annotations

import sys
from pathlib import Path

from desktop.core.db import open_database
from tests.children import Statements


def main(argv: list[str]) -> None:
    path, kill_at = Path(argv[0]), argv[1]
    statements = Statements(kill_at)
    statements.install()
    open_database(path).close()
    statements.said()


if __name__ == "__main__":
    main(sys.argv[1:])
