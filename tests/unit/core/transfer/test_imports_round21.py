"""Round 21's attacks on importing another assistant's export: a zip bomb
and a named pipe, through the one way in (``Imports``), which first asks
whether the file is a Reverie archive.  Before round 21 a 1.5 MB .zip whose
``manifest.json`` unpacked to 1.5 GB was read whole by that question (a
MemoryError, or the system killing the app); a ``conversations.json`` of
white space unpacking to gigabytes was read through, char by char, for as
long as that took; a named pipe hung the import waiting for a writer."""

from __future__ import annotations

import json
import os
import tracemalloc
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.db import Database
from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.foreign import ExportRefused
from desktop.core.transfer.imports import Imports
from desktop.core.transfer.unpacking import FREE_BYTES
from tests.unit.core.transfer.archive_world import folder, open_folder
from tests.unit.core.transfer.exports import chatgpt_line

BOMB_BYTES = FREE_BYTES * 2


@pytest.fixture
def imports(tmp_path: Path) -> Iterator[Imports]:
    paths = folder(tmp_path / "data")
    database: Database = open_folder(paths)
    yield Imports(database, paths, Redactor())
    database.close()


def _export_with_bomb(path: Path, bomb: str, head: bytes = b"", tail: bytes = b"") -> Path:
    """A ChatGPT export's .zip whose entry *bomb* is *head*, ``BOMB_BYTES``
    of white space and *tail* (its conversations.json is whole if not the bomb)."""
    conversations = json.dumps([chatgpt_line("c1", "Soup", "hello", "hi")])
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        if bomb != "conversations.json":
            archive.writestr("conversations.json", conversations)
        with archive.open(bomb, "w", force_zip64=True) as entry:
            entry.write(head)
            for _ in range(BOMB_BYTES >> 20):
                entry.write(b" " * (1 << 20))
            entry.write(tail)
    assert path.stat().st_size < BOMB_BYTES // 100
    return path


@pytest.mark.parametrize(
    ("bomb", "head", "tail"),
    [
        ("export_manifest.json", b"", b"[]"),  # read for the shards it names
        ("conversations.json", b"[", b"]"),  # read as a stream
    ],
)
@pytest.mark.slow
@pytest.mark.timeout(60)
def test_an_export_holding_a_zip_bomb_is_refused_unread(
    imports: Imports, tmp_path: Path, bomb: str, head: bytes, tail: bytes
) -> None:
    export = _export_with_bomb(tmp_path / "export.zip", bomb, head, tail)
    tracemalloc.start()
    try:
        with pytest.raises(ExportRefused, match="zip bomb"):
            imports.preview(export)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < BOMB_BYTES // 8


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_a_bomb_where_an_archive_has_its_manifest_is_not_read(
    imports: Imports, tmp_path: Path
) -> None:
    """The question 'is it a Reverie archive?' reads ``manifest.json`` of any zip."""
    export = _export_with_bomb(tmp_path / "export.zip", "manifest.json")
    tracemalloc.start()
    try:
        plan = imports.preview(export)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not plan.archive and plan.adds
    assert peak < BOMB_BYTES // 8


@pytest.mark.timeout(20)
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(
    imports: Imports, tmp_path: Path
) -> None:
    pipe = tmp_path / "conversations.json"
    os.mkfifo(pipe)
    with pytest.raises(ExportRefused, match="named pipe"):
        imports.preview(pipe)
