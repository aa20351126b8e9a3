"""Round 36: a write-ahead log damaged in the part a checkpoint had written
back, when a reader had held that checkpoint back from the rest (a partial
checkpoint), was set aside and the database opened alone: but a partial
checkpoint writes back only the pages whose newest frame lies in its part,
so the file alone read as damaged, the start refused it (10 of 10 seeds,
3636-3645), and the changes it needed were in the log set aside.  The
frames no checkpoint wrote back are carried to a new log and replayed.

The reverse, damage in the part not yet written back, loses what came
after it and says so: the count now includes the commit of the damaged
frame itself, which it missed when that frame ended a transaction."""

from __future__ import annotations

import errno
import os
import random
from pathlib import Path

import pytest

from desktop.core.db import (
    ConversationStore,
    DatabaseUnavailable,
    integrity_check,
    open_database,
    opening,
)
from desktop.core.db.wal_frames import _index
from tests.unit.core.db.test_wal_frames import TITLES, _frames, _left_by_a_kill

SEEDS = range(3636, 3642)


def _damaged(tmp_path: Path, seed: int, *, where_written_back: bool) -> Path:
    """A log a killed Reverie left after a partial checkpoint
    (``_left_by_a_kill``), 64 random bytes written in the page of one of
    its frames: one written back, or one not (with a commit after it)."""
    path, page_size = _left_by_a_kill(tmp_path, index=True, held_back=True)
    wal = Path(f"{path}-wal")
    index = _index(wal)
    assert index is not None
    _salts, frames, written_back = index
    assert 0 < written_back < frames == _frames(wal, page_size)  # a partial checkpoint
    chance = random.Random(seed)
    low, high = (0, written_back) if where_written_back else (written_back, frames - 3)
    with wal.open("r+b") as file:
        file.seek(32 + chance.randrange(low, high) * (24 + page_size) + 24 + 100)
        file.write(chance.randbytes(64))
    return path


def _opened(path: Path) -> tuple[list[str], list[str], list[str]]:
    """The titles, the opening notes and the integrity check's findings."""
    with open_database(path) as database:
        titles = [c.title for c in ConversationStore(database).list()]
        return titles, database.opening_notes, integrity_check(database)


@pytest.mark.parametrize("seed", SEEDS)
def test_damage_where_a_partial_checkpoint_wrote_back_loses_nothing(
    tmp_path: Path, seed: int
) -> None:
    path = _damaged(tmp_path, seed, where_written_back=True)

    titles, notes, damage = _opened(path)

    assert (sorted(titles), notes, damage) == (sorted(TITLES), [], [])
    [kept] = tmp_path.glob("reverie.sqlite3-wal.damaged-*")
    assert b"Session 11" in kept.read_bytes()  # for a recovery tool


@pytest.mark.parametrize("seed", SEEDS)
def test_damage_where_a_partial_checkpoint_did_not_reach_counts_what_it_lost(
    tmp_path: Path, seed: int
) -> None:
    titles, [note], damage = _opened(_damaged(tmp_path, seed, where_written_back=False))

    lost = len(TITLES) - len(titles)
    said = "1 change saved" if lost == 1 else f"{lost} changes saved"
    assert f"{said} after the damaged part could not be read back" in note
    assert damage == []


def test_a_new_log_that_cannot_be_written_leaves_everything_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _damaged(tmp_path, SEEDS[0], where_written_back=True)
    wal = Path(f"{path}-wal")
    written = wal.read_bytes()

    def full(kept: Path, wal: Path) -> int:
        wal.write_bytes(b"\0" * 100)  # what a full disk lets through
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(wal))

    monkeypatch.setattr(opening, "carry_unwritten", full)
    with pytest.raises(DatabaseUnavailable, match="could not be saved to a new log") as caught:
        open_database(path)

    assert "Free some disk space" in str(caught.value.hint)
    assert wal.read_bytes() == written  # the log back where it was, whole
    assert list(tmp_path.glob("reverie.sqlite3-wal.damaged-*")) == []
    monkeypatch.undo()
    assert _opened(path)[0]  # space back: it opens
