"""An archive that is not whole, not Reverie's, malformed or newer is refused
with its reason, and nothing of it reaches the database."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.db.archive_rows import ArchiveRows
from desktop.core.transfer.archive import MANIFEST, ArchiveRefused, export_archive
from desktop.core.transfer.archive_import import preview, run
from desktop.core.transfer.archive_read import is_archive, read_archive
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import fill, folder, open_folder

Entries = dict[str, bytes]


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("refused")
    world = fill(folder(root / "source"))
    target = root / "good.zip"
    try:
        export_archive(world.database, world.paths, target)
    finally:
        world.database.close()
    return target


@pytest.fixture
def target(tmp_path: Path) -> Iterator[tuple[Database, Path]]:
    paths = folder(tmp_path / "target")
    database = open_folder(paths)
    conversation = ConversationStore(database).create("Already here")
    ConversationStore(database).add_message(conversation.id, "user", "hello")
    yield database, tmp_path
    database.close()


def _entries(path: Path) -> Entries:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _write(path: Path, entries: Entries) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


def _manifest(entries: Entries) -> dict[str, object]:
    loaded: dict[str, object] = json.loads(entries[MANIFEST])
    return loaded


def _newer(entries: Entries) -> Entries:
    manifest = _manifest(entries) | {"format_version": 2, "app_version": "9.0"}
    return entries | {MANIFEST: json.dumps(manifest).encode()}


def _not_json(entries: Entries) -> Entries:
    return entries | {MANIFEST: b"{not json"}


def _another_format(entries: Entries) -> Entries:
    return entries | {MANIFEST: json.dumps(_manifest(entries) | {"format": "x"}).encode()}


def _altered(entries: Entries) -> Entries:
    return entries | {"tables/tasks.jsonl": entries["tables/tasks.jsonl"].replace(b"Pack", b"Sack")}


def _missing_entry(entries: Entries) -> Entries:
    return {name: data for name, data in entries.items() if name != "tables/messages.jsonl"}


def _missing_field(entries: Entries) -> Entries:
    return _resealed(
        entries, "tables/tasks.jsonl", lambda row: {k: v for k, v in row.items() if k != "text"}
    )


def _unusable_skill_file(entries: Entries) -> Entries:
    return _resealed(entries, "tables/skills.jsonl", lambda row: row | {"file_name": "../x.md"})


def _broken_row(entries: Entries) -> Entries:
    """Well formed, and refused by the database: a role messages cannot have."""
    return _resealed(entries, "tables/messages.jsonl", lambda row: row | {"role": "robot"})


def _resealed(
    entries: Entries, name: str, change: Callable[[dict[str, object]], dict[str, object]]
) -> Entries:
    """*entries* with each row of *name* changed, its manifest agreeing."""
    lines = entries[name].decode().splitlines()
    data = "".join(json.dumps(change(json.loads(line))) + "\n" for line in lines).encode()
    manifest = _manifest(entries)
    described = manifest["entries"]
    assert isinstance(described, dict)
    described[name]["sha256"] = hashlib.sha256(data).hexdigest()
    return entries | {name: data, MANIFEST: json.dumps(manifest).encode()}


@pytest.mark.parametrize(
    ("spoil", "reason"),
    [
        (_newer, "newer Reverie"),
        (_not_json, "not JSON"),
        (_another_format, "not a Reverie archive"),
        (_altered, "not what its manifest says"),
        (_missing_entry, "missing"),
        (_missing_field, "lacks text"),
        (_unusable_skill_file, "unusable file name"),
        (_broken_row, "cannot be stored"),
    ],
)
def test_a_spoiled_archive_is_refused_and_changes_nothing(
    good: Path,
    target: tuple[Database, Path],
    spoil: Callable[[Entries], Entries],
    reason: str,
) -> None:
    database, folder_root = target
    paths = folder(folder_root / "target")
    spoiled = _write(folder_root / "spoiled.zip", spoil(_entries(good)))
    before = _dump(database)
    with pytest.raises(ArchiveRefused, match=reason):
        run(spoiled, database, paths, PlainState())
    assert _dump(database) == before
    assert not paths.skills_dir.exists() or not list(paths.skills_dir.rglob("*.md"))


def test_a_truncated_archive_is_refused(good: Path, target: tuple[Database, Path]) -> None:
    database, folder_root = target
    cut = folder_root / "cut.zip"
    data = good.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    assert not is_archive(cut)
    before = _dump(database)
    with pytest.raises(ArchiveRefused, match="not a whole zip file"):
        preview(cut, database, folder(folder_root / "target"))
    with pytest.raises(ArchiveRefused):
        run(cut, database, folder(folder_root / "target"), PlainState())
    assert _dump(database) == before


def test_a_file_that_is_no_zip_is_not_an_archive(tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    assert not is_archive(other)
    assert not is_archive(tmp_path / "missing.zip")
    with pytest.raises(ArchiveRefused, match="not a whole zip file"):
        read_archive(other)


def _dump(database: Database) -> dict[str, list[dict[str, object]]]:
    rows = ArchiveRows(database)
    return {table.name: rows.rows(table) for table in rows.iter_tables()}


def test_a_field_of_a_later_version_is_left_out(good: Path, tmp_path: Path) -> None:
    later = _resealed(_entries(good), "tables/tasks.jsonl", lambda row: row | {"colour": "red"})
    archive = read_archive(_write(tmp_path / "later.zip", later))
    assert archive.tables["tasks"] and all("colour" not in t for t in archive.tables["tasks"])
