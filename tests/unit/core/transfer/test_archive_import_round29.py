"""Round 29: importing an archive into the data folder it was made of, or
one holding its conversations already (a second import, a copy restored
beside its original), read each conversation found here whole, every
message's text with it, to see which of the archive's messages it holds:
a conversation of 50,000 messages grew the import's resident memory by
68.0 MiB (``python -m tests.bench.transfer --archive 50000``, its
archive-again line).  They are now read a page at a time, compared as they
are read, and only what each said is kept, as a digest: 23.4 MiB.  The
memories here were read the same way, every text at once, to find the
archive's among them: they are now read a page at a time too."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from desktop.core.privacy import known_words
from desktop.core.transfer.archive import export_archive
from desktop.core.transfer.archive_import import run
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import folder, open_folder
from tests.unit.core.transfer.test_archive_import_round28 import LARGE, REPEATED, SMALL
from tests.unit.core.transfer.test_archive_read_round27 import _archive
from tests.unit.core.transfer.test_archive_round26 import TEXT


def _peak_of_import_again(root: Path, archive: Path, kind: str) -> int:
    """The most memory importing *archive* took, into the folder under
    *root* it was made of (every row of *kind* is there already)."""
    database = open_folder(folder(root))
    try:
        tracemalloc.start()
        try:
            result = run(archive, database, folder(root), PlainState())
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert result.added(kind) == 0
        return peak
    finally:
        database.close()


def _peak_of_messages_again(root: Path, messages: int) -> int:
    return _peak_of_import_again(root, _archive(root, messages), "messages")


def test_importing_an_archive_where_its_messages_are_holds_none_of_their_text(
    tmp_path: Path,
) -> None:
    known_words.load()  # the redactor's word lists, read once per process, are no row's
    _peak_of_messages_again(tmp_path / "warm-up", SMALL)  # caches a first import fills
    small_peak = _peak_of_messages_again(tmp_path / "small", SMALL)
    large_peak = _peak_of_messages_again(tmp_path / "large", LARGE)

    text_added = (LARGE - SMALL) * len(TEXT) * REPEATED
    assert large_peak - small_peak < 0.25 * text_added, (small_peak, large_peak, text_added)


def _memories(root: Path, count: int) -> Path:
    """An archive of a folder holding *count* memories of 2,800 characters
    (what a memory holds beside its text, an id and a digest, is 250 bytes)."""
    paths = folder(root)
    database = open_folder(paths)
    try:
        with database.transaction() as tx:
            for n in range(count):
                tx.execute(
                    "INSERT INTO memories (content, source_kind, created_at, last_seen_at,"
                    " valid_from, content_hash, updated_at)"
                    " VALUES (?, 'user_explicit', ?, ?, ?, ?, ?)",
                    (TEXT.format(n=n) * 2 * REPEATED, n, n, n, f"{n:064x}", n),
                )
        return export_archive(database, paths, root / "all.reverie.zip").path
    finally:
        database.close()


def _peak_of_memories_again(root: Path, count: int) -> int:
    return _peak_of_import_again(root, _memories(root, count), "memories")


def test_importing_an_archive_where_its_memories_are_holds_none_of_their_text(
    tmp_path: Path,
) -> None:
    # The memories here were read whole, every text at once, to find them.
    known_words.load()
    _peak_of_memories_again(tmp_path / "warm-up", SMALL)
    small_peak = _peak_of_memories_again(tmp_path / "small", SMALL)
    large_peak = _peak_of_memories_again(tmp_path / "large", LARGE)

    text_added = (LARGE - SMALL) * len(TEXT) * 2 * REPEATED
    assert large_peak - small_peak < 0.25 * text_added, (small_peak, large_peak, text_added)
