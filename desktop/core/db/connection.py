"""The one way to open Reverie's SQLite file, and the guarded connection.

``open_database`` picks a driver that can load sqlite-vec (see ``drivers``),
checks the file is a readable Reverie database no newer than this code,
switches it to WAL and applies the missing migrations.  ``Database`` owns the
single connection: every use holds its lock (the connection is shared between
threads), writes go through ``transaction()`` and every driver error leaves as
one of the typed errors in ``desktop.core.db.errors``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from desktop.core.db import migrations as _migrations
from desktop.core.db.drivers import DEFAULT_CANDIDATES, Driver, DriverCandidate, select_driver
from desktop.core.db.drivers import load_vector_extension as _load_vector_extension
from desktop.core.db.errors import translate

BUSY_TIMEOUT_MS = 5000

Params = Sequence[Any] | Mapping[str, Any]

_PRAGMA_NAME = re.compile(r"[a-z_]+")
_AFTER_SEMICOLON = re.compile(r"(?<=;)")


def _only_comments(sql: str) -> bool:
    return all(not line.strip() or line.strip().startswith("--") for line in sql.splitlines())


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
        self._driver = driver
        self._connection = connection
        self._lock = threading.RLock()
        self._in_transaction = False
        self._closed = False

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

    def snapshot_to(self, path: Path) -> None:
        """Write a consistent copy of the whole database to *path* (a new file).

        ``VACUUM INTO`` reads one snapshot of the file, so writes meanwhile
        are either all in the copy or not at all; the copy is compact and
        needs no WAL beside it.  It runs on a connection of its own: in WAL
        mode that reader never blocks this connection, so a chat turn does
        not wait for the copy of a large store, and only what was committed
        is copied.
        """
        copier = _connect(self.path, self._driver)
        try:
            copier._execute("VACUUM INTO ?", (str(path),))
        finally:
            copier.close()

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
                raise translate(exc, self.path) from exc

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
                raise translate(exc, self.path) from exc
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


def _connect(path: Path, driver: Driver) -> Database:
    module = driver.module
    try:
        connection = module.connect(
            str(path),
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
    database = Database(path, driver, connection, vec_version)
    try:
        # Connection settings only: nothing here reads or writes the file.
        database.set_pragma("busy_timeout", BUSY_TIMEOUT_MS)
        database.set_pragma("foreign_keys", "on")
    except BaseException:
        database.close()
        raise
    return database


def open_database(
    path: Path,
    *,
    drivers: Sequence[DriverCandidate] = DEFAULT_CANDIDATES,
    migrations: Sequence[_migrations.Migration] = _migrations.MIGRATIONS,
) -> Database:
    """Open (creating if missing) the database at *path*, migrated to the latest schema.

    A file that is unreadable, not a database, damaged, someone else's or
    newer than this code is refused before anything is written to it.
    """
    database = _connect(path, select_driver(drivers))
    try:
        _migrations.check_openable(database, migrations)
        database.journal_mode = str(database.set_pragma("journal_mode", "wal"))
        database.set_pragma("synchronous", "normal")
        _migrations.migrate(database, migrations)
    except BaseException:
        database.close()
        raise
    return database
