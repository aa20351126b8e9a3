"""A message an erased memory was learned from stays unrecalled through an
archive: restored into a fresh folder, "My fern is called Gerald" would
otherwise be recalled into replies again, though the user had Reverie forget
it.  An archive written before the mark existed (no entry for it) still reads."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from desktop.core.db import ConversationStore, Database, MemoryStore
from desktop.core.db.message_search import MessageSearch
from desktop.core.transfer.archive import MANIFEST, export_archive
from desktop.core.transfer.archive_import import run
from desktop.core.transfer.archive_read import read_archive
from desktop.core.transfer.progress import PlainState
from tests.erasers import eraser_for
from tests.unit.core.transfer.archive_world import fill, folder, open_folder

_ENTRY = "tables/forgotten_messages.jsonl"


def _forgotten_fern(tmp_path: Path) -> tuple[Path, str]:
    """An archive of a folder in which a memory learned from a message was
    erased; the archive and the message's words."""
    world = fill(folder(tmp_path / "source"))
    try:
        conversations = ConversationStore(world.database)
        plants = conversations.create("Plants")
        said = conversations.add_message(plants.id, "user", "My fern is called Gerald.")
        memory = MemoryStore(world.database).add(
            "The user's fern is called Gerald.",
            embedding=None,
            source_kind="harvested",
            actor="harvest",
            source_message_ids=[said.id],
        )
        eraser_for(world.database, world.paths).erase_memories([memory.id])
        assert _findable(world.database, said.content) is False
        target = tmp_path / "everything.reverie.zip"
        export_archive(world.database, world.paths, target)
        return target, said.content
    finally:
        world.database.close()


def _findable(database: Database, words: str) -> bool | None:
    """Whether the message saying *words* may be recalled (None: not there)."""
    row = database.fetch_one("SELECT id FROM messages WHERE content = ?", (words,))
    if row is None:
        return None
    return bool(MessageSearch(database).excerpts([int(row[0])]))


def _restored(archive: Path, into: Path) -> Database:
    paths = folder(into)
    database = open_folder(paths)
    result = run(archive, database, paths, PlainState())
    assert not result.cancelled and result.fresh
    return database


def test_a_restored_archive_keeps_what_an_erased_memory_was_learned_from_unrecalled(
    tmp_path: Path,
) -> None:
    archive, words = _forgotten_fern(tmp_path)
    assert len(read_archive(archive).tables["forgotten_messages"]) == 1
    database = _restored(archive, tmp_path / "fresh")
    try:
        assert _findable(database, words) is False
        assert _findable(database, "I love hiking in the Alps.") is True
    finally:
        database.close()


def test_an_archive_written_before_the_mark_existed_is_read_as_marking_nothing(
    tmp_path: Path,
) -> None:
    archive, words = _forgotten_fern(tmp_path)
    older = tmp_path / "older.reverie.zip"
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(older, "w") as copy:
        for entry in source.infolist():
            data = source.read(entry)
            if entry.filename == _ENTRY:
                continue
            if entry.filename == MANIFEST:
                manifest = json.loads(data)
                del manifest["entries"][_ENTRY]
                data = json.dumps(manifest).encode()
            copy.writestr(entry, data)
    assert list(read_archive(older).tables["forgotten_messages"]) == []
    database = _restored(older, tmp_path / "fresh")
    try:
        assert _findable(database, words) is True  # the older archive did not know
    finally:
        database.close()
