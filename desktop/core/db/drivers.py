"""Choosing the SQLite driver: the first one that can load sqlite-vec and has FTS5.

CPython's own ``sqlite3`` is often built without loadable extensions (no
``enable_load_extension``), so ``sqlean`` (sqlean.py, a drop-in with
extension support) and ``pysqlite3`` are tried after it.  A driver is judged
by doing the real thing on an in-memory database (never the user's file):
load sqlite-vec, call ``vec_version()``, create an FTS5 table.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlite_vec

from desktop.core.db.errors import DatabaseUnavailable


@dataclass(frozen=True)
class DriverCandidate:
    """A DB-API module tried as the SQLite driver; ``load`` may raise ImportError."""

    name: str
    load: Callable[[], Any]


@dataclass(frozen=True)
class Driver:
    """The chosen DB-API module (``sqlite3``-compatible) and its name."""

    name: str
    module: Any


def _importer(module_name: str) -> Callable[[], Any]:
    return lambda: importlib.import_module(module_name)


DEFAULT_CANDIDATES: tuple[DriverCandidate, ...] = (
    DriverCandidate("sqlite3", _importer("sqlite3")),
    DriverCandidate("sqlean", _importer("sqlean")),
    DriverCandidate("pysqlite3", _importer("pysqlite3.dbapi2")),
)

_FIX_HINT = (
    "Install the extension-capable SQLite driver with `pip install sqlean.py`, "
    "or run Reverie with a Python whose sqlite3 module supports loadable extensions."
)


def load_vector_extension(connection: Any) -> str:
    """Load sqlite-vec into *connection*; return its version.

    Extension loading is switched off again afterwards so that SQL text can
    never load a library by itself.
    """
    if not hasattr(connection, "enable_load_extension"):
        raise AttributeError("this driver was built without enable_load_extension")
    connection.enable_load_extension(True)
    try:
        sqlite_vec.load(connection)
    finally:
        connection.enable_load_extension(False)
    version = connection.execute("SELECT vec_version()").fetchone()[0]
    return str(version)


def _probe(module: Any) -> None:
    """Raise unless *module* can load sqlite-vec and run FTS5."""
    connection = module.connect(":memory:")
    try:
        load_vector_extension(connection)
        connection.execute("CREATE VIRTUAL TABLE temp.probe USING fts5(body)")
        connection.execute("INSERT INTO temp.probe(body) VALUES ('probe')")
        connection.execute("SELECT body FROM temp.probe WHERE probe MATCH 'probe'").fetchall()
    finally:
        connection.close()


def select_driver(candidates: Sequence[DriverCandidate] = DEFAULT_CANDIDATES) -> Driver:
    """The first candidate that works, or DatabaseUnavailable saying how to fix it."""
    reasons: list[str] = []
    for candidate in candidates:
        try:
            module = candidate.load()
            _probe(module)
        # A candidate may fail in any way its C code likes (ImportError, a
        # driver error, AttributeError on a stripped build); each failure is
        # kept and reported if no candidate works, so nothing is lost.
        except Exception as exc:
            reasons.append(f"{candidate.name}: {type(exc).__name__}: {exc}")
            continue
        return Driver(candidate.name, module)
    tried = "; ".join(reasons) or "no driver was configured"
    raise DatabaseUnavailable(
        f"No SQLite driver here can load the sqlite-vec extension with FTS5 ({tried}).",
        hint=_FIX_HINT,
    )
