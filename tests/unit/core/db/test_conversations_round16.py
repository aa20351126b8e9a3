"""Round 16's finding in ``ConversationStore.finish_rewrite``: the follow-up
of a rewrite was marked done before the WAL checkpoint, whose result was not
read, so a kill in between or a reader keeping the WAL (a dream's copy, a
second Reverie) left the words taken out in reverie.sqlite3-wal with nothing
queued to empty it, through the whole next session."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from desktop.core.db import ConversationStore, Database

VALUE = "Zx8pre55"
_READER = (
    "import sqlite3, sys\n"
    "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "c.execute('BEGIN')\n"
    "c.execute('SELECT count(*) FROM conversations').fetchone()\n"
    "print('reading', flush=True)\n"
    "sys.stdin.readline()\n"
)


@contextmanager
def _another_reverie_reading(database: Database) -> Iterator[None]:
    """A read transaction in another process (one in this process, through
    another SQLite library, would not see this one's locks)."""
    with subprocess.Popen(
        [sys.executable, "-c", _READER, str(database.path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as reader:
        assert reader.stdout is not None and reader.stdin is not None
        assert reader.stdout.readline() == "reading\n"
        try:
            yield
        finally:
            reader.stdin.write("\n")
            reader.stdin.flush()


def _wal_holds(database: Database, word: str) -> bool:
    wal = Path(f"{database.path}-wal")
    return wal.exists() and word.encode() in wal.read_bytes()


def test_a_rewrite_stays_queued_until_its_old_words_are_out_of_the_wal(
    store: ConversationStore, database: Database
) -> None:
    conversation = store.create("c")
    store.add_message(conversation.id, "user", f"{VALUE} is it")
    with store.transaction() as tx:
        store.rewrite_conversation(
            conversation.id, [VALUE], lambda t: t.replace(VALUE, "[redacted]"), tx
        )
    database.set_pragma("busy_timeout", 0)  # the checkpoint need not wait for the reader
    with _another_reverie_reading(database):
        store.finish_rewrite()
        assert _wal_holds(database, VALUE)
        assert store.sweep_unfinished()  # the next start empties it

    assert store.finish_rewrite()
    assert not store.sweep_unfinished()
    assert not _wal_holds(database, VALUE)
