"""Committed changes a damaged write-ahead log would silently drop.

When SQLite opens a database it replays the frames of its WAL up to the
first one whose checksum fails, and forgets the rest: after a crash that is
the half-written last transaction, by design.  But a WAL damaged in the
middle (a bad sector, a stray write) loses every transaction committed
after the damage, with no error and nothing logged: a whole session's
messages gone.  The two differ in what follows the broken frame: a torn
write ends the log, while damage leaves later frames of the same log (its
salts) that end a transaction (a commit frame, whose header gives the
database's size).  Those are counted here, before SQLite opens the file;
the WAL format: https://www.sqlite.org/fileformat2.html#walformat.
"""

from __future__ import annotations

import os
import shutil
import struct
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path

from desktop.core.base.files import make_private, open_regular
from desktop.core.base.paths import explain

_HEADER = struct.Struct(">IIIIIIII")  # magic, version, page size, checkpoint, salts, checksums
_FRAME = struct.Struct(">IIIIII")  # page, database size after a commit (else 0), salts, checksums
_MAGIC = {0x377F0682: "<", 0x377F0683: ">"}  # the checksums' byte order


def lost_commits(wal: Path) -> int:
    """How many transactions committed in *wal* SQLite would drop: commit
    frames of this log after the first frame its checksums reject (0 for a
    sound log, a torn last write, or no log)."""
    try:
        descriptor = open_regular(wal)
    except OSError:
        return 0  # none, or not a file: the checks before opening say so
    with os.fdopen(descriptor, "rb") as file:
        data = file.read()
    if len(data) < _HEADER.size:
        return 0
    magic, _version, page_size, _checkpoint, *salts, sum1, sum2 = _HEADER.unpack_from(data)
    order = _MAGIC.get(magic)
    if order is None or page_size < 512 or page_size & (page_size - 1):
        return 0
    sums = _checksum(order, data[: _HEADER.size - 8], (0, 0))
    if sums != (sum1, sum2):
        return 0  # SQLite ignores the whole log: nothing of it was ever read
    frame_size = _FRAME.size + page_size
    offsets = range(_HEADER.size, len(data) - frame_size + 1, frame_size)
    for at in offsets:
        _page, _size, *frame_salts, frame_sum1, frame_sum2 = _FRAME.unpack_from(data, at)
        if frame_salts != salts:
            return 0  # the log ends here; older frames follow
        sums = _checksum(order, data[at : at + 8], sums)
        sums = _checksum(order, data[at + _FRAME.size : at + frame_size], sums)
        if sums != (frame_sum1, frame_sum2):
            return sum(_is_commit(data, later, salts) for later in offsets if later > at)
    return 0


def keep_damaged(wal: Path) -> Path | OSError:
    """A private copy of *wal* beside it, for a recovery tool (SQLite resets
    the log after its next checkpoint); why not, if it could not be made."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    copy = wal.with_name(f"{wal.name}.damaged-{stamp}")
    try:
        shutil.copyfile(wal, copy)
        make_private(copy)
    except OSError as error:  # a full disk: opening goes on, and says so
        with suppress(OSError):
            copy.unlink()
        return error
    return copy


def lost_commits_note(wal: Path, lost: int, kept: Path | OSError) -> str:
    """What the user is told when *lost* transactions of *wal* were dropped."""
    changes = "1 change" if lost == 1 else f"{lost} changes"
    where = (
        f"The log is kept as {kept} for a recovery tool."
        if isinstance(kept, Path)
        else f"A copy of the log could not be kept ({explain(kept)})."
    )
    return (
        f"The write-ahead log beside Reverie's database ({wal}) was damaged: {changes} saved "
        "after the damaged part could not be read back, so the database opened as it was "
        "before them (what was said last, before Reverie was closed or stopped, may be "
        f"missing). {where}"
    )


def _is_commit(data: bytes, at: int, salts: list[int]) -> bool:
    _page, size, *frame_salts, _sum1, _sum2 = _FRAME.unpack_from(data, at)
    return size != 0 and frame_salts == salts


def _checksum(order: str, data: bytes, sums: tuple[int, int]) -> tuple[int, int]:
    """SQLite's WAL checksum of *data* (a multiple of 8 bytes), carried on from *sums*."""
    s1, s2 = sums
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s1 = (s1 + words[i] + s2) & 0xFFFFFFFF
        s2 = (s2 + words[i + 1] + s1) & 0xFFFFFFFF
    return s1, s2
