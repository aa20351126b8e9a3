"""Round 24: an archive's text is redacted again as it comes in.

An archive holds the text as the database that wrote it held it: from a
Reverie whose rules missed a phrasing, or edited by hand, a password came
into the database that imported it word for word, in a message, a memory,
a task, a title, a dream's record of a change (found by round 24's
attacker of the memory surface)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore
from desktop.core.transfer.archive import export_archive
from desktop.core.transfer.archive_import import run
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import World, fill, folder, open_folder

SECRET = "Kettle42!q"
SAID = f"my wifi password is {SECRET}"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    world = fill(folder(tmp_path / "source"))
    yield world
    world.database.close()


def _stored_unredacted(world: World) -> None:
    """Text as a Reverie of fewer rules stored it (written past the stores)."""
    payload = json.dumps({"memory": 1, "text": SAID})
    with world.database.transaction() as tx:
        tx.execute(
            "UPDATE messages SET content = ? WHERE id = (SELECT min(id) FROM messages)", (SAID,)
        )
        tx.execute(
            "UPDATE memories SET content = ? WHERE id = (SELECT min(id) FROM memories)", (SAID,)
        )
        tx.execute("UPDATE tasks SET text = ? WHERE id = (SELECT min(id) FROM tasks)", (SAID,))
        tx.execute(
            "UPDATE conversations SET title = ? WHERE id = (SELECT min(id) FROM conversations)",
            (SAID,),
        )
        tx.execute("UPDATE dream_changes SET payload = ?", (payload,))


@pytest.mark.parametrize("fresh", [True, False], ids=["restored", "merged"])
def test_a_password_in_an_archive_does_not_come_into_the_database(
    world: World, tmp_path: Path, fresh: bool
) -> None:
    _stored_unredacted(world)
    summary = export_archive(world.database, world.paths, tmp_path / "all.zip")
    paths = folder(tmp_path / "imported")
    database = open_folder(paths)
    try:
        if not fresh:  # a data folder holding a conversation: merged into
            store = ConversationStore(database)
            store.add_message(store.create("Mine").id, "user", "hello")
        done = run(summary.path, database, paths, PlainState())
        assert done.added("messages") > 0 and done.added("memories") > 0
        rows = database.fetch_all(
            "SELECT content FROM messages UNION ALL SELECT content FROM memories"
            " UNION ALL SELECT text FROM tasks UNION ALL SELECT title FROM conversations"
            " UNION ALL SELECT payload FROM dream_changes"
        )
        stored = "\n".join(str(value) for (value,) in rows)
        assert SECRET not in stored
        assert "my wifi password is [redacted password]" in stored  # the rest kept
    finally:
        database.close()
    for file in paths.database_file.parent.glob(paths.database_file.name + "*"):
        assert SECRET.encode() not in file.read_bytes(), file.name
