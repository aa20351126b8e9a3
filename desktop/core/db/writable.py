"""Finding out, when the database is opened, that it cannot be written.

SQLite opens a file it may not write read-only without a word, and an
up-to-date database needs no write to open: the problem would show only at
the first message saved.  So ``open_database`` asks twice: before connecting,
whether the file, the files SQLite keeps beside it and their folder are
writable by this user; after migrating, by a write that is rolled back (a
read-only mount, or anything else the permission bits do not show).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.db.errors import DatabaseUnavailable

if TYPE_CHECKING:
    from desktop.core.db.connection import Database

_SQLITE_READONLY = 8
SIDE_FILES = ("-wal", "-shm", "-journal")
"""Files SQLite keeps beside the database, which it must write too."""


class _RolledBack(Exception):
    """Ends the probing transaction: its write is never kept."""


def read_only(path: Path, *, folder: bool = False) -> DatabaseUnavailable:
    """The error for a database (or its *folder*) this user cannot write."""
    if folder:
        return DatabaseUnavailable(
            f"The folder {path} is read-only: Reverie needs to write its database and the "
            "files SQLite keeps beside it there.",
            hint="Check its permissions (and that its disk is not mounted read-only).",
        )
    return DatabaseUnavailable(
        f"The database {path} is read-only: Reverie needs to write to it.",
        hint="Check its permissions (and that its disk is not mounted read-only).",
    )


def refuse_read_only(path: Path) -> None:
    """Raise ``read_only`` if this user may not write the database at *path*,
    a file SQLite keeps beside it, or (so SQLite can create those) its folder."""
    for file in (path, *(path.with_name(path.name + side) for side in SIDE_FILES)):
        if file.exists() and not os.access(file, os.W_OK):
            raise read_only(file)
    if path.parent.is_dir() and not os.access(path.parent, os.W_OK | os.X_OK):
        raise read_only(path.parent, folder=True)


def probe_write(database: Database) -> None:
    """Raise ``read_only`` unless a write to *database* goes through; the
    write (its own version number, unchanged) is rolled back."""
    try:
        with database.transaction() as transaction:
            version = int(transaction.fetch_value("PRAGMA user_version"))
            transaction.execute(f"PRAGMA user_version = {version}")
            raise _RolledBack
    except _RolledBack:
        return
    except DatabaseUnavailable as error:
        if _is_read_only(error.__cause__):
            raise read_only(database.path) from error
        raise


def _is_read_only(cause: BaseException | None) -> bool:
    code = getattr(cause, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF == _SQLITE_READONLY  # the low byte is the primary code
    return "readonly" in str(cause)  # drivers without error codes
