"""A database with a damaged page, as a bad sector or a stray write leaves it."""

from __future__ import annotations

import os
import random
from pathlib import Path

from desktop.app import build_core
from desktop.core.base.paths import AppPaths, resolve_paths
from desktop.core.db import (
    DEFAULT_CANDIDATES,
    ConversationStore,
    open_copy,
    open_database,
    select_driver,
)
from desktop.core.dreaming.snapshots import take_snapshot


def garble_an_index(path: Path) -> None:
    """Overwrite the root page of the messages' index of conversations with
    random bytes: the tables read as before, SQLite's check fails."""
    with open_database(path) as database:
        root = database.fetch_value(
            "SELECT rootpage FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'messages'"
            " ORDER BY name LIMIT 1"
        )
        page_size = database.pragma("page_size")
        assert database.truncate_wal()  # every page in the file, none in the WAL
    with path.open("r+b") as file:
        file.seek((root - 1) * page_size)
        file.write(os.urandom(page_size))


def unmatch_an_index(path: Path) -> None:
    """Overwrite each message's id in the messages' index of conversations
    (one leaf page, its root) with 2, as a stray write might: every cell
    still reads and the keys stay in order, so SQLite's quick check passes,
    but the entries no longer match their rows.  *path* may be a snapshot:
    it is opened as it is, neither migrated nor switched to WAL."""
    with open_copy(path, select_driver(DEFAULT_CANDIDATES)) as database:
        root = database.fetch_value(
            "SELECT rootpage FROM sqlite_schema WHERE name = 'messages_by_conversation'"
        )
        page_size = database.pragma("page_size")
        assert database.truncate_wal()
    with path.open("r+b") as file:
        file.seek((root - 1) * page_size)
        page = bytearray(file.read(page_size))
        assert page[0] == 0x0A  # a leaf of an index: its cells follow an 8-byte header
        for n in range(int.from_bytes(page[3:5], "big")):
            cell = int.from_bytes(page[8 + 2 * n : 10 + 2 * n], "big")
            # size, header size, the types of the conversation's id (the constant
            # 1), the message's id and the row id (one byte each, past id 1)
            if page[cell + 1 : cell + 5] == bytes([4, 9, 1, 1]):
                page[cell + 5] = 2  # the message's id; the row id after it stays
        file.seek((root - 1) * page_size)
        file.write(page)


def with_free_pages(path: Path) -> None:
    """A conversation of long messages added to the database at *path* and
    deleted, so the file has a list of free pages (all of it in the file)."""
    with open_database(path) as database:
        store = ConversationStore(database)
        conversation = store.create("Long")
        for n in range(40):
            store.add_message(conversation.id, "user", f"{n} " + "pine needles " * 300)
        with database.transaction() as tx:
            tx.execute("DELETE FROM conversations WHERE id = ?", (conversation.id,))
        assert database.truncate_wal()


def damage_the_free_list(path: Path, seed: int) -> None:
    """``with_free_pages``, then four random bytes written at the head of
    its first trunk page (the next trunk, the count of pages it names), as
    a bad sector might: every table still reads."""
    with_free_pages(path)
    with path.open("r+b") as file:
        header = file.read(100)
        page_size, trunk = (
            int.from_bytes(header[16:18], "big"),
            int.from_bytes(header[32:36], "big"),
        )
        assert trunk  # the deletion freed pages
        chance = random.Random(seed)
        file.seek((trunk - 1) * page_size + chance.randrange(8))
        file.write(chance.randbytes(4))


def with_frames_left(path: Path) -> None:
    """A conversation added to the database at *path* as it is (neither
    migrated nor checked), and the file and its WAL left as a kill before
    the checkpoint leaves them: the conversation in the WAL alone."""
    with open_copy(path, select_driver(DEFAULT_CANDIDATES)) as database:
        database.set_pragma("wal_autocheckpoint", 0)
        with database.transaction() as tx:
            tx.execute(
                "INSERT INTO conversations (title, created_at, updated_at)"
                " VALUES ('After the damage', 1, 1)"
            )
        left = {suffix: Path(f"{path}{suffix}").read_bytes() for suffix in ("", "-wal")}
    for suffix, data in left.items():
        Path(f"{path}{suffix}").write_bytes(data)
    Path(f"{path}-shm").unlink(missing_ok=True)


def garble_the_schema(path: Path) -> None:
    """Overwrite the b-tree header of page 1, the schema's: SQLite cannot
    open the file at all."""
    with open_database(path) as database:
        assert database.truncate_wal()
    with path.open("r+b") as file:
        file.seek(100)
        file.write(b"\xff" * 12)


def overwrite_header_byte(path: Path, offset: int, value: int) -> None:
    """Set byte *offset* of the database header (page 1's first 100 bytes)
    to *value*, as a bad sector might: the pages below stay whole."""
    with open_database(path) as database:
        assert database.truncate_wal()
    with path.open("r+b") as file:
        file.seek(offset)
        file.write(bytes([value]))


def filled(path: Path) -> None:
    """A database at *path* with one conversation of 40 messages."""
    with open_database(path) as database:
        store = ConversationStore(database)
        conversation = store.create("Plants")
        for n in range(40):
            store.add_message(conversation.id, "user", f"The fern needs water, day {n}.")


def home_with_a_copy(tmp_path: Path) -> tuple[AppPaths, Path]:
    """A Reverie home under *tmp_path* whose database is ``filled``, and the
    copy of it a dream took before it (its path)."""
    paths = resolve_paths({"REVERIE_HOME": str(tmp_path / "home")})
    paths.ensure()
    filled(paths.database_file)
    with open_database(paths.database_file) as database:
        copy = take_snapshot(
            database, paths.snapshots_dir, "20261130T010000Z", skills_dir=None, keep=3
        )
    return paths, copy


# Opens the copy as any SQLite program would, changes it, and dies before
# the commit: the copy's rollback journal stays beside it, hot.
KILLED_MID_CHANGE = """
import os, signal, sqlite3, sys
copy = sqlite3.connect(sys.argv[1], isolation_level=None)
copy.execute("PRAGMA cache_size = 1")  # changed pages reach the file before the commit
copy.execute("BEGIN IMMEDIATE")
copy.execute("UPDATE messages SET created_at = created_at + 1")
os.kill(os.getpid(), signal.SIGKILL)
"""


def said_at_a_start_without_it(paths: AppPaths) -> str:
    """What a start (``build_core``) that did not open the database at
    *paths* says of it."""
    core = build_core(paths)
    try:
        assert core.database is None
        [said] = [p for p in core.problems if str(paths.database_file) in p]
    finally:
        core.close()
    return said
