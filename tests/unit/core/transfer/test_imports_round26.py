"""Round 26: an unpacked export's manifest was read whole, whatever its size.

``export_manifest.json`` is read only for the shards it names (an export's
list of its files: kilobytes).  An unpacked folder's was read whole, so a
manifest of 256 MB took 256 MB before the import could start, and one of
the machine's memory could end it.  A manifest larger than any export's is
not read: it costs only the check it adds, in a folder and in a .zip."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.privacy import known_words
from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.export_files import MANIFEST_MOST
from desktop.core.transfer.foreign import ExportRefused
from desktop.core.transfer.imports import Imports
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import folder, open_folder
from tests.unit.core.transfer.exports import chatgpt_line, write_zip


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[tuple[Database, Imports]]:
    paths = folder(tmp_path / "fresh")
    database = open_folder(paths)
    yield database, Imports(database, paths, Redactor())
    database.close()


def test_a_huge_manifest_in_a_folder_is_not_read(
    fresh: tuple[Database, Imports], tmp_path: Path
) -> None:
    database, imports = fresh
    export = tmp_path / "export"
    export.mkdir()
    conversations = [chatgpt_line("soup", "Soup", "A recipe?", "Leeks.")]
    (export / "conversations.json").write_text(json.dumps(conversations), encoding="utf-8")
    with (export / "export_manifest.json").open("wb") as manifest:
        manifest.truncate(16 * MANIFEST_MOST)  # 256 MB, on disk as a hole

    known_words.load()  # the redactor's word lists, read once for the whole process
    tracemalloc.start()
    try:
        plan = imports.preview(export)
        done = imports.run(export, learn=False, state=PlainState())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert plan.adds and done.imported, done.lines
    assert [c.title for c in ConversationStore(database).list()] == ["Soup"]
    assert peak < 2 * MANIFEST_MOST


def test_a_manifest_just_within_the_bound_is_still_checked(
    fresh: tuple[Database, Imports], tmp_path: Path
) -> None:
    _, imports = fresh
    conversations = json.dumps([chatgpt_line("soup", "Soup", "A recipe?", "Leeks.")])
    names = {"files": ["conversations-000.json", "conversations-001.json"]}
    manifest = json.dumps(names).ljust(MANIFEST_MOST)  # padded with spaces: still JSON
    path = write_zip(
        tmp_path / "export.zip",
        {"conversations-000.json": conversations, "export_manifest.json": manifest},
    )

    with pytest.raises(ExportRefused, match=r"conversations-001\.json is missing"):
        imports.preview(path)
