"""Round 22: where an archive may be written.  ``reverie export --force``
naming Reverie's own database replaced it with the archive: every
conversation and memory gone, the next start refused ("the file is not a
database").  The same went for its settings, a model, a skill, a snapshot,
the log, through a link to any of them too, and for the export window, which
writes through the same function.  Reverie's own files are now refused as a
target and left as they were."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths, OwnFileRefused
from desktop.core.db import ConversationStore, MemoryStore, open_database
from desktop.core.memory.export import export_jsonl, export_markdown
from desktop.core.transfer.archive import export_archive
from tests.unit.core.transfer.archive_world import fill, folder

Own = Callable[[AppPaths], Path]


def _made(path: Path, data: bytes = b"kept") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


OWN: dict[str, Own] = {
    "database": lambda paths: paths.database_file,
    "its wal": lambda paths: _made(paths.data_dir / "reverie.sqlite3-wal"),
    "settings": lambda paths: _made(paths.settings_file, b"{}"),
    "a model": lambda paths: _made(paths.models_dir / "tiny.gguf", b"GGUF"),
    "a skill": lambda paths: _made(paths.skills_dir / "cooking.md"),
    "a snapshot": lambda paths: _made(paths.snapshots_dir / "before-dream.sqlite3"),
    "the log": lambda paths: _made(paths.log_dir / "reverie.log"),
    "a prompt": lambda paths: _made(paths.prompts_dir / "chat.md"),
    "the working set": lambda paths: _made(paths.working_set_file),
    "the models folder": lambda paths: paths.models_dir,
}


@pytest.mark.parametrize("own", OWN.values(), ids=OWN.keys())
@pytest.mark.parametrize("through_a_link", [False, True], ids=["named", "linked"])
def test_an_export_over_reverie_s_own_files_is_refused_and_leaves_them_as_they_were(
    tmp_path: Path, own: Own, through_a_link: bool
) -> None:
    world = fill(folder(tmp_path / "home"))
    paths = world.paths
    paths.ensure()
    target = own(paths)
    before = target.read_bytes() if target.is_file() else None
    named = target
    if through_a_link:
        named = tmp_path / "elsewhere" / "backup.zip"
        named.parent.mkdir()
        os.symlink(target, named)

    with pytest.raises(OwnFileRefused, match="one of Reverie's own files"):
        export_archive(world.database, paths, named, overwrite=True)

    if before is not None:
        assert target.read_bytes() == before
    assert ConversationStore(world.database).list()
    world.database.close()
    open_database(paths.database_file).close()  # still a database


def test_an_archive_is_written_beside_reverie_s_files_and_anywhere_else(tmp_path: Path) -> None:
    world = fill(folder(tmp_path / "home"))
    for target in (world.paths.data_dir / "backup.reverie.zip", tmp_path / "backup.zip"):
        export_archive(world.database, world.paths, target)
        assert target.read_bytes()[:2] == b"PK"
    world.database.close()


@pytest.mark.parametrize("export", [export_jsonl, export_markdown])
def test_memories_are_never_exported_over_reverie_s_own_files(
    tmp_path: Path, export: Callable[..., int]
) -> None:
    """The memory browser's export (JSON Lines, Markdown) wrote over the
    database as readily: the app went on with the file it had open, and the
    next start found a Markdown file where its database was."""
    world = fill(folder(tmp_path / "home"))
    database_file = world.paths.database_file
    before = database_file.read_bytes()
    memories, conversations = MemoryStore(world.database), ConversationStore(world.database)

    with pytest.raises(OwnFileRefused):
        export(memories, conversations, database_file, world.paths)

    assert database_file.read_bytes() == before
    assert export(memories, conversations, tmp_path / "memories.out", world.paths) > 0
    world.database.close()
