"""Round 25: a database another program holds locked when Reverie starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from desktop.core.db import DatabaseBusy, open_database
from desktop.core.db import connection as db_connection

_HOLDS_IT_LOCKED = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN EXCLUSIVE")
print("held", flush=True)
sys.stdin.read()
"""


def test_a_database_locked_at_start_is_said_to_be_unopened_not_a_change_unsaved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "reverie.sqlite3"
    open_database(path).close()
    monkeypatch.setattr(db_connection, "BUSY_TIMEOUT_MS", 50)
    # Another program: a process of its own (locks do not hold within one).
    other = subprocess.Popen(
        [sys.executable, "-c", _HOLDS_IT_LOCKED, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout is not None and other.stdout.readline() == "held\n"
        with pytest.raises(DatabaseBusy) as raised:
            open_database(path)
    finally:
        other.communicate("")  # it lets go when its input ends

    said = str(raised.value)
    assert f"The database {path} is locked by another program" in said
    assert "could not be opened" in said and "not saved" not in said
    assert "Close any other copy of Reverie" in said
    open_database(path).close()  # and once it is let go, it opens
