"""Messages an older version stored as typed lose their secrets once, in the
background, after migration 7: text, titles, tool calls, the search index,
the WAL and the snapshots it took; messages stored since are already
redacted and left alone."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from desktop.core.base.jobs import JobControl
from desktop.core.db import ConversationStore, open_database
from desktop.core.db.migrations import MIGRATIONS
from desktop.core.dreaming.secret_sweep import (
    BATCH,
    _redacted,
    sweep_snapshots,
    sweep_stored_secrets,
)
from desktop.core.dreaming.snapshots import SnapshotsLock, take_snapshot
from desktop.core.privacy.redaction import redact
from tests.erasers import waiting_for_snapshots

SECRET = "hunter2zq"


def _old_database(path: Path, messages: int) -> None:
    """A database as version 6 left it: secrets stored as typed."""
    with open_database(path, migrations=MIGRATIONS[:6]) as old, old.transaction() as tx:
        tx.execute(
            "INSERT INTO conversations (id, title, summary, created_at, updated_at)"
            f" VALUES (1, 'the wifi password is {SECRET}',"
            f" 'The user said their bank PIN is 7719 and wifi password {SECRET}.', 0, 0)"
        )
        for n in range(messages):
            tx.execute(
                "INSERT INTO messages (conversation_id, role, content, created_at)"
                " VALUES (1, 'user', ?, ?)",
                (f"note {n}: the wifi password at the cabin is {SECRET}", n),
            )
        call = {"tool": "search_memory", "arguments": {"query": f"password {SECRET}"}}
        tx.execute(
            "INSERT INTO messages (conversation_id, role, content, created_at, metadata)"
            " VALUES (1, 'tool', ?, 1e9, ?)",
            (
                json.dumps({"found": [f"my PIN is 4821 and my password is {SECRET}"]}),
                json.dumps(call),
            ),
        )


def _on_disk(path: Path) -> list[str]:
    files = [path, Path(f"{path}-wal")]
    return [str(f) for f in files if f.exists() and SECRET.encode() in f.read_bytes()]


def test_the_secrets_an_older_version_stored_are_taken_out_everywhere(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    _old_database(path, messages=BATCH + 5)  # more than one batch
    with open_database(path) as database:
        store = ConversationStore(database)

        changed = sweep_stored_secrets(store)

        assert changed == BATCH + 6 + 1  # the messages, then the conversation
        assert (
            database.fetch_value(
                "SELECT count(*) FROM messages WHERE content LIKE ? OR metadata LIKE ?",
                (f"%{SECRET}%", f"%{SECRET}%"),
            )
            == 0
        )
        assert (
            database.fetch_value(
                "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (f'"{SECRET}"',)
            )
            == 0
        )
        conversation = store.get(1)
        assert conversation is not None and SECRET not in conversation.title
        assert conversation.summary is not None and "7719" not in conversation.summary
        tool = next(m for m in store.messages(1) if m.role == "tool")
        assert json.loads(tool.content) == {
            "found": ["my PIN is [redacted password] and my password is [redacted password]"]
        }
        assert store.messages(1)[0].content == (
            "note 0: the wifi password at the cabin is [redacted password]"
        )
        assert sweep_stored_secrets(store) == 0  # once only
    assert _on_disk(path) == []


def test_messages_stored_since_are_not_checked_again(tmp_path: Path) -> None:
    with open_database(tmp_path / "reverie.sqlite3") as database:
        store = ConversationStore(database)
        conversation = store.create("c")
        store.add_message(conversation.id, "user", "kept as the chat stored it")

        assert store.rewrite_unchecked(lambda m: m, 10) == (0, 0)


def test_a_sweep_stopped_goes_on_where_it_was(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    _old_database(path, messages=3)
    with open_database(path) as database:
        store = ConversationStore(database)
        stopped = JobControl()
        stopped.cancel()

        assert sweep_stored_secrets(store, stopped) == 0
        assert (
            sweep_stored_secrets(store) == 4 + 1
        )  # three notes and the tool call, then the conversation


def test_the_snapshots_an_older_version_took_lose_the_secrets_too(tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite3"
    _old_database(old, messages=3)
    folder = tmp_path / "snapshots"
    with open_database(old, migrations=MIGRATIONS[:6]) as database:
        taken = [
            take_snapshot(database, folder, stamp, skills_dir=None, keep=3)
            for stamp in ("20260101-000000", "20260102-000000")
        ]
    assert all(SECRET.encode() in path.read_bytes() for path in taken)
    with open_database(tmp_path / "reverie.sqlite3") as database:
        assert sweep_snapshots(database, folder) == 2

        assert sweep_snapshots(database, folder) == 0  # once only
    for path in taken:
        assert _on_disk(path) == []
        with open_database(path) as copy:  # it still opens, as a restore would
            assert ConversationStore(copy).messages(1)[0].content == (
                "note 0: the wifi password at the cabin is [redacted password]"
            )


def test_the_snapshots_are_swept_only_once_no_copy_is_being_written(tmp_path: Path) -> None:
    """A dream's copy being written has a journal beside it, as one a kill
    cut short does: the sweep, not waiting, would roll it back (round 13)."""
    folder = tmp_path / "snapshots"
    folder.mkdir()
    held = SnapshotsLock(folder)
    with open_database(tmp_path / "reverie.sqlite3") as database:
        sweep = threading.Thread(target=sweep_snapshots, args=(database, folder), daemon=True)
        with waiting_for_snapshots() as waiting, held.held("A dream's safety copy"):
            sweep.start()
            assert waiting.wait(60)  # the sweep waits for the copy
        sweep.join(60)
        assert not sweep.is_alive()


def test_a_damaged_snapshot_is_left_as_it_is(tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite3"
    _old_database(old, messages=3)
    folder = tmp_path / "snapshots"
    with open_database(old, migrations=MIGRATIONS[:6]) as database:
        damaged = take_snapshot(database, folder, "20260101-000000", skills_dir=None, keep=3)
    data = bytearray(damaged.read_bytes())
    data[100:] = b"\xff" * (len(data) - 100)  # the header whole, every page broken
    damaged.write_bytes(bytes(data))
    headless = folder / "before-dream-20260102-000000.sqlite3"  # page size 0
    headless.write_bytes(b"SQLite format 3\x00" + b"\x00" * 84 + b"not a database" * 100)
    with open_database(tmp_path / "reverie.sqlite3") as database:
        assert sweep_snapshots(database, folder) == 0

    assert damaged.read_bytes() == bytes(data)


def test_a_sweep_cut_short_after_its_last_batch_still_sweeps_titles_and_index(
    tmp_path: Path,
) -> None:
    path = tmp_path / "reverie.sqlite3"
    _old_database(path, messages=3)
    with open_database(path) as database:
        store = ConversationStore(database)
        # The last batch committed, then the process was killed.
        assert store.rewrite_unchecked(_redacted, BATCH) == (4, 4)

        assert sweep_stored_secrets(store) == 1  # the conversation's title and summary

        conversation = store.get(1)
        assert conversation is not None and SECRET not in conversation.title
        assert (
            database.fetch_value(
                "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (f'"{SECRET}"',)
            )
            == 0
        )
        assert sweep_stored_secrets(store) == 0  # finished: once only
    assert _on_disk(path) == []


def test_a_rename_while_titles_are_swept_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "reverie.sqlite3"
    _old_database(path, messages=1)
    with open_database(path) as database:
        store = ConversationStore(database)
        store.rewrite_unchecked(_redacted, BATCH)

        def rename_meanwhile(text: str) -> str:
            store.rename(1, "Garden plans")  # the user, while the sweep redacts
            return redact(text).text

        store.rewrite_titles(rename_meanwhile)

        conversation = store.get(1)
        assert conversation is not None and conversation.title == "Garden plans"
