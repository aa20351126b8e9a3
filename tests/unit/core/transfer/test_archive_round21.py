"""Round 21's attack on writing an archive: a skill file the user removed
or spoiled by hand in the skills folder.  Before round 21 every export
failed from then on ('The skill file .../.deleted/Packing.md could not be
read'): the library takes a file removed by hand as the skill deleted, and
the export read every skill's file, so nothing could be taken out of
Reverie until the file was put back."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktop.core.transfer.archive import export_archive
from desktop.core.transfer.archive_import import run
from desktop.core.transfer.imports import exported_text
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import World, fill, folder, library, open_folder


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    world = fill(folder(tmp_path / "source"))
    yield world
    world.database.close()


def _removed(file: Path) -> None:
    file.unlink()


def _not_utf8(file: Path) -> None:
    file.write_bytes(b"How to pack\n\xff\xfe socks")


@pytest.mark.parametrize("spoil", [_removed, _not_utf8], ids=["removed", "not UTF-8"])
def test_a_skill_file_spoiled_by_hand_is_left_out_and_the_rest_exported(
    world: World, tmp_path: Path, spoil: Callable[[Path], None]
) -> None:
    spoil(world.paths.skills_dir / "Packing.md")

    summary = export_archive(world.database, world.paths, tmp_path / "all.zip")

    assert summary.counts["skills"] == 1  # the draft
    assert summary.counts["conversations"] == 3
    assert "Left out, their file could not be read: Packing" in exported_text(summary)
    restored = folder(tmp_path / "restored")
    database = open_folder(restored)
    try:
        done = run(summary.path, database, restored, PlainState())
        assert done.added("skills") == 1 and done.added("conversations") == 3
        names = [s.name for s in library(database, restored).list(statuses=("draft",))]
        assert names == ["Draft idea"]
    finally:
        database.close()
