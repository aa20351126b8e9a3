"""The guarded connection to Reverie's SQLite file (``opening`` opens it).

``Database`` owns the single connection: every use holds its lock (the
connection is shared between threads), writes go through ``transaction()``
and every driver error leaves as one of the typed errors in
``desktop.core.db.errors``.
"""

from __future__ import annotations

import errno
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from desktop.core.base.errors import EnvironmentProblem, ReverieError
from desktop.core.base.files import make_private, open_private, sync_to_disk
from desktop.core.base.paths import explain
from desktop.core.base.text import searchable
from desktop.core.db import schema_v8
from desktop.core.db.drivers import Driver
from desktop.core.db.drivers import load_vector_extension as _load_vector_extension
from desktop.core.db.errors import (
    DatabaseUnavailable,
    disk_full,
    is_damage,
    translate,
    unavailable,
    unreachable,
)
from desktop.core.db.fts import indexed_text

BUSY_TIMEOUT_MS = 5000
SIDE_FILES = ("-wal", "-shm", "-journal")
"""Files SQLite keeps beside the database, which it must write too."""

Params = Sequence[Any] | Mapping[str, Any]

_PRAGMA_NAME = re.compile(r"[a-z_]+")
_AFTER_SEMICOLON = re.compile(r"(?<=;)")


def _only_comments(sql: str) -> bool:
    return all(not line.strip() or line.strip().startswith("--") for line in sql.splitlines())


class SnapshotUnusable(EnvironmentProblem):
    """A copy of the database could not be made whole: nothing of it was kept."""


class CopyGone(DatabaseUnavailable):
    """The copy of a database asked for is not there (any more): a snapshot
    the dream's rotation removed after it was listed.  Nothing was created."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"The copy {path} is gone (removed since it was listed). Nothing was changed.",
            hint="Nothing to do: the copies still there are used.",
        )
        self.path = path


class Row(Protocol):
    """A result row, readable by column name or position."""

    def __getitem__(self, key: int | str, /) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...

    def __len__(self) -> int: ...

    def keys(self) -> list[str]: ...


@dataclass(frozen=True)
class ExecResult:
    lastrowid: int | None
    rowcount: int


class _Reads:
    """The read helpers shared by ``Database`` and ``Transaction``."""

    def _fetch(self, sql: str, params: Params, *, one: bool) -> list[Row]:
        raise NotImplementedError

    def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        rows = self._fetch(sql, params, one=True)
        return rows[0] if rows else None

    def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        return self._fetch(sql, params, one=False)

    def fetch_value(self, sql: str, params: Params = ()) -> Any:
        row = self.fetch_one(sql, params)
        return None if row is None else row[0]


class Transaction(_Reads):
    """The statements of one open write transaction; valid only inside its ``with``."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._open = True
        self._after_commit: list[Callable[[], None]] = []

    def after_commit(self, action: Callable[[], None]) -> None:
        """Call *action* once this transaction committed, never if it rolls
        back: what follows its writes outside the database (a file written
        from its rows) neither comes before them nor without them.  It runs
        outside the database's lock, and raises nothing: the writes are in."""
        self._check_open()
        self._after_commit.append(action)

    def execute(self, sql: str, params: Params = ()) -> ExecResult:
        cursor = self._run(sql, params)
        return ExecResult(cursor.lastrowid, cursor.rowcount)

    def execute_script(self, script: str) -> None:
        """Run several statements inside this transaction.

        The drivers' ``executescript`` commits first, so the script is split
        here instead, statement by statement, with SQLite's own notion of a
        complete statement (which keeps trigger bodies whole).
        """
        for statement in self._database._split_statements(script):
            self._run(statement, ())

    def _run(self, sql: str, params: Params) -> Any:
        self._check_open()
        return self._database._execute(sql, params)

    def _fetch(self, sql: str, params: Params, *, one: bool) -> list[Row]:
        self._check_open()
        return self._database._fetch(sql, params, one=one)

    def _check_open(self) -> None:
        if not self._open:
            raise RuntimeError("this transaction has already ended")

    def _end(self) -> None:
        self._open = False


class Database(_Reads):
    """Reverie's open SQLite database.  Build it with ``open_database``."""

    def __init__(self, path: Path, driver: Driver, connection: Any, vec_version: str) -> None:
        self.path = path
        self.driver_name = driver.name
        self.vec_version = vec_version
        self.journal_mode = ""
        self.opening_notes: list[str] = []
        """What the user should know of how the file opened (``open_database``)."""
        self.reader_view = "mode=ro"
        """How ``read_snapshot`` opens the file (``open_as_it_is``: as the file holds it)."""
        self._driver = driver
        self._connection = connection
        self._lock = threading.RLock()
        self._in_transaction = False
        self._closed = False
        self._damage_listeners: list[Callable[[], None]] = []

    def when_damaged(self, listener: Callable[[], None]) -> None:
        """Call *listener*, on the thread that met it, whenever a statement
        fails on a page SQLite cannot read: a check of the whole file can
        then name the way back to a sound copy, which the error alone
        ("the file is damaged") cannot."""
        self._damage_listeners.append(listener)

    def _translated(self, exc: BaseException) -> ReverieError:
        if is_damage(exc):
            for listener in self._damage_listeners:
                listener()
        return translate(exc, self.path)

    @property
    def sqlite_version(self) -> str:
        return str(self._driver.module.sqlite_version)

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` if anything raises.

        The lock is held for the whole block, so keep it short: never run a
        model or wait on anything slow inside it.
        """
        with self._lock:
            if self._in_transaction:
                raise RuntimeError("transactions do not nest")
            self._execute("BEGIN IMMEDIATE", ())
            self._in_transaction = True
            transaction = Transaction(self)
            try:
                yield transaction
                self._execute("COMMIT", ())
            except BaseException as exc:
                self._roll_back(exc)
                raise
            finally:
                transaction._end()
                self._in_transaction = False
        for action in transaction._after_commit:
            action()

    @contextmanager
    def read_snapshot(self) -> Iterator[Database]:
        """One moment of the database, read on a connection of its own for
        as long as the block lasts: its first read fixes what every read
        after it sees (a read transaction), so a reader may go over the
        tables twice and find them alike.  In WAL mode writers go on
        meanwhile, and this connection is never held up by the reading."""
        with connect(self.path, self._driver, view=self.reader_view, create=False) as reader:
            reader._execute("BEGIN", ())
            reader.fetch_value("SELECT count(*) FROM sqlite_schema")  # the moment is fixed here
            yield reader  # closing it ends the read transaction: nothing was written

    def each_row(self, sql: str, params: Params = (), *, batch: int = 256) -> Iterator[Row]:
        """The rows of a query one by one, read *batch* at a time from
        SQLite: a large table is never held whole."""
        with self._lock:
            try:
                cursor = self._connection.execute(sql, params)
            except self._driver.module.Error as exc:
                raise self._translated(exc) from exc
        try:
            while True:
                with self._lock:
                    try:
                        rows = cursor.fetchmany(batch)
                    except self._driver.module.Error as exc:
                        raise self._translated(exc) from exc
                if not rows:
                    return
                yield from rows
        finally:
            with self._lock:
                # Closing the connection closed its cursors: a reading left
                # unfinished by a failed write, closed after its snapshot.
                if not self._closed:
                    cursor.close()

    @contextmanager
    def writing(self, tx: Transaction | None) -> Iterator[Transaction]:
        """*tx* (a caller's transaction this write joins), or a transaction of its own."""
        if tx is not None:
            yield tx
            return
        with self.transaction() as own:
            yield own

    def snapshot_to(self, path: Path) -> None:
        """Write a consistent, checked copy of the whole database to *path*
        (a new file, readable by the user alone).

        ``VACUUM INTO`` reads one snapshot of the file, so writes meanwhile
        are either all in the copy or not at all; the copy is compact and
        needs no WAL beside it.  It runs on a connection of its own: in WAL
        mode that reader never blocks this connection, so a chat turn does
        not wait for the copy of a large store, and only what was committed
        is copied.  The copy then reaches the disk and is opened and checked
        (SQLite's quick check, and every table of this database is in it).
        Raises ``DiskFull``, ``SnapshotUnusable`` or another typed error,
        after removing what was written.
        """
        try:
            os.close(open_private(str(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL))
        except OSError as error:
            raise SnapshotUnusable(f"the copy {path} cannot be created: {error}") from error
        try:
            # The tables are read on the copier too: this connection may be
            # held by a long transaction on another thread.
            with connect(self.path, self._driver) as copier:
                copier._execute("VACUUM INTO ?", (str(path),))
                tables = _table_names(copier)
            if schema_v8.IDENTITY_TABLE in tables:  # a database of its own (``schema_v8``)
                with connect(path, self._driver) as copy:
                    copy._execute(schema_v8.RENEWED_IDENTITY, ())
            sync_to_disk(path)  # VACUUM INTO leaves that to its caller
            self._check_copy(path, tables)
        except BaseException:
            for written in (path, Path(f"{path}-journal")):
                with suppress(OSError):  # the error that stopped the copy is the one to report
                    written.unlink()
            raise

    def _check_copy(self, path: Path, tables: set[str]) -> None:
        """Raise ``SnapshotUnusable`` unless the copy at *path* opens, passes
        SQLite's integrity check and has all of *tables*."""
        try:
            with connect(path, self._driver) as copy:
                damage = integrity_check(copy)
                missing = tables - _table_names(copy)
        except ReverieError as error:
            raise SnapshotUnusable(f"the copy {path} cannot be read back: {error}") from error
        if damage:
            raise SnapshotUnusable(f"the copy {path} is damaged: {'; '.join(damage)}")
        if missing:
            raise SnapshotUnusable(f"the copy {path} lacks tables: {', '.join(sorted(missing))}")

    def damage(self) -> list[str]:
        """What SQLite's integrity check finds wrong in this file (none: it is
        sound), read on a connection of its own: reading a large file takes
        seconds, and in WAL mode that reader never holds this connection up.
        Not the quick check: that one passes an index whose entries no longer
        match their rows, and every write to those rows then fails as
        damaged.  A file SQLite refuses to read at all is one finding."""
        try:
            with connect(self.path, self._driver, view="mode=ro", create=False) as checker:
                return integrity_check(checker)
        except ReverieError as error:
            if is_damage(error):
                return [str(error.__cause__)]
            raise

    def truncate_wal(self) -> bool:
        """Write the WAL back into the file and empty it
        (``wal_checkpoint(TRUNCATE)``); whether it was emptied.  It is not
        while another connection reads a snapshot the WAL still holds (a
        dream's copy, a second Reverie), after the busy timeout.  A file in
        another journal mode has no WAL to empty."""
        if str(self.pragma("journal_mode")).lower() != "wal":
            return True
        row = self.fetch_one("PRAGMA wal_checkpoint(TRUNCATE)")
        return row is not None and int(row[0]) == 0

    def pragma(self, name: str) -> Any:
        """The current value of PRAGMA *name* (read-only use)."""
        if not _PRAGMA_NAME.fullmatch(name):
            raise ValueError(f"not a pragma name: {name!r}")
        return self.fetch_value(f"PRAGMA {name}")

    def set_pragma(self, name: str, value: int | str) -> Any:
        """Set PRAGMA *name* and return what SQLite reports back."""
        if not _PRAGMA_NAME.fullmatch(name):
            raise ValueError(f"not a pragma name: {name!r}")
        if isinstance(value, str) and not _PRAGMA_NAME.fullmatch(value.lower()):
            raise ValueError(f"not a pragma value: {value!r}")
        return self.fetch_value(f"PRAGMA {name} = {value}")

    def _execute(self, sql: str, params: Params) -> Any:
        """Execute one statement and return the driver's cursor (for this package only)."""
        with self._lock:
            try:
                return self._connection.execute(sql, params)
            except self._driver.module.Error as exc:
                raise self._translated(exc) from exc

    def _fetch(self, sql: str, params: Params, *, one: bool) -> list[Row]:
        """Run a query and read its rows, translating errors met while reading too."""
        with self._lock:
            try:
                cursor = self._connection.execute(sql, params)
                try:
                    rows = [cursor.fetchone()] if one else cursor.fetchall()
                finally:
                    # Finish the statement now: a half-read one (e.g. INSERT ...
                    # RETURNING) would otherwise hold up COMMIT.
                    cursor.close()
            except self._driver.module.Error as exc:
                raise self._translated(exc) from exc
            return cast("list[Row]", [row for row in rows if row is not None])

    def _split_statements(self, script: str) -> list[str]:
        statements: list[str] = []
        pending = ""
        # Cut after every ";" and glue pieces back until SQLite calls them a
        # complete statement: a ";" inside a string or a trigger body does
        # not end one, two statements on one line are still two.
        for piece in _AFTER_SEMICOLON.split(script):
            pending += piece
            if self._driver.module.complete_statement(pending):
                statements.append(pending.strip())
                pending = ""
        if not _only_comments(pending):
            raise ValueError(f"incomplete SQL statement: {pending.strip()[:80]!r}")
        return statements

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._connection.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _roll_back(self, cause: BaseException) -> None:
        # SQLite rolls back by itself after some errors (e.g. SQLITE_FULL), so
        # there may be nothing left to undo.
        if not self._connection.in_transaction:
            return
        try:
            self._connection.execute("ROLLBACK")
        except self._driver.module.Error as exc:
            # The original error is the one to report; the failed rollback
            # travels with it rather than replacing it.
            cause.add_note(f"the rollback also failed: {exc}")


def quick_check(database: Database) -> list[str]:
    """What SQLite's quick check finds wrong in *database*: its first three
    findings, none if the file is sound."""
    return _findings(database, "quick_check")


def integrity_check(database: Database) -> list[str]:
    """What SQLite's integrity check finds wrong in *database* (its first
    three findings, none if sound): the quick check's, and also each index
    whose entries no longer match their rows, on which a purge fails."""
    return _findings(database, "integrity_check")


def _findings(database: Database, check: str) -> list[str]:
    """The first three findings of SQLite's *check* pragma on *database*."""
    rows = [str(row[0]) for row in database.fetch_all(f"PRAGMA {check}(3)")]
    if rows == ["ok"]:
        return []
    # A row may hold several lines, the first naming the schema ("*** in database main ***").
    lines = (line.strip() for row in rows for line in row.splitlines())
    return [line for line in lines if line and not line.startswith("*** ")]


def _table_names(database: Database) -> set[str]:
    rows = database.fetch_all("SELECT name FROM sqlite_schema WHERE type = 'table'")
    return {row[0] for row in rows}


def connect(path: Path, driver: Driver, *, view: str = "", create: bool = True) -> Database:
    """A connection to *path*; with *view* (URI parameters such as
    ``mode=ro``), one that opens the file only as they say.  A missing file
    is created (a new database) only if *create*."""
    _make_files_private(path, create=create)
    module = driver.module
    target, uri = (f"{path.absolute().as_uri()}?{view}", {"uri": True}) if view else (str(path), {})
    try:
        connection = module.connect(
            target,
            **uri,
            isolation_level=None,  # we issue BEGIN/COMMIT ourselves
            check_same_thread=False,  # shared between threads, guarded by Database's lock
            timeout=BUSY_TIMEOUT_MS / 1000,
        )
    except module.Error as exc:
        raise translate(exc, path) from exc
    try:
        vec_version = _load_vector_extension(connection)
    except module.Error as exc:
        connection.close()
        raise translate(exc, path) from exc
    connection.row_factory = module.Row
    # searchable(x): text as a search compares it (case folded in every
    # script, in compatibility form, without accents; SQLite's lower() and
    # LIKE fold ASCII letters alone).  indexed_text(x): a text as the
    # full-text indexes' triggers hold it (schema_v16).
    for name, function in (("searchable", searchable), ("indexed_text", indexed_text)):
        connection.create_function(name, 1, _on_text(function), deterministic=True)
    database = Database(path, driver, connection, vec_version)
    try:
        # Connection settings only: nothing here reads or writes the file.
        database.set_pragma("busy_timeout", BUSY_TIMEOUT_MS)
        database.set_pragma("foreign_keys", "on")
        # Deleted text is overwritten with zeros, not left in free pages
        # (forgetting something must not leave it readable in the file).
        database.set_pragma("secure_delete", "on")
    except BaseException:
        database.close()
        raise
    return database


def _on_text(function: Callable[[str], str]) -> Callable[[object], object]:
    """*function* as an SQL function: a value that is not text (NULL) passes as it is."""
    return lambda value: function(value) if isinstance(value, str) else value


def _make_files_private(path: Path, *, create: bool = True) -> None:
    """The database and its side files readable by the user alone.

    SQLite creates a new database with the umask's mode and gives its WAL,
    shared-memory and journal files the database's own mode, so a missing
    file is created 0600 here first (SQLite takes an empty file as a new
    database), and files an older version left readable by others are fixed.
    """
    try:
        # Path.exists answers False only for a missing file: a folder on the
        # way closed to this user raises (EACCES), and is reported as such.
        missing = not path.exists() and path.parent.is_dir()
    except OSError as error:
        raise unreachable(path, error) from error
    if missing and create:
        try:
            os.close(open_private(str(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL))
        except OSError as error:
            if error.errno == errno.ENOSPC:
                raise disk_full(path) from error
            # explain: a link to nothing (a drive not mounted) says so, not "File exists"
            raise unavailable(path, f"the file cannot be created: {explain(error)}") from error
    for file in (path, *(Path(f"{path}{suffix}") for suffix in SIDE_FILES)):
        try:
            if file.is_file():
                make_private(file)
        except OSError as error:
            raise unavailable(file, f"it cannot be made private to you ({error})") from error
