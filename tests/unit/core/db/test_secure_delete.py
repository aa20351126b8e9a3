"""Deleted text is overwritten in the file, not left in SQLite's free pages."""

from __future__ import annotations

from pathlib import Path

from desktop.core.db import open_database

FORGOTTEN = "the-forgotten-sentence-7f3a"


def test_every_connection_overwrites_what_it_deletes(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    with open_database(path) as database:
        assert database.pragma("secure_delete") == 1
        with database.transaction() as tx:
            tx.execute("CREATE TABLE notes (text TEXT)")
            tx.execute("INSERT INTO notes VALUES (?), (?)", (FORGOTTEN, "kept"))
        database.fetch_value("PRAGMA wal_checkpoint(TRUNCATE)")
        assert FORGOTTEN.encode() in path.read_bytes()

        with database.transaction() as tx:
            tx.execute("DELETE FROM notes WHERE text = ?", (FORGOTTEN,))
        database.fetch_value("PRAGMA wal_checkpoint(TRUNCATE)")

        assert FORGOTTEN.encode() not in path.read_bytes()
        assert database.fetch_value("SELECT text FROM notes") == "kept"
