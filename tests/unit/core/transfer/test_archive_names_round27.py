"""Round 27: a skill's file name in an archive holding a control character
(``x\\x01y.md``) was written to the skills folder as it was; a name Reverie
never writes (a skill's name refuses them) is refused with the archive."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.db import Database
from desktop.core.transfer.archive import ArchiveRefused
from desktop.core.transfer.archive_import import run
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import folder
from tests.unit.core.transfer.test_archive_refused import (  # noqa: F401 (fixtures)
    Entries,
    _dump,
    _entries,
    _resealed,
    _write,
    good,
    target,
)


def _named(entries: Entries, new: str) -> Entries:
    """*entries* with the first skill's file named *new*, the manifest agreeing."""
    skills = entries["tables/skills.jsonl"].decode().splitlines()
    old = json.loads(skills[0])["file_name"]
    resealed = _resealed(
        entries,
        "tables/skills.jsonl",
        lambda row: row | {"file_name": new} if row["file_name"] == old else row,
    )
    renamed = {
        (name[: -len(old)] + new if name.endswith("/" + old) else name): data
        for name, data in resealed.items()
    }
    manifest = json.loads(renamed["manifest.json"])
    manifest["entries"] = {
        (name[: -len(old)] + new if name.endswith("/" + old) else name): described
        for name, described in manifest["entries"].items()
    }
    return renamed | {"manifest.json": json.dumps(manifest).encode()}


@pytest.mark.parametrize("name", ["x\x01y.md", "bell\x07.md", "line\nbreak.md", "del\x7f.md"])
def test_a_skill_file_named_with_a_control_character_is_refused(
    good: Path,  # noqa: F811 (a fixture)
    target: tuple[Database, Path],  # noqa: F811 (a fixture)
    name: str,
) -> None:
    database, root = target
    paths = folder(root / "target")
    spoiled = _write(root / "spoiled.zip", _named(_entries(good), name))
    before = _dump(database)

    with pytest.raises(ArchiveRefused, match="unusable file name"):
        run(spoiled, database, paths, PlainState())

    assert _dump(database) == before
    assert not paths.skills_dir.exists() or not list(paths.skills_dir.rglob("*"))
