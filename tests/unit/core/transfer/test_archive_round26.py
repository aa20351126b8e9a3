"""Round 26: an export held the whole database in memory; and one read
while something was erased kept what was erased.

Every row of every table was read into lists of dicts, each table then
joined into one bytes object for its hash, and the whole zip built in
memory before a byte reached the disk: an export of a large database
(200,000 messages) took several times its size in memory, and a machine
short of it killed the app mid-export.  The rows are now read from one
moment of the database twice, one by one (hashed for the manifest, then
written), so what an export holds does not grow with the database.

A conversation erased while an export wrote its archive (read before the
erasure) was in the archive, after the user was told it is gone: such an
archive is now not kept, and the export says to export again.
"""

from __future__ import annotations

import json
import tracemalloc
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.db.archive_rows import ArchivedTable, ArchiveRows
from desktop.core.db.purge import Erasable, PurgeStore
from desktop.core.transfer.archive import ArchiveProblem, export_archive
from desktop.core.transfer.archive_read import read_archive
from tests.unit.core.transfer.archive_world import folder, open_folder

SMALL = 1_500
LARGE = 6_000
TEXT = "The user walked the ridge above Lake Bled and counted {n} larches on the way down. "


def _fill(database: Database, messages: int, repeated: int = 4) -> None:
    """*messages* messages in one conversation, each *TEXT* *repeated* times."""
    store = ConversationStore(database)
    conversation = store.create("A long one")
    with database.transaction() as tx:
        for n in range(messages):
            # The store's own insert, as a long chat leaves them (fast: one transaction).
            tx.execute(
                "INSERT INTO messages (conversation_id, role, content, created_at)"
                " VALUES (?, 'user', ?, ?)",
                (conversation.id, TEXT.format(n=n) * repeated, 1_700_000_000.0 + n),
            )


def _peak_of_export(root: Path, messages: int) -> int:
    paths = folder(root)
    database = open_folder(paths)
    try:
        _fill(database, messages)
        tracemalloc.start()
        try:
            export_archive(database, paths, root / "all.reverie.zip")
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    finally:
        database.close()


@pytest.mark.slow
def test_an_export_four_times_larger_takes_about_the_same_memory(tmp_path: Path) -> None:
    small = _peak_of_export(tmp_path / "small", SMALL)
    large = _peak_of_export(tmp_path / "large", LARGE)

    # Held whole, four times the rows take four times the memory (and more).
    assert large < 1.5 * small, (small, large)


def test_what_is_exported_in_one_pass_is_what_the_manifest_says(tmp_path: Path) -> None:
    paths = folder(tmp_path / "one")
    database = open_folder(paths)
    try:
        _fill(database, 300)
        target = tmp_path / "all.reverie.zip"
        summary = export_archive(database, paths, target)
    finally:
        database.close()

    archive = read_archive(target)  # checks every entry against the manifest's hash and rows
    assert summary.counts["messages"] == len(archive.tables["messages"]) == 300
    with zipfile.ZipFile(target) as opened:
        assert opened.namelist()[0] == "manifest.json"
        manifest = json.loads(opened.read("manifest.json"))
    assert manifest["entries"]["tables/messages.jsonl"]["rows"] == 300


def test_an_export_during_which_something_was_erased_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The export reads one moment of the database: a conversation erased
    # ("Delete now") while it writes is still in that moment, and the
    # archive would hold what the user was just told is gone.
    paths = folder(tmp_path / "one")
    database = open_folder(paths)
    store = ConversationStore(database)
    gone = store.create("Gone")
    store.add_message(gone.id, "user", "My Zorblattian diary, erase it please.")
    store.delete(gone.id)
    each = ArchiveRows.each
    erased: list[int] = []

    def erased_meanwhile(table: ArchivedTable, reader: Database) -> Iterator[dict[str, Any]]:
        if table.name == "messages" and not erased:
            erased.append(gone.id)
            PurgeStore(database).erase(Erasable(conversation_ids=(gone.id,)), 1_700_000_000.0)
        return each(table, reader)

    monkeypatch.setattr(ArchiveRows, "each", staticmethod(erased_meanwhile))
    target = tmp_path / "all.reverie.zip"
    try:
        with pytest.raises(ArchiveProblem, match="erased"):
            export_archive(database, paths, target)
        assert erased
        assert not target.exists()
        assert [p.name for p in target.parent.iterdir() if "reverie.zip" in p.name] == []

        monkeypatch.undo()
        export_archive(database, paths, target)  # again: without it
    finally:
        database.close()
    assert b"zorblattian" not in b"".join(
        zipfile.ZipFile(target).read(name).lower() for name in zipfile.ZipFile(target).namelist()
    )
