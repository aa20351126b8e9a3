"""Round 21's attack on merging archives: the same ChatGPT conversation
imported on two machines.  Before round 21 an archive holding a ChatGPT
conversation that the receiving Reverie had imported too, continued since
(a later export) or renamed, was refused whole: its row broke the database's
rule that a source's conversation is there once ('UNIQUE constraint failed:
conversations.imported_from, conversations.external_id'), so nothing else
of the archive came in either."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, Database
from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.archive import export_archive
from desktop.core.transfer.archive_import import run
from desktop.core.transfer.history import HistoryImporter
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import folder, open_folder
from tests.unit.core.transfer.exports import chatgpt_line, write_json


def _import_chatgpt(database: Database, export: Path) -> int:
    result = HistoryImporter(ConversationStore(database), Redactor()).run(
        export, True, PlainState()
    )
    return result.imported[0].conversation_id


def _continued(database: Database, first: Path) -> None:
    """Imported from a later ChatGPT export, where it went on."""
    later = [chatgpt_line("c1", "Soup", "hello", "hi there", "and now?", "now soup")]
    _import_chatgpt(database, write_json(first.with_name("later.json"), later))


def _renamed(database: Database, first: Path) -> None:
    ConversationStore(database).rename(_import_chatgpt(database, first), "Soup, renamed")


@pytest.mark.parametrize("changed_there", [_continued, _renamed], ids=["continued", "renamed"])
def test_a_chatgpt_conversation_imported_on_both_sides_is_kept_once(
    tmp_path: Path, changed_there: Callable[[Database, Path], None]
) -> None:
    first = write_json(tmp_path / "first.json", [chatgpt_line("c1", "Soup", "hello", "hi there")])
    laptop: AppPaths = folder(tmp_path / "laptop")
    database = open_folder(laptop)
    _import_chatgpt(database, first)
    store = ConversationStore(database)
    store.add_message(store.create("Laptop only").id, "user", "Only said on the laptop.")
    archive = export_archive(database, laptop, tmp_path / "laptop.zip").path
    database.close()

    desktop = folder(tmp_path / "desktop")
    database = open_folder(desktop)
    try:
        store = ConversationStore(database)
        changed_there(database, first)
        kept = {c.id: (c.title, len(store.messages(c.id))) for c in store.list()}

        done = run(archive, database, desktop, PlainState())

        assert done.counts["conversations"] == {"added": 1, "present": 1, "left_out": 0}
        titles = sorted(c.title for c in store.list())
        assert titles == sorted([*(title for title, _ in kept.values()), "Laptop only"])
        assert all(len(store.messages(i)) == count for i, (_, count) in kept.items())
        assert any("yours were kept" in note for note in done.notes)
        again = run(archive, database, desktop, PlainState())
        assert not any(counts["added"] for counts in again.counts.values())
    finally:
        database.close()
