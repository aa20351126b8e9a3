"""Safety copies in a loop, in a process of its own, for the kill test:
``python -m tests.unit.core.dreaming.snapshot_child DATABASE FOLDER FIRST``.

Prints ``copied <n>`` after each whole copy (named from *FIRST* on, so later
children's copies sort after earlier ones) until it is killed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from desktop.core.db import open_database
from desktop.core.dreaming.snapshots import take_snapshot


def main(database_path: str, folder: str, first: str) -> None:
    skills = Path(database_path).parent / "skills"
    with open_database(Path(database_path)) as database:
        for n in range(int(first), int(first) + 1000):
            take_snapshot(database, Path(folder), f"{n:08d}", skills_dir=skills, keep=3)
            print(f"copied {n}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
