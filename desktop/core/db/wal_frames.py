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

import itertools
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
_PAGE_SIZES = tuple(1 << n for n in range(9, 17))
"""The page sizes SQLite writes: 512 to 65536 bytes."""
_INDEX_VERSION = 3007000
_INDEX_READ = 100
"""The log index's two headers (48 bytes each), then the checkpoint's count."""


def lost_commits(wal: Path) -> int:
    """How many transactions committed in *wal* SQLite would drop: commit
    frames of this log after the first frame its checksums reject, or all
    of them under a damaged header (0 for a sound log, a torn last write,
    or no log); never those a checkpoint had written back into the
    database (``_written_back``).  Read before SQLite opens the database:
    its first connection rebuilds the log's index."""
    data = _read(wal)
    if len(data) < _HEADER.size:
        return 0
    magic, _version, page_size, _checkpoint, salt1, salt2, sum1, sum2 = _HEADER.unpack_from(data)
    order = _MAGIC.get(magic)
    written = (sum1, sum2)
    found = written if order is None else _checksum(order, data[: _HEADER.size - 8], (0, 0))
    if order is None or found != written or page_size not in _PAGE_SIZES:
        # Damage in its first 24 bytes leaves the checksums written; in the
        # checksums, the first 24 bytes give them again.
        return _under_a_damaged_header(wal, data, {written, found})
    rejected = _first_rejected(data, order, page_size)
    if rejected is None:
        return 0
    later = _commits_after(wal, data, rejected, _FRAME.size + page_size, data[16:24])
    # The damaged frame's own commit too, when commits after it show it was
    # no crash's torn last write.
    return later + (later > 0 and _is_commit(data, rejected, [salt1, salt2]))


def damaged_where_written_back(wal: Path) -> bool:
    """Whether *wal* (read before SQLite opens the database) is damaged in
    a frame a checkpoint had written back into the database: SQLite would
    replay the frames before it, older pages over the newer ones the
    checkpoint wrote, so the log is to be set aside (``set_aside``)."""
    data = _read(wal)
    if len(data) < _HEADER.size:
        return False
    magic, _version, page_size, *_rest = _HEADER.unpack_from(data)
    order = _MAGIC.get(magic)
    if order is None or page_size not in _PAGE_SIZES:
        return False  # SQLite ignores the whole log: it replays nothing
    rejected = _first_rejected(data, order, page_size)
    frame = None if rejected is None else _frame_number(rejected, _FRAME.size + page_size)
    return frame is not None and frame <= _written_back(wal, data[16:24])


def _read(wal: Path) -> bytes:
    try:
        descriptor = open_regular(wal)
    except OSError:
        return b""  # none, or not a file: the checks before opening say so
    with os.fdopen(descriptor, "rb") as file:
        return file.read()


def _first_rejected(data: bytes, order: str, page_size: int) -> int | None:
    """Where the first frame of the log in *data* (its header sound) whose
    checksums fail begins; None if none does before the log ends."""
    _magic, _version, _size, _checkpoint, *salts, sum1, sum2 = _HEADER.unpack_from(data)
    frame_size = _FRAME.size + page_size
    sums = (sum1, sum2)
    for at in range(_HEADER.size, len(data) - frame_size + 1, frame_size):
        _page, _after, *frame_salts, frame_sum1, frame_sum2 = _FRAME.unpack_from(data, at)
        if frame_salts != salts:
            return None  # the log ends here; older frames follow
        sums = _frame_sums(order, data, at, frame_size, sums)
        if sums != (frame_sum1, frame_sum2):
            return at
    return None


def _commits_after(wal: Path, data: bytes, at: int, frame_size: int, salt_bytes: bytes) -> int:
    """The commit frames of the log (its salts *salt_bytes*) after the one
    at *at*, less those a checkpoint had written back."""
    salts = list(struct.unpack(">II", salt_bytes))
    kept = _written_back(wal, salt_bytes)
    offsets = range(_HEADER.size, len(data) - frame_size + 1, frame_size)
    return sum(
        _is_commit(data, later, salts)
        for later in offsets
        if later > at and _frame_number(later, frame_size) > kept
    )


def _frame_number(at: int, frame_size: int) -> int:
    """The number (from 1) of the frame at *at*, as SQLite counts them."""
    return (at - _HEADER.size) // frame_size + 1


def _written_back(wal: Path, salt_bytes: bytes) -> int:
    """How many of the first frames of *wal* (its salts *salt_bytes*) a
    checkpoint had written back into the database (``_index``); 0 when the
    index is not this log's or not whole.  The count is set once the
    database file is synced, so a stale index says too few, never too many."""
    index = _index(wal)
    return 0 if index is None or index[0] != salt_bytes else min(index[2], index[1])


def missing_frames(wal: Path) -> int:
    """How many frames the log's index counts in *wal* and no checkpoint
    wrote back into the database, that *wal* no longer holds: it was
    deleted, emptied or cut short after Reverie was stopped without
    closing, and SQLite would open the database without their changes,
    seeing no damage.  0 when there is no whole index, or the log there is
    another (begun again, or with a damaged header: ``lost_commits``)."""
    index = _index(wal)
    if index is None:
        return 0
    salt_bytes, max_frame, backfilled = index
    data = _read(wal)
    held = 0
    if len(data) >= _HEADER.size:
        page_size = _HEADER.unpack_from(data)[2]
        if data[16:24] != salt_bytes or page_size not in _PAGE_SIZES:
            return 0
        held = (len(data) - _HEADER.size) // (_FRAME.size + page_size)
    return max(0, max_frame - max(held, backfilled))


def _index(wal: Path) -> tuple[bytes, int, int] | None:
    """What the log's index (the ``-shm`` file beside *wal*) says of it:
    its salts, how many frames it holds (``mxFrame``), how many of those a
    checkpoint wrote back (``nBackfill``); None if there is no index whole
    (its header is written twice and checksummed).  Read before SQLite's
    first open, which rebuilds it."""
    index = _read(wal.with_name(wal.name.removesuffix("-wal") + "-shm"))
    if len(index) < _INDEX_READ or index[:48] != index[48:96]:
        return None
    version, _unused, _change, is_init, _big_endian, _page, max_frame = struct.unpack_from(
        "=IIIBBHI", index
    )
    if version != _INDEX_VERSION or not is_init:
        return None
    if _checksum("=", index[:40], (0, 0)) != struct.unpack_from("=II", index, 40):
        return None
    (backfilled,) = struct.unpack_from("=I", index, 96)
    return index[32:40], int(max_frame), int(backfilled)


def _under_a_damaged_header(wal: Path, data: bytes, header_sums: set[tuple[int, int]]) -> int:
    """The commits of a log whose header SQLite rejects (a byte of it
    overwritten), so that it ignores the whole log (round 34: every change
    in it was dropped without a word).  Its first frame, checked from the
    header's checksums (*header_sums*), shows the frames are this log's and
    not a leftover; 0 if it is not (a header never written whole)."""
    tried = itertools.product(_MAGIC.values(), _PAGE_SIZES, header_sums)
    for order, page_size, sums in tried:
        frame_size = _FRAME.size + page_size
        if len(data) < _HEADER.size + frame_size:
            continue
        _page, _size, *_salts, frame_sum1, frame_sum2 = _FRAME.unpack_from(data, _HEADER.size)
        if _frame_sums(order, data, _HEADER.size, frame_size, sums) == (frame_sum1, frame_sum2):
            salt_bytes = data[_HEADER.size + 8 : _HEADER.size + 16]
            return _commits_after(wal, data, 0, frame_size, salt_bytes)
    return 0


def set_aside(wal: Path) -> Path:
    """Move *wal* aside (``damaged_where_written_back``), private, where a
    recovery tool finds it: SQLite then opens the database as the last
    checkpoint left it.  ``OSError`` if it could not be moved."""
    kept = _damaged_name(wal)
    wal.rename(kept)
    make_private(kept)
    return kept


def carry_unwritten(kept: Path, wal: Path) -> int:
    """Write at *wal* a log of the frames of *kept* (the log ``set_aside``
    from *wal*, its index still beside *wal*) that no checkpoint wrote back;
    how many commits of them could not be carried (after one that fails
    its checksums).

    A checkpoint held back by a reader writes back only part of the log,
    and of that only the pages whose newest frame lies in that part: the
    file alone is then no state the database was ever in (SQLite reads it
    as damaged), and only the later frames, replayed over it, make it
    whole.  Each frame's checksums carry on from the one before, so those
    frames are checked from the sums written in the frame before them,
    whatever the damage earlier; the new log has salts of its own, so the
    old index beside it is not taken for its."""
    data = _read(kept)
    magic, version, page_size, checkpoint, salt1, _salt2, *_sums = _HEADER.unpack_from(data)
    order, frame_size, salts = _MAGIC[magic], _FRAME.size + page_size, data[16:24]
    start = _HEADER.size + _written_back(wal, salts) * frame_size
    sums = (
        tuple(_FRAME.unpack_from(data, start - frame_size)[4:]) if start > _HEADER.size else (0, 0)
    )
    sound: list[int] = []
    for at in range(start, len(data) - frame_size + 1, frame_size):
        if data[at + 8 : at + 16] != salts:
            break  # the log ends here
        found = _frame_sums(order, data, at, frame_size, sums)
        if found != _FRAME.unpack_from(data, at)[4:]:
            break
        sound.append(at)
        sums = found
    commits = [n for n, at in enumerate(sound, 1) if _FRAME.unpack_from(data, at)[1]]
    carried = sound[: commits[-1]] if commits else []
    if carried:
        head = (magic, version, page_size, checkpoint, (salt1 + 1) & 0xFFFFFFFF)
        _write_log(wal, order, head, data, carried, frame_size)
    return _commits_after(wal, data, start - 1, frame_size, salts) - len(commits)


def _write_log(
    wal: Path,
    order: str,
    head: tuple[int, int, int, int, int],
    data: bytes,
    frames: list[int],
    frame_size: int,
) -> None:
    """A log at *wal* with the header *head* (magic to first salt; a random
    second salt) and the frames of *data* at *frames*, checksums anew."""
    salts = struct.pack(">II", head[4], int.from_bytes(os.urandom(4), "big"))
    header = struct.pack(">IIII", *head[:4]) + salts
    sums = _checksum(order, header, (0, 0))
    out = [header + struct.pack(">II", *sums)]
    for at in frames:
        frame = data[at : at + 8] + salts + bytes(8) + data[at + _FRAME.size : at + frame_size]
        sums = _frame_sums(order, frame, 0, frame_size, sums)
        out.append(frame[:16] + struct.pack(">II", *sums) + frame[_FRAME.size :])
    descriptor = os.open(wal, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(b"".join(out))
        os.fsync(file.fileno())


def keep_damaged(wal: Path) -> Path | OSError:
    """A private copy of *wal* beside it, for a recovery tool (SQLite resets
    the log after its next checkpoint); why not, if it could not be made."""
    copy = _damaged_name(wal)
    try:
        shutil.copyfile(wal, copy)
        make_private(copy)
    except OSError as error:  # a full disk: opening goes on, and says so
        with suppress(OSError):
            copy.unlink()
        return error
    return copy


def _damaged_name(wal: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return wal.with_name(f"{wal.name}.damaged-{stamp}")


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


def missing_frames_note(wal: Path, frames: int) -> str:
    """What the user is told when *frames* of *wal* are gone (``missing_frames``)."""
    return (
        f"The write-ahead log beside Reverie's database ({wal}) was deleted or cut short "
        f"after Reverie was stopped without closing: the changes saved last ({frames} "
        "pages of them), not yet written into the database, could not be read back, so "
        "the database opened as it was before them (what was said last may be missing)."
    )


def _is_commit(data: bytes, at: int, salts: list[int]) -> bool:
    _page, size, *frame_salts, _sum1, _sum2 = _FRAME.unpack_from(data, at)
    return size != 0 and frame_salts == salts


def _frame_sums(
    order: str, data: bytes, at: int, frame_size: int, sums: tuple[int, int]
) -> tuple[int, int]:
    """The checksums of the frame at *at*, carried on from *sums*: its
    header's first 8 bytes, then its page."""
    sums = _checksum(order, data[at : at + 8], sums)
    return _checksum(order, data[at + _FRAME.size : at + frame_size], sums)


def _checksum(order: str, data: bytes, sums: tuple[int, int]) -> tuple[int, int]:
    """SQLite's WAL checksum of *data* (a multiple of 8 bytes), carried on from *sums*."""
    s1, s2 = sums
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s1 = (s1 + words[i] + s2) & 0xFFFFFFFF
        s2 = (s2 + words[i + 1] + s1) & 0xFFFFFFFF
    return s1, s2
