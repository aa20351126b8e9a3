"""The files SQLite keeps beside the database, looked at before it is opened.

SQLite keeps a write-ahead log (``-wal``), its shared-memory index
(``-shm``) and, while it switches modes, a rollback journal (``-journal``)
next to the database, and trusts them blindly: a folder under one of those
names makes it report a read-only database or a disk error, and a ``-wal``
from another database (a restore from a backup, a sync tool, a copy made
under the wrong name) is written into the database on the first read-write
open and deleted, with nothing left to undo.

Nothing in a WAL ties it to its database (its salts are random, its
checksums cover only its own frames: https://www.sqlite.org/fileformat2.html#walformat),
so a stray one is known only by what it would make of the database.  That
is looked at without writing anything: once read-only with the WAL (SQLite
then builds its index in ``-shm`` but never writes the database), and, if
the result is not a sound Reverie database, once as the file alone
(``immutable=1`` ignores the WAL).  A database that is Reverie's alone but
not with the WAL has a stray WAL beside it: that file is named.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.db import migrations as _migrations
from desktop.core.db.errors import (
    DatabaseBusy,
    DatabaseTooNew,
    DatabaseUnavailable,
    side_folder_in_the_way,
    stray_wal,
    unavailable,
)
from desktop.core.errors import ReverieError

if TYPE_CHECKING:
    from desktop.core.db.connection import Database

SIDE_FILES = ("-wal", "-shm", "-journal")
"""Files SQLite keeps beside the database, which it must write too."""

OpenView = Callable[[str], "Database"]
"""Opens the database with the given URI parameters (``mode=ro``, ``immutable=1``)."""

_WAL_MAGIC = (0x377F0682, 0x377F0683)  # the low bit is the checksums' byte order
_WAL_HEADER = struct.Struct(">IIII")  # magic, format version, page size, checkpoint number
_WAL_FRAME_HEADER_SIZE = 24


def side_file(path: Path, suffix: str) -> Path:
    """The file SQLite keeps beside the database *path* under *suffix*."""
    return path.with_name(path.name + suffix)


def refuse_folders(path: Path) -> None:
    """Raise ``side_folder_in_the_way`` if a folder stands where SQLite keeps
    a file beside the database *path* (it would only say the database is
    read-only or the disk failed)."""
    for suffix in SIDE_FILES:
        if os.path.isdir(side_file(path, suffix)):
            raise side_folder_in_the_way(side_file(path, suffix), path)


def refuse_stray_wal(
    path: Path,
    open_view: OpenView,
    migrations: Sequence[_migrations.Migration] = _migrations.MIGRATIONS,
) -> None:
    """Raise, without writing anything, if replaying the ``-wal`` beside
    *path* would not leave a sound Reverie database: ``stray_wal`` if the
    database is one without it, else the database's own error."""
    wal = side_file(path, "-wal")
    if not _has_frames(wal):
        return
    if _size(path) == 0:
        # Making a database WAL writes its first page first: an empty file
        # never has a WAL of its own (SQLite would delete this one).
        raise stray_wal(wal, path)
    try:
        with open_view("mode=ro") as replayed:
            _check_sound(replayed, migrations)
    except (DatabaseBusy, DatabaseTooNew):
        raise
    except ReverieError as problem:
        with_wal = problem
    else:
        return
    try:
        with open_view("immutable=1") as alone:
            _check_sound(alone, migrations)
            # A file with no tables yet (its WAL may hold all of them) is no
            # Reverie database the WAL could be foreign to.
            ours = bool(alone.fetch_value("SELECT count(*) FROM sqlite_schema"))
    except ReverieError:
        ours = False
    if not ours:
        raise with_wal  # the database itself is not usable: its own error
    raise stray_wal(wal, path)


def _check_sound(database: Database, migrations: Sequence[_migrations.Migration]) -> None:
    """Raise unless *database* is Reverie's (or new) and passes SQLite's quick check."""
    _migrations.check_openable(database, migrations)
    verdict = [row[0] for row in database.fetch_all("PRAGMA quick_check")]
    if verdict != ["ok"]:
        raise unavailable(database.path, f"the file is damaged ({'; '.join(verdict[:3])})")


def _has_frames(wal: Path) -> bool:
    """Whether *wal* is a WAL SQLite would read frames from (a missing,
    empty or headerless one it ignores)."""
    try:
        with wal.open("rb") as file:
            header = file.read(_WAL_HEADER.size)
            size = os.fstat(file.fileno()).st_size
    except FileNotFoundError:
        return False
    except OSError as error:
        raise DatabaseUnavailable(
            f"The file {wal} beside the database cannot be read: {error}.",
            hint="Nothing was changed. Check its permissions.",
        ) from error
    if len(header) < _WAL_HEADER.size:
        return False
    magic, _version, page_size, _checkpoint = _WAL_HEADER.unpack(header)
    return magic in _WAL_MAGIC and size >= 32 + _WAL_FRAME_HEADER_SIZE + page_size


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
