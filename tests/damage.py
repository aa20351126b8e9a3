"""A database with a damaged page, as a bad sector or a stray write leaves it."""

from __future__ import annotations

import os
from pathlib import Path

from desktop.core.db import ConversationStore, open_database


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


def filled(path: Path) -> None:
    """A database at *path* with one conversation of 40 messages."""
    with open_database(path) as database:
        store = ConversationStore(database)
        conversation = store.create("Plants")
        for n in range(40):
            store.add_message(conversation.id, "user", f"The fern needs water, day {n}.")
