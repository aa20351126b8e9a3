"""Making folders readable by the user alone, whatever the process umask.

The model layer makes the folders it writes models in (a download's, a
conversion's); the application makes its own through ``desktop.core.base.files``,
which builds on this.  ``Path.mkdir(parents=True, mode=...)`` gives the mode
to the last folder only: the ones above it would take the umask's.  What is
free on a folder's disk is asked here too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

PRIVATE_FOLDER_MODE = 0o700
NEARLY_FULL_BYTES = 1 << 20
"""Free space under which a write that failed without saying why is taken
to have found its disk full: a write stopped for want of room leaves less
than this (numpy's short write raises an ``OSError`` with no errno, and
SQLite reports a WAL index it cannot grow as an I/O error)."""


def make_missing_folders(folder: Path) -> None:
    """Create *folder* and the missing folders above it, each 0700 whatever
    the umask (``mkdir`` only takes bits away from the mode it is given).
    What is there already is left as it is, a folder other programs use
    too (``~/.config``) or a file at *folder* itself (a caller that needs
    a folder there says what is in the way).  Raises ``OSError``."""
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for created in reversed(missing):
        created.mkdir(mode=PRIVATE_FOLDER_MODE, exist_ok=True)


def free_space(folder: Path) -> int | None:
    """The bytes this user may still write on *folder*'s disk; None if the
    folder cannot be looked at."""
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def nearly_full(folder: Path) -> bool:
    """Whether *folder*'s disk has less than ``NEARLY_FULL_BYTES`` free."""
    free = free_space(folder)
    return free is not None and free < NEARLY_FULL_BYTES
