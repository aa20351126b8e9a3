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
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.base.paths import owner_name
from desktop.core.db.connection import SIDE_FILES
from desktop.core.db.errors import DamagedHeader, DatabaseUnavailable, unreachable

if TYPE_CHECKING:
    from desktop.core.db.connection import Database

_SQLITE_READONLY = 8
SQLITE_HEADER = b"SQLite format 3\x00"
"""What every SQLite database file begins with."""
_WRITE_VERSION_AT = 18
_WRITE_VERSIONS = (1, 2)
"""The header's file format write version: 1 with a rollback journal, 2
with a write-ahead log; SQLite opens a file with any other read-only."""


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


def unreadable(path: Path) -> DatabaseUnavailable:
    """The error for a database file this user may not even read (another
    user's, say): whose it is and its permissions."""
    found = path.stat()
    return DatabaseUnavailable(
        f"The database {path} cannot be read by this user: it belongs to "
        f"{owner_name(found.st_uid)} (permissions {stat.S_IMODE(found.st_mode):04o}), and "
        "Reverie needs to read and write it.",
        hint="Run Reverie as the user it belongs to, or give it back to yourself "
        "(its folder's other files too).",
    )


def refuse_read_only(path: Path) -> None:
    """Raise ``unreadable`` or ``read_only`` if this user may not read or
    write the database at *path* or a file SQLite keeps beside it, or (so
    SQLite can create those) write its folder."""
    for file in (path, *(path.with_name(path.name + side) for side in SIDE_FILES)):
        try:
            file.stat()
        except FileNotFoundError:
            continue
        except OSError as error:  # a folder closed to this user, a name too long
            raise unreachable(file, error) from error
        if not os.access(file, os.R_OK):
            raise unreadable(file)
        if not os.access(file, os.W_OK):
            raise read_only(file)
    if os.path.isdir(path.parent) and not os.access(path.parent, os.W_OK | os.X_OK):
        raise read_only(path.parent, folder=True)


def refuse_damaged_header(path: Path) -> None:
    """Raise ``DamagedHeader`` if the header of the database at *path* holds
    a write version no SQLite writes: SQLite would open the file read-only,
    and the user be sent to its permissions, which are fine (round 34)."""
    try:
        with path.open("rb") as file:
            header = file.read(_WRITE_VERSION_AT + 1)
    except OSError:  # none yet, or out of reach: SQLite says so
        return
    if len(header) > _WRITE_VERSION_AT and header.startswith(SQLITE_HEADER):
        version = header[_WRITE_VERSION_AT]
        if version not in _WRITE_VERSIONS:
            raise DamagedHeader(
                path, f"its header's write version is {version}, where SQLite writes 1 or 2"
            )


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
