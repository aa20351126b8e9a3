"""Round 28: importing an archive held every row of every table in memory
(read whole into lists of dicts before a row was planned, and kept until
the import ended), so an archive of a long history took its rows' size in
memory on top of the app's, and a machine short of it killed the import.

A table's entry is now checked a line at a time and read again from the
archive at each pass of the plan and of the import: what an import holds
grows by the rows' ids, not by their text.  An entry that changes between
two passes (the file replaced mid-import) is refused, nothing imported.
"""

from __future__ import annotations

import tracemalloc
import zipfile
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore
from desktop.core.privacy import known_words
from desktop.core.transfer.archive import ArchiveRefused
from desktop.core.transfer.archive_import import run
from desktop.core.transfer.archive_read import read_archive
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import folder, open_folder
from tests.unit.core.transfer.test_archive_read_round27 import _archive
from tests.unit.core.transfer.test_archive_round26 import TEXT

SMALL = 200
LARGE = 1_000
REPEATED = 16
"""Each message's text: *TEXT* this many times (about 1,400 characters), as ``_archive`` has it."""


def _peak_of_import(root: Path, archive: Path, *, merged: bool) -> int:
    """The most memory importing *archive* took, into a fresh data folder
    or (*merged*) one holding a conversation already."""
    known_words.load()  # the redactor's word lists, read once per process, are no row's
    paths = folder(root)
    database = open_folder(paths)
    try:
        if merged:
            ConversationStore(database).create("Already here")
        tracemalloc.start()
        try:
            result = run(archive, database, paths, PlainState())
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert result.added("messages") == len(read_archive(archive).tables["messages"])
        return peak
    finally:
        database.close()


@pytest.mark.parametrize("merged", [False, True], ids=["fresh", "merged"])
def test_an_import_five_times_larger_holds_its_ids_not_its_rows(
    tmp_path: Path, merged: bool
) -> None:
    small = _archive(tmp_path / "small", SMALL)
    large = _archive(tmp_path / "large", LARGE)
    _peak_of_import(tmp_path / "warm-up", small, merged=merged)  # caches a first import fills
    small_peak = _peak_of_import(tmp_path / "into-small", small, merged=merged)
    large_peak = _peak_of_import(tmp_path / "into-large", large, merged=merged)

    # Held whole, each message added its text and a dict's worth; now its
    # ids and positions (a few hundred bytes).
    text_added = (LARGE - SMALL) * len(TEXT) * REPEATED
    assert large_peak - small_peak < 0.25 * text_added, (small_peak, large_peak, text_added)


class _Replacing(PlainState):
    """A state that replaces the archive with *other* once the import is
    planned (at its first progress), as a user or a sync tool might."""

    def __init__(self, archive: Path, other: Path) -> None:
        super().__init__()
        self._archive, self._other = archive, other

    def set_progress(self, done: int, total: int) -> None:
        if self._other.exists():
            self._other.replace(self._archive)
        super().set_progress(done, total)


def test_an_entry_changed_between_two_passes_is_refused_and_nothing_imported(
    tmp_path: Path,
) -> None:
    target = _archive(tmp_path / "one", 5)
    changed = tmp_path / "changed.reverie.zip"
    with zipfile.ZipFile(target) as source, zipfile.ZipFile(changed, "w") as copy:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "tables/messages.jsonl":
                data = data.replace(b"larches", b"spruces")
            copy.writestr(info, data)
    paths = folder(tmp_path / "into")
    database = open_folder(paths)
    try:
        with pytest.raises(ArchiveRefused, match=r"tables/messages\.jsonl changed while"):
            run(target, database, paths, _Replacing(target, changed))
        assert ConversationStore(database).list() == []
    finally:
        database.close()
