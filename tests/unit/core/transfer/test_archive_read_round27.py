"""Round 27: reading an archive to import it held each table's entry whole
three times over besides its rows: its bytes unpacked, their text, and
that text split into lines.  An import of a large archive took several
times the archive's size in memory before a row was planned.  A table is
now read a line (a row) at a time, its digest checked as it goes: what
reading takes beyond the rows it keeps (which the import's plan needs)
no longer grows with the archive.
"""

from __future__ import annotations

import tracemalloc
import zipfile
from pathlib import Path

import pytest

from desktop.core.transfer.archive import ArchiveRefused, export_archive
from desktop.core.transfer.archive_read import read_archive
from tests.unit.core.transfer.archive_world import folder, open_folder
from tests.unit.core.transfer.test_archive_round26 import TEXT, _fill

SMALL = 500
LARGE = 2_000


def _archive(root: Path, messages: int) -> Path:
    paths = folder(root)
    database = open_folder(paths)
    try:
        _fill(database, messages, repeated=16)  # rows heavier than their ids
        target = root / "all.reverie.zip"
        export_archive(database, paths, target)
    finally:
        database.close()
    return target


def _read(target: Path) -> tuple[int, int]:
    """What reading *target* keeps (its rows) and takes besides, at its peak."""
    tracemalloc.start()
    try:
        archive = read_archive(target)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(archive.tables["messages"]) in (SMALL, LARGE)
    return kept, peak - kept


def test_what_reading_takes_beside_the_rows_does_not_grow_with_the_archive(
    tmp_path: Path,
) -> None:
    small_kept, small_extra = _read(_archive(tmp_path / "small", SMALL))
    large_kept, large_extra = _read(_archive(tmp_path / "large", LARGE))

    # Held whole, each table's bytes, text and lines came to more than the
    # rows themselves, for every row added.  Since round 28 no row is kept
    # (each pass of an import reads the archive again): at its peak, reading
    # holds the ids it checks for doubles, not the rows' text.
    text_added = (LARGE - SMALL) * len(TEXT) * 16
    assert large_kept - small_kept < 0.01 * text_added
    assert large_extra - small_extra < 0.1 * text_added, (
        (small_kept, small_extra),
        (large_kept, large_extra),
    )


def test_a_table_altered_after_its_first_line_is_refused_as_altered(tmp_path: Path) -> None:
    # Read a line at a time, a bad line is known before the digest: the
    # archive is still refused as altered, not for that line.
    target = _archive(tmp_path / "one", 3)
    altered = tmp_path / "altered.reverie.zip"
    with zipfile.ZipFile(target) as source, zipfile.ZipFile(altered, "w") as copy:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "tables/messages.jsonl":
                lines = data.split(b"\n")
                data = b"\n".join([lines[0], b"{not json", *lines[2:]])
            copy.writestr(info, data)

    with pytest.raises(ArchiveRefused, match=r"tables/messages\.jsonl is not what its manifest"):
        read_archive(altered)
