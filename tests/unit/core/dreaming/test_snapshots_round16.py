"""Round 16: copies were named by local wall-clock time and rotated by name.
After the clock or the time zone moved back, a dream's own rotation removed
the copy it had just taken, and two copies under one local second replaced
one another."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.db import Database
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.snapshots import complete_snapshots, take_snapshot
from tests.unit.core.dreaming.conftest import Dreaming

HOUR = 3600.0


@pytest.fixture
def time_zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process's local time zone, settable by ``_move_to``; put back after."""
    yield
    monkeypatch.undo()
    time.tzset()


def _move_to(monkeypatch: pytest.MonkeyPatch, zone: str) -> None:
    monkeypatch.setenv("TZ", zone)
    time.tzset()


def _dream(dreaming: Dreaming) -> Path:
    """Dream; the copy it took (the one new complete copy)."""
    folder = dreaming.folder / "snapshots"
    before = set(complete_snapshots(folder)) if folder.is_dir() else set()
    dreaming.dreamer.run("manual", DreamControl())
    [taken] = set(complete_snapshots(folder)) - before
    return taken


def test_a_dream_after_a_flight_west_keeps_the_copy_it_took(
    dreaming: Dreaming, monkeypatch: pytest.MonkeyPatch, time_zone: None
) -> None:
    dreaming.add("The user bought a new kettle.")
    _move_to(monkeypatch, "Asia/Tokyo")
    taken = [_dream(dreaming)]
    for _ in range(2):
        dreaming.clock.advance(HOUR)
        taken.append(_dream(dreaming))
    _move_to(monkeypatch, "America/Los_Angeles")  # 17 hours back, local time
    dreaming.clock.advance(HOUR)

    last = _dream(dreaming)

    # The newest three, as taken: the oldest goes, not the one just taken.
    assert complete_snapshots(dreaming.folder / "snapshots") == [*taken[1:], last]


def test_copies_under_one_stamp_never_replace_one_another(
    database: Database, tmp_path: Path
) -> None:
    folder = tmp_path / "snapshots"
    stamp = "20261128T201500Z"  # the clock set back an hour, or two copies in one second

    copies = [take_snapshot(database, folder, stamp, skills_dir=None, keep=3) for _ in range(4)]

    assert len(set(copies)) == 4
    assert complete_snapshots(folder) == copies[1:]  # the newest three, in the order taken


def test_an_older_version_s_copies_count_as_taken_before_this_one_s(
    database: Database, tmp_path: Path
) -> None:
    folder = tmp_path / "snapshots"
    # Named by local time in a zone ahead of UTC: later, read as UTC, than the copies below.
    old = [
        take_snapshot(database, folder, f"2026112{day}-230000", skills_dir=None, keep=3)
        for day in (7, 8)
    ]
    new = take_snapshot(database, folder, "20261128T150000Z", skills_dir=None, keep=3)
    newer = take_snapshot(database, folder, "20261128T160000Z", skills_dir=None, keep=3)

    assert complete_snapshots(folder) == [old[1], new, newer]
