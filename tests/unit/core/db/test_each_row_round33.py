"""Round 33: an export stopped by a full disk printed a traceback after
saying so ("Exception ignored in: <generator object Database.each_row>
... Cannot operate on a closed database").

The archive is written from a read snapshot, a table's rows read with
``each_row`` as they are written.  A write that fails leaves that reading
where it was; the snapshot's connection is then closed, and the reading
was closed after it, by the garbage collector, whose cursor could no
longer be closed.  A connection's cursors go with it: there is nothing
left to close."""

from __future__ import annotations

from collections.abc import Generator

from desktop.core.db.connection import Database


def test_a_reading_left_unfinished_closes_quietly_after_its_connection(db: Database) -> None:
    with db.transaction() as tx:
        tx.execute("INSERT INTO conversations (title, created_at, updated_at) VALUES ('a', 1, 1)")
    with db.read_snapshot() as moment:
        reading = moment.each_row("SELECT id FROM conversations")
        assert next(reading)[0] == 1  # the write fails here: the reading stays open

    assert isinstance(reading, Generator)
    reading.close()  # as the garbage collector closes it
