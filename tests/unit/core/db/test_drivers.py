"""Tests of desktop.core.db.drivers: which SQLite driver is picked, and why."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
import sqlean

from desktop.core.db.drivers import (
    DEFAULT_CANDIDATES,
    DriverCandidate,
    load_vector_extension,
    select_driver,
)
from desktop.core.db.errors import DatabaseUnavailable


class _LimitedConnection:
    """A real sqlean connection seen through a narrower driver.

    ``can_load`` False hides ``enable_load_extension`` (like CPython built
    without loadable extensions); ``vec_fails`` makes loading fail;
    ``fts5`` False makes FTS5 unknown.
    """

    def __init__(self, *, can_load: bool, vec_fails: bool, fts5: bool) -> None:
        self._inner = sqlean.connect(":memory:")
        self._vec_fails = vec_fails
        self._fts5 = fts5
        if can_load:
            self.enable_load_extension = self._inner.enable_load_extension

    def load_extension(self, path: str) -> None:
        if self._vec_fails:
            raise sqlean.OperationalError(f"{path}: cannot open shared object file")
        self._inner.load_extension(path)

    def execute(self, sql: str, params: Any = ()) -> Any:
        if not self._fts5 and "fts5" in sql:
            raise sqlean.OperationalError("no such module: fts5")
        return self._inner.execute(sql, params)

    def close(self) -> None:
        self._inner.close()


class _FakeDriverModule:
    """A DB-API module whose connections are ``_LimitedConnection``."""

    Error = sqlean.Error

    def __init__(self, *, can_load: bool = True, vec_fails: bool = False, fts5: bool = True):
        self._options = {"can_load": can_load, "vec_fails": vec_fails, "fts5": fts5}

    def connect(self, database: str) -> _LimitedConnection:
        assert database == ":memory:"  # a driver is never judged on the user's file
        return _LimitedConnection(**self._options)


def _candidate(name: str, module: Any) -> DriverCandidate:
    return DriverCandidate(name, lambda: module)


def _missing() -> Any:
    raise ImportError("No module named 'pysqlite3'")


def test_default_candidates_are_tried_in_the_documented_order() -> None:
    assert [candidate.name for candidate in DEFAULT_CANDIDATES] == [
        "sqlite3",
        "sqlean",
        "pysqlite3",
    ]


def test_the_default_choice_loads_sqlite_vec() -> None:
    driver = select_driver()

    connection = driver.module.connect(":memory:")
    try:
        assert load_vector_extension(connection).startswith("v")
    finally:
        connection.close()
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        # This machine's CPython cannot load extensions, so sqlean must win.
        assert driver.name == "sqlean"


def test_a_driver_without_enable_load_extension_is_skipped() -> None:
    driver = select_driver(
        [
            _candidate("no-extensions", _FakeDriverModule(can_load=False)),
            _candidate("sqlean", sqlean),
        ]
    )

    assert driver.name == "sqlean"
    assert driver.module is sqlean


def test_a_missing_module_is_skipped() -> None:
    driver = select_driver([DriverCandidate("pysqlite3", _missing), _candidate("sqlean", sqlean)])

    assert driver.name == "sqlean"


def test_a_driver_that_cannot_load_the_vector_extension_is_skipped() -> None:
    driver = select_driver(
        [_candidate("broken-vec", _FakeDriverModule(vec_fails=True)), _candidate("sqlean", sqlean)]
    )

    assert driver.name == "sqlean"


def test_a_driver_without_fts5_is_skipped() -> None:
    driver = select_driver(
        [_candidate("no-fts5", _FakeDriverModule(fts5=False)), _candidate("sqlean", sqlean)]
    )

    assert driver.name == "sqlean"


def test_the_first_working_driver_wins() -> None:
    working = _FakeDriverModule()

    driver = select_driver([_candidate("first", working), _candidate("sqlean", sqlean)])

    assert driver.name == "first"
    assert driver.module is working


def test_when_nothing_works_the_error_says_how_to_fix_it() -> None:
    candidates = [
        _candidate("sqlite3", _FakeDriverModule(can_load=False)),
        _candidate("sqlean", _FakeDriverModule(vec_fails=True)),
        DriverCandidate("pysqlite3", _missing),
    ]

    with pytest.raises(DatabaseUnavailable) as caught:
        select_driver(candidates)

    message = str(caught.value)
    assert "pip install sqlean.py" in message
    assert "loadable extensions" in message
    # Each candidate's failure is reported, so a bug report shows what happened.
    assert "sqlite3: AttributeError" in message
    assert "cannot open shared object file" in message
    assert "No module named 'pysqlite3'" in message


def test_no_candidates_at_all_is_reported_too() -> None:
    with pytest.raises(DatabaseUnavailable, match="no driver was configured"):
        select_driver([])


def test_extension_loading_is_switched_off_after_sqlite_vec_is_loaded() -> None:
    connection = sqlean.connect(":memory:")
    try:
        load_vector_extension(connection)

        assert connection.execute("SELECT vec_length(vec_f32('[1, 2, 3]'))").fetchone() == (3,)
        with pytest.raises(sqlean.OperationalError, match="not authorized"):
            connection.execute("SELECT load_extension('anything')")
    finally:
        connection.close()
