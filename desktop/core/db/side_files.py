"""The files SQLite keeps beside the database, looked at before it is opened.

SQLite keeps a write-ahead log (``-wal``), its shared-memory index
(``-shm``) and, while it switches modes, a rollback journal (``-journal``)
next to the database, and trusts them blindly: a folder under one of those
names makes it report a read-only database or a disk error, a named pipe
makes it (or anything reading it) wait for good, a symbolic link is written
through, and a ``-wal``
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

A WAL of another *Reverie* database that rewrote every page (a VACUUM, a
crash before its checkpoint) makes a sound Reverie database too: the other
one.  Each database has a random identity since ``schema_v8``, which no WAL
of its own ever changes, so the identity seen through the WAL is compared
with the file's own; a file that has none yet (older, or not checkpointed
since) is judged by soundness alone, as before.

A copy (a snapshot, taken with ``VACUUM INTO``) was never run in WAL mode:
its header still says rollback journal (bytes 18 and 19 are 1), which
opening a database as Reverie's switches for good, before any WAL of its
own can exist.  So a WAL with frames beside such a file is never its own,
whatever identity the copy carries (that of a live database it was put back
as before, or none: an older version's copy), and is refused outright.
"""

from __future__ import annotations

import os
import stat
import struct
from collections.abc import Callable, Sequence
from pathlib import Path

from desktop.core.base.errors import ReverieError
from desktop.core.base.files import NotARegularFile, kind_in_the_way, kind_of, open_regular
from desktop.core.db import migrations as _migrations
from desktop.core.db import schema_v8
from desktop.core.db.connection import SIDE_FILES, Database, quick_check
from desktop.core.db.errors import (
    Damaged,
    DatabaseBusy,
    DatabaseTooNew,
    DatabaseUnavailable,
    hard_linked,
    is_damage,
    not_a_database_file,
    side_file_in_the_way,
    stray_wal,
)

OpenView = Callable[[str], "Database"]
"""Opens the database with the given URI parameters (``mode=ro``, ``immutable=1``)."""

_WAL_MAGIC = (0x377F0682, 0x377F0683)  # the low bit is the checksums' byte order
_WAL_HEADER = struct.Struct(">IIII")  # magic, format version, page size, checkpoint number
_WAL_FRAME_HEADER_SIZE = 24
_VERSIONS_START, _VERSIONS_END = 18, 20  # the file format's write and read versions
_LEGACY_VERSIONS = b"\x01\x01"  # rollback journal; WAL mode writes 2 and 2


def side_file(path: Path, suffix: str) -> Path:
    """The file SQLite keeps beside the database *path* under *suffix*."""
    return path.with_name(path.name + suffix)


def refuse_odd_side_files(path: Path) -> None:
    """Raise ``side_file_in_the_way`` if anything but a regular file stands
    where SQLite keeps a file beside the database *path*.

    SQLite would call a folder a read-only database or a failing disk, hang
    for good opening a named pipe (and so would reading one here), and
    write through a symbolic or a hard link into the file it shares (a hard
    link is left by a backup restored as links: ``cp -al``, rsnapshot); so
    these are named from ``lstat`` alone, before anything opens them.  So
    is a hard link at the database itself: its other name is a backup's;
    and anything but a file there (``not_a_database_file``): SQLite calls a
    named pipe a failing disk, a socket a file it cannot open.
    """
    if (kind := kind_in_the_way(path)) is not None:
        raise not_a_database_file(path, kind)
    try:
        own = os.lstat(path)
    except OSError:
        pass  # missing (made with one name), or its folder's own checks say why
    else:
        if stat.S_ISREG(own.st_mode) and own.st_nlink > 1:
            raise hard_linked(path)
    for suffix in SIDE_FILES:
        side = side_file(path, suffix)
        try:
            found = os.lstat(side)
        except OSError:
            # Missing, or its folder cannot be looked into: the database's
            # own checks, next, name what is wrong with the folder.
            continue
        if not stat.S_ISREG(found.st_mode):
            raise side_file_in_the_way(side, path, kind_of(found.st_mode))
        if found.st_nlink > 1:
            raise side_file_in_the_way(side, path, "a hard link to another file")


def refuse_stray_wal(
    path: Path,
    open_view: OpenView,
    migrations: Sequence[_migrations.Migration] = _migrations.MIGRATIONS,
) -> None:
    """Raise, without writing anything, if replaying the ``-wal`` beside
    *path* would not leave a sound Reverie database: ``stray_wal`` if the
    database is one without it, else the database's own error."""
    wal = side_file(path, "-wal")
    if not has_frames(wal, path):
        return
    if _size(path) == 0:
        # Making a database WAL writes its first page first: an empty file
        # never has a WAL of its own (SQLite would delete this one).
        raise stray_wal(wal, path)
    if _never_in_wal_mode(path):
        raise stray_wal(wal, path)  # a copy put back: it has no WAL of its own
    try:
        with open_view("mode=ro") as replayed:
            _check_sound(replayed, migrations)
            seen = _identity(replayed)
    except (DatabaseBusy, DatabaseTooNew):
        raise
    except ReverieError as problem:
        with_wal = problem
    else:
        # Sound with the WAL; but a WAL of another Reverie database that
        # rewrote every page is sound too: it must not change the identity.
        own = _identity_alone(open_view)
        if own is not None and seen != own:
            raise stray_wal(wal, path)
        return
    try:
        with open_view("immutable=1") as alone:
            _check_sound(alone, migrations)
            # A file with no tables yet (its WAL may hold all of them) is no
            # Reverie database the WAL could be foreign to.
            ours = bool(alone.fetch_value("SELECT count(*) FROM sqlite_schema"))
    except ReverieError as problem:
        if is_damage(with_wal) and is_damage(problem) and _one_identity(open_view):
            return  # the file's own damage, the WAL its own: said once it opens
        ours = False
    if not ours:
        raise with_wal  # the database itself is not usable: its own error
    raise stray_wal(wal, path)


def _identity(database: Database) -> bytes | None:
    """The random identity of *database* (``schema_v8``); None before it has one."""
    if not database.fetch_value(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?",
        (schema_v8.IDENTITY_TABLE,),
    ):
        return None
    token = database.fetch_value(schema_v8.IDENTITY_QUERY)
    return bytes(token) if isinstance(token, bytes) else None


def _identity_alone(open_view: OpenView) -> bytes | None:
    """The identity in the database file without its WAL; None if it has
    none yet (written before ``schema_v8``, or not checkpointed since) or
    cannot be read alone: then only soundness tells a stray WAL."""
    try:
        with open_view("immutable=1") as alone:
            return _identity(alone)
    except ReverieError:
        return None


def _one_identity(open_view: OpenView) -> bool:
    """Whether the database reads as the same one with its WAL and alone
    (its identity, ``schema_v8``, read in both)."""
    try:
        with open_view("mode=ro") as replayed:
            seen = _identity(replayed)
    except ReverieError:
        return False
    own = _identity_alone(open_view)
    return own is not None and seen == own


def _check_sound(database: Database, migrations: Sequence[_migrations.Migration]) -> None:
    """Raise unless *database* is Reverie's (or new) and passes SQLite's
    quick check; ``Damaged`` when it does not, also for a record of schema
    versions read as newer than this Reverie: from a damaged page."""
    try:
        _migrations.check_openable(database, migrations)
    except DatabaseTooNew:
        _refuse_damage(database)
        raise
    _refuse_damage(database)


def _refuse_damage(database: Database) -> None:
    if damage := quick_check(database):
        raise Damaged(database.path, "; ".join(damage))


def has_frames(wal: Path, database: Path) -> bool:
    """Whether *wal* is a WAL SQLite would read frames from (a missing,
    empty or headerless one it ignores)."""
    try:
        # Not blocking and not following a link: what stands there was
        # checked a moment ago (``refuse_odd_side_files``) but may have been
        # swapped since, and a pipe must not hang the start-up.
        descriptor = open_regular(wal)
    except FileNotFoundError:
        return False
    except NotARegularFile as odd:
        raise side_file_in_the_way(wal, database, odd.kind) from odd
    except OSError as error:
        raise DatabaseUnavailable(
            f"The file {wal} beside the database cannot be read: {error}.",
            hint="Nothing was changed. Check its permissions.",
        ) from error
    with os.fdopen(descriptor, "rb") as file:
        status = os.fstat(file.fileno())
        header = file.read(_WAL_HEADER.size)
    if len(header) < _WAL_HEADER.size:
        return False
    magic, _version, page_size, _checkpoint = _WAL_HEADER.unpack(header)
    return magic in _WAL_MAGIC and status.st_size >= 32 + _WAL_FRAME_HEADER_SIZE + page_size


def _never_in_wal_mode(path: Path) -> bool:
    """Whether the header of the database file *path* says SQLite never ran
    it in WAL mode (read and write versions 1: legacy, rollback journal).

    Switching a database to WAL writes version 2 there through a rollback
    journal, before the first frame of its WAL (SQLite's file format,
    section 1.3.3), so a file still at 1 never wrote the WAL beside it.  An
    unreadable or short header says nothing here: the checks after it judge."""
    try:
        descriptor = open_regular(path)
    except OSError:
        return False
    with os.fdopen(descriptor, "rb") as file:
        header = file.read(_VERSIONS_END)
    return header[_VERSIONS_START:_VERSIONS_END] == _LEGACY_VERSIONS


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
