"""The one way to open Reverie's SQLite file.

``open_database`` picks a driver that can load sqlite-vec (see ``drivers``),
checks the file is a readable Reverie database no newer than this code,
switches it to WAL and applies the missing migrations; ``open_copy`` opens a
snapshot beside it.  The connection itself is ``connection.Database``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from desktop.core.base.paths import explain
from desktop.core.db import migrations as _migrations
from desktop.core.db.connection import CopyGone, Database, connect, quick_check
from desktop.core.db.drivers import DEFAULT_CANDIDATES, Driver, DriverCandidate, select_driver
from desktop.core.db.errors import (
    Damaged,
    DatabaseBusy,
    DatabaseTooNew,
    DatabaseUnavailable,
    MigrationFailed,
    unreachable,
)
from desktop.core.db.free_pages import free_list_damage, free_list_note
from desktop.core.db.side_files import (
    has_frames,
    refuse_odd_side_files,
    refuse_stray_wal,
    side_file,
)
from desktop.core.db.wal_frames import (
    carry_unwritten,
    damaged_where_written_back,
    keep_damaged,
    lost_commits,
    lost_commits_note,
    missing_frames,
    missing_frames_note,
    set_aside,
)
from desktop.core.db.writable import probe_write, refuse_damaged_header, refuse_read_only


def open_copy(path: Path, like: Database | Driver) -> Database:
    """The copy of a database at *path* (a snapshot) as it is, opened with
    *like*'s driver (or the driver *like*, when the live file does not
    open): neither migrated nor switched to WAL.

    A copy is never created: one removed since it was listed (the dream's
    rotation, on another thread) raises ``CopyGone``, also when it goes
    between this look and SQLite's open (``mode=rw`` does not create)."""
    try:
        gone = not path.is_file()
    except OSError as error:  # a folder on the way closed to this user
        raise unreachable(path, error) from error
    if gone:
        raise CopyGone(path)
    try:
        driver = like if isinstance(like, Driver) else like._driver
        return connect(path, driver, view="mode=rw", create=False)
    except DatabaseUnavailable:
        if not path.exists():
            raise CopyGone(path) from None
        raise


def open_database(
    path: Path,
    *,
    drivers: Sequence[DriverCandidate] = DEFAULT_CANDIDATES,
    migrations: Sequence[_migrations.Migration] = _migrations.MIGRATIONS,
) -> Database:
    """Open (creating if missing) the database at *path*, migrated to the latest schema.

    A file that is unreadable, not a database, damaged, someone else's or
    newer than this code is refused before anything is written to it; so is
    one this user cannot write (now, not at the first message saved), and
    so is a write-ahead log beside it that is not its own (see ``side_files``).
    A log damaged in the middle is kept aside and said in ``opening_notes``
    (``wal_frames``): SQLite drops what was committed after the damage; so
    is a damaged list of free pages (``free_pages``), on which writes fail.
    """
    try:
        return _opened(path, drivers, migrations)
    except DatabaseBusy as error:
        # Nothing was being saved yet: say what could not be done.
        raise DatabaseBusy(
            f"The database {path} is locked by another program, so it could not be opened.",
            error.hint,
        ) from error


def open_as_it_is(
    path: Path,
    *,
    drivers: Sequence[DriverCandidate] = DEFAULT_CANDIDATES,
    migrations: Sequence[_migrations.Migration] = _migrations.MIGRATIONS,
) -> Database:
    """The database at *path* to be read alone, as the file holds it: no
    log, no lock, nothing written (``immutable=1``), for what only reads it
    (an export) when it cannot be opened to write, on a full disk: SQLite
    cannot even make the log's index.  ``DatabaseUnavailable`` unless it is
    Reverie's at the latest schema and no log beside it holds changes the
    file lacks (a clean close leaves none); nothing else may write it
    meanwhile."""
    refuse_odd_side_files(path)
    if has_frames(side_file(path, "-wal"), path):
        raise DatabaseUnavailable(
            f"The database {path} has changes in its write-ahead log, which only an "
            "open that can write reads.",
            "Free some disk space and try again.",
        )
    database = connect(path, select_driver(drivers), view="immutable=1", create=False)
    database.reader_view = "immutable=1"
    try:
        _migrations.check_openable(database, migrations)
        if {m.version for m in migrations} - _migrations.applied_versions(database):
            raise DatabaseUnavailable(
                f"The database {path} is of an older Reverie; only an open that can write "
                "brings it up to date.",
                "Free some disk space and try again.",
            )
    except BaseException:
        database.close()
        raise
    return database


def _opened(
    path: Path,
    drivers: Sequence[DriverCandidate],
    migrations: Sequence[_migrations.Migration],
) -> Database:
    refuse_odd_side_files(path)
    refuse_read_only(path)
    refuse_damaged_header(path)
    driver = select_driver(drivers)
    wal = side_file(path, "-wal")
    # Read before SQLite's first open, which rebuilds the log's index.
    lost, written_back = lost_commits(wal), damaged_where_written_back(wal)
    gone = missing_frames(wal)
    kept = _set_aside(wal) if written_back else None
    if kept is not None:  # the file alone may be no state it was ever in
        lost = _carried(kept, wal)
    # Before the read-write open: that one replays a WAL into the file.
    refuse_stray_wal(path, lambda view: connect(path, driver, view=view), migrations)
    notes = [lost_commits_note(wal, lost, kept or keep_damaged(wal))] if lost else []
    notes += [missing_frames_note(wal, gone)] if gone else []
    database = connect(path, driver)
    database.opening_notes = notes
    try:
        _migrated(database, migrations)
        probe_write(database)
        if damage := free_list_damage(database):  # the file opens; its writes would fail
            database.opening_notes.append(free_list_note(database, damage))
    except BaseException:
        database.close()
        raise
    return database


def _migrated(database: Database, migrations: Sequence[_migrations.Migration]) -> None:
    """*database* checked as Reverie's, in WAL mode and migrated.  A record
    of its schema's versions read from a damaged page may name a version
    no Reverie wrote ("update Reverie") or miss one applied (its migration
    then fails): when SQLite's quick check finds damage, that is said, with
    the way back of any damage, not a newer Reverie or a bug."""
    try:
        _migrations.check_openable(database, migrations)
        database.journal_mode = str(database.set_pragma("journal_mode", "wal"))
        database.set_pragma("synchronous", "normal")
        _migrations.migrate(database, migrations)
    except (DatabaseTooNew, MigrationFailed) as error:
        if damage := quick_check(database):
            raise Damaged(database.path, "; ".join(damage)) from error
        raise


def _carried(kept: Path, wal: Path) -> int:
    """The frames of *kept* no checkpoint wrote back, carried to a new log
    at *wal* (``carry_unwritten``); how many commits could not be.  A log
    that cannot be written leaves everything as it was."""
    try:
        return carry_unwritten(kept, wal)
    except OSError as error:
        wal.unlink(missing_ok=True)
        kept.rename(wal)
        raise DatabaseUnavailable(
            f"The write-ahead log {wal} beside Reverie's database is damaged where its "
            f"changes were already written into the database, and the changes not yet "
            f"written could not be saved to a new log ({explain(error)}).",
            "Nothing was changed. Free some disk space and start Reverie again.",
        ) from error


def _set_aside(wal: Path) -> Path:
    """*wal* moved aside (``set_aside``); a log that cannot be moved is
    not opened over the database it would damage."""
    try:
        return set_aside(wal)
    except OSError as error:
        raise DatabaseUnavailable(
            f"The write-ahead log {wal} beside Reverie's database is damaged where its "
            f"changes were already written into the database, and could not be moved "
            f"aside ({explain(error)}); opening would replay it over them.",
            f"Move {wal} out of that folder (keep it for a recovery tool); nothing in "
            "the database is lost by it.",
        ) from error
