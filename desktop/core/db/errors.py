"""Typed errors of the database layer, and the translation from SQLite's.

Every SQLite error is translated here, at the boundary, so nothing above
``desktop.core.db`` ever sees a driver exception (there are several drivers,
each with its own exception classes).  Problems the user can fix are
``EnvironmentProblem``; anything else is ``QueryFailed``, which means a bug.
"""

from __future__ import annotations

import os
from pathlib import Path

from desktop.core.base.errors import EnvironmentProblem, ReverieError
from desktop.core.base.files import kind_in_the_way
from desktop.core.base.paths import explain
from desktop.core.base.text import size_text
from models.folders import NEARLY_FULL_BYTES, free_space, nearly_full

# SQLite's primary result codes (https://www.sqlite.org/rescode.html).
_SQLITE_ERROR = 1
_SQLITE_PERM = 3
_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6
_SQLITE_READONLY = 8
_SQLITE_IOERR = 10
_SQLITE_CORRUPT = 11
_SQLITE_FULL = 13
_SQLITE_CANTOPEN = 14
_SQLITE_NOTADB = 26

# Drivers without ``sqlite_errorcode`` (older pysqlite3 builds) only give the
# message, which SQLite words the same way in every version.
_CODE_BY_MESSAGE = {
    "database or disk is full": _SQLITE_FULL,
    "file is not a database": _SQLITE_NOTADB,
    "database disk image is malformed": _SQLITE_CORRUPT,
    "unable to open database file": _SQLITE_CANTOPEN,
    "database is locked": _SQLITE_BUSY,
    "database table is locked": _SQLITE_LOCKED,
    "disk i/o error": _SQLITE_IOERR,
    "attempt to write a readonly database": _SQLITE_READONLY,
    "access permission denied": _SQLITE_PERM,
    "unsupported file format": _SQLITE_CORRUPT,
}

_DAMAGE_UNDER_THE_GENERIC_CODE = "unsupported file format"
"""What SQLite says, under its generic code, of a file whose header holds a
schema format number no SQLite writes (a byte of page 1 overwritten): damage
as much as a page it cannot read, so the way back to a sound copy is offered
(round 34: it was taken for a bug, and the start ended in a traceback)."""

_UNAVAILABLE_REASONS = {
    _SQLITE_PERM: "permission was denied",
    _SQLITE_READONLY: "the file is read-only",
    _SQLITE_IOERR: "reading or writing the disk failed",
    _SQLITE_CORRUPT: "the file is damaged",
    _SQLITE_CANTOPEN: "the file cannot be opened",
    _SQLITE_NOTADB: "the file is not a database",
}


class DatabaseUnavailable(EnvironmentProblem):
    """The database cannot be opened or used: unreadable, not a database, damaged."""

    brief = (
        "Reverie's database cannot be used (unreadable, read-only or damaged); nothing "
        "was changed, and the user was shown what to do"
    )


class Damaged(DatabaseUnavailable):
    """Damage SQLite's own checks found (*found*) in a file it opens: the
    way back is that of any other damage (``is_damage``)."""

    def __init__(self, path: Path, found: str) -> None:
        super().__init__(
            f"Reverie cannot use its database {path}: it is damaged ({found}). "
            "Nothing was changed.",
            hint="Keep it where it is for now: Reverie names the newest sound copy it "
            "kept before a dream, or restore it from a backup.",
        )
        self.found = found


class DamagedHeader(Damaged):
    """The database header holds what no SQLite writes, though SQLite opens
    the file (read-only)."""


class DatabaseTooNew(EnvironmentProblem):
    """The database was written by a newer Reverie; this one refuses to touch it."""

    brief = "Reverie's database was written by a newer Reverie; nothing was changed"


class DiskFull(EnvironmentProblem):
    """A write failed for lack of space; it was rolled back as a whole."""

    brief = (
        "the disk holding Reverie's data is full: nothing was saved, and the user "
        "was asked to free some disk space"
    )


class DatabaseBusy(EnvironmentProblem):
    """Another program held the database locked for longer than the busy timeout."""

    brief = "Reverie's database is locked by another program; nothing was saved"


class QueryFailed(ReverieError):
    """SQLite rejected a statement for a reason the user cannot fix: a bug."""

    brief = "Reverie's database refused the change (a bug in Reverie); nothing was saved"


class MigrationFailed(ReverieError):
    """A schema migration failed; its transaction was rolled back."""


class UnusableVector(ReverieError):
    """An embedding cannot be stored: not one row of whole bytes of sign bits.

    Its length is its model's (vectors of several models may be stored; a
    search only ever compares those of one), but the sign bits of the fast
    first pass need a positive multiple of 8 dimensions.
    """

    def __init__(self, dimensions: int) -> None:
        super().__init__(f"an embedding has a positive multiple of 8 dimensions, not {dimensions}")
        self.dimensions = dimensions


class ChangedMeanwhile(ReverieError):
    """A change made from what was read is refused: what it was made from
    changed since (another writer went first)."""


class RowNotFound(ReverieError):
    """A store was asked to change a row that does not exist."""

    def __init__(self, table: str, row_id: int) -> None:
        super().__init__(f"{table} has no row with id {row_id}")
        self.table = table
        self.row_id = row_id


def unavailable(path: Path, reason: str) -> DatabaseUnavailable:
    """The error for a database file Reverie cannot use; nothing was changed."""
    return DatabaseUnavailable(
        f"Reverie cannot use its database {path}: {reason}. Nothing was changed.",
        hint=(
            "Check that the file and its folder exist and are readable and writable. "
            "If it is damaged, keep it where it is for now: Reverie checks it and names "
            "the newest sound copy it kept before a dream, or restore it from a backup."
        ),
    )


def disk_full(path: Path) -> DiskFull:
    """The error for a write to the database at *path* that found its disk
    full: the folder and what is free there named, and the file said to be
    whole (a user told it may be damaged would move it aside, and start
    with an empty memory)."""
    folder = _folder_of(path)
    free = free_space(folder)
    left = "" if free is None else f" ({size_text(free)} free in {folder})"
    hint = "Free some disk space and try again."
    if free is not None and free >= NEARLY_FULL_BYTES:
        # Room for small writes, not for this one; or the full disk is the one
        # SQLite writes its temporary files to (a VACUUM's, a large sort's).
        hint = "Free some disk space there, or in the system's temporary folder, and try again."
    return DiskFull(
        f"The disk holding {path} is full{left}: what was being written was not saved, "
        "and nothing already saved was lost. The database itself is not damaged.",
        hint=hint,
    )


def _folder_of(path: Path) -> Path:
    """Where SQLite writes the files beside the database at *path* (past a link)."""
    return Path(os.path.realpath(path)).parent


def not_a_database_file(path: Path, kind: str) -> DatabaseUnavailable:
    """The error for something other than a file (*kind*: "a folder", "a
    named pipe", "a socket"...) where the database file should be: SQLite
    only says it is "unable to open database file", or that the disk failed."""
    return DatabaseUnavailable(
        f"Reverie cannot use its database: {path} is {kind}, not a database file. "
        "Nothing was changed.",
        hint="Move it away (or rename it); Reverie then starts a new database there.",
    )


_SIDE_FILE_ROLES = {
    "-wal": "its write-ahead log",
    "-shm": "the shared-memory index of that log",
    "-journal": "its rollback journal",
}


def side_file_in_the_way(side: Path, database: Path, kind: str) -> DatabaseUnavailable:
    """The error for something other than a regular file (*kind*: "a folder",
    "a named pipe", ...) where SQLite keeps a file beside *database* (SQLite
    would call the database read-only or the disk failing, hang on a pipe,
    or write through a link)."""
    role = next((r for s, r in _SIDE_FILE_ROLES.items() if side.name.endswith(s)), "a file")
    return DatabaseUnavailable(
        f"Reverie cannot use its database {database}: {side} is {kind}, where SQLite "
        f"keeps {role} beside the database. Nothing was changed.",
        hint="Move or rename it; the database itself is untouched.",
    )


def hard_linked(database: Path) -> DatabaseUnavailable:
    """The error for a database file that has another name too (a hard link,
    as a backup restored as links leaves): every write would change that
    other file as well."""
    return DatabaseUnavailable(
        f"Reverie cannot use its database {database}: the file has another name too "
        "(a hard link, as a backup restored with links leaves), so every change would "
        "change that other file as well. Nothing was changed.",
        hint=f"Make it a file of its own: copy it (cp, without -l) next to itself, then move "
        f"the copy over {database.name}.",
    )


def stray_wal(wal: Path, database: Path) -> DatabaseUnavailable:
    """The error for a write-ahead log beside *database* that is not its own
    (replaying it would overwrite the database with another one's pages)."""
    return DatabaseUnavailable(
        f"The file {wal} beside Reverie's database is not that database's write-ahead "
        "log (another database's, perhaps left by a restore or a copy): opening the "
        f"database would write it into {database}. Nothing was changed.",
        hint=f"Move {wal} out of that folder (keep it if it matters to another "
        "program); Reverie then opens its database as it was.",
    )


def too_new(path: Path, found: int, known: int) -> DatabaseTooNew:
    return DatabaseTooNew(
        f"The database {path} has schema version {found}, but this Reverie only "
        f"knows versions up to {known}. It was not opened and nothing was changed.",
        hint="Update Reverie to the version that last used this database.",
    )


def _result_code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    text = str(exc).lower()
    if isinstance(code, int) and not (
        code & 0xFF == _SQLITE_ERROR and text == _DAMAGE_UNDER_THE_GENERIC_CODE
    ):
        return code & 0xFF  # extended codes carry the primary code in the low byte
    for message, message_code in _CODE_BY_MESSAGE.items():
        if message in text:
            return message_code
    return None


def is_damage(error: BaseException) -> bool:
    """Whether *error* (a driver's, or a typed one raised from it) says the
    file is damaged or not a database at all: a page SQLite cannot read."""
    if isinstance(error, Damaged):
        return True
    cause = error.__cause__ if isinstance(error, ReverieError) else error
    return cause is not None and _result_code(cause) in (_SQLITE_CORRUPT, _SQLITE_NOTADB)


def translate(exc: BaseException, path: Path) -> ReverieError:
    """The typed error for a driver exception *exc* raised on database *path*."""
    code = _result_code(exc)
    if code == _SQLITE_FULL:
        return disk_full(path)
    if code in (_SQLITE_BUSY, _SQLITE_LOCKED):
        return DatabaseBusy(
            f"The database {path} is locked by another program; the change was not saved.",
            hint="Close any other copy of Reverie (or tool using the file) and try again.",
        )
    if code in (_SQLITE_IOERR, _SQLITE_CANTOPEN) and (kind := kind_in_the_way(path)):
        return not_a_database_file(path, kind)
    if code in (_SQLITE_IOERR, _SQLITE_CANTOPEN) and nearly_full(_folder_of(path)):
        # SQLite reports a WAL index (-shm) it cannot grow, 32 kB at a time, as
        # an I/O error: a database closed cleanly, with no index beside it,
        # fails so at its first read on a full disk (round 14).
        return disk_full(path)
    if code is not None and code in _UNAVAILABLE_REASONS:
        return unavailable(path, f"{_UNAVAILABLE_REASONS[code]} ({exc})")
    return QueryFailed(f"SQLite rejected a statement on {path}: {exc}")


class EditConflict(ReverieError):
    """A memory changed after the writer read it; the write was not applied."""

    def __init__(self, memory_id: int, current_content: str) -> None:
        super().__init__(
            f"Memory #{memory_id} was changed elsewhere while you edited it; "
            "your edit was not applied, so neither change is lost. Review it and edit again."
        )
        self.memory_id = memory_id
        self.current_content = current_content


def unreachable(path: Path, error: OSError) -> DatabaseUnavailable:
    """The error for a database file that cannot even be looked at: what is in the way."""
    return DatabaseUnavailable(
        f"The database {path} cannot be reached: {explain(error)}.",
        hint="Nothing was changed.",
    )
