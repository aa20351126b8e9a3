"""The safety copy before a dream: whole and checked, or no dream.

A full disk or a kill during the copy leaves no 0-byte or partial copy that
counts toward the ones kept; what such a copy left (temporaries, journals,
empty files) is removed; without a copy the dream does not start and says why.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.settings import DreamSettings
from desktop.core.db import Database, DiskFull, open_database
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.snapshots import SnapshotFailed, take_snapshot
from tests.unit.core.dreaming.conftest import Dreaming

REX = "The user has a dog named Rex"
HOUR = 3600.0


def _dream_twice(dreaming: Dreaming) -> list[Path]:
    for _ in range(2):
        dreaming.clock.advance(HOUR)
        dreaming.dreamer.run("manual", DreamControl())
    return sorted((dreaming.folder / "snapshots").glob("*.sqlite3"))


def _names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def _full_disk_after_some_bytes(
    monkeypatch: pytest.MonkeyPatch, tried: list[Path] | None = None
) -> None:
    """The copy starts, writes part of the file, then the disk is full."""

    def copy_until_full(self: Database, path: Path) -> None:
        if tried is not None:
            tried.append(path)
        path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 1000)
        Path(f"{path}-journal").write_bytes(b"\x00" * 512)
        raise DiskFull(f"The disk holding {path} is full.", hint="Free some disk space.")

    monkeypatch.setattr(Database, "snapshot_to", copy_until_full)


def test_a_full_disk_during_the_copy_means_no_dream_and_the_run_says_why(
    make_dreaming: Callable[..., Dreaming], monkeypatch: pytest.MonkeyPatch
) -> None:
    dreaming = make_dreaming(DreamSettings(quiet_seconds=0, snapshots_kept=2))
    rex = dreaming.add(REX)
    kept = _dream_twice(dreaming)
    snapshots = dreaming.folder / "snapshots"
    before = _names(snapshots)
    tried: list[Path] = []
    _full_disk_after_some_bytes(monkeypatch, tried)
    dreaming.clock.advance(HOUR)

    with pytest.raises(EnvironmentProblem) as failed:
        dreaming.dreamer.run("manual", DreamControl())

    reason = "the safety copy of the database could not be written: the disk is full"
    assert reason in str(failed.value)
    assert str(failed.value).startswith("The dream did not start")
    assert tried and tried[0].parent == snapshots  # it did try, in the folder
    assert _names(snapshots) == before  # nothing half-written left; the older copies kept
    assert sorted(snapshots.glob("*.sqlite3")) == kept
    runs = dreaming.dreamer.dreams.runs()
    assert runs[0].status == "failed"
    assert runs[0].error is not None and reason in runs[0].error
    assert dreaming.dreamer.dreams.unfinished() is None  # nothing half-dreamt to resume
    assert dreaming.get(rex.id).status == "active"

    monkeypatch.undo()  # the disk has room again: the next dream runs
    dreaming.clock.advance(HOUR)
    report = dreaming.dreamer.run("manual", DreamControl())
    assert report.run.status == "completed"


def test_what_a_killed_copy_left_is_not_counted_and_is_removed(
    make_dreaming: Callable[..., Dreaming],
) -> None:
    dreaming = make_dreaming(DreamSettings(quiet_seconds=0, snapshots_kept=2))
    dreaming.add(REX)
    older, newer = _dream_twice(dreaming)
    snapshots = dreaming.folder / "snapshots"
    # Named later than any real copy, so a count by name would keep them.
    empty = snapshots / "before-dream-29990101-000000.sqlite3"
    empty.write_bytes(b"")
    partial = snapshots / "before-dream-29990102-000000.sqlite3"
    partial.write_bytes(newer.read_bytes()[:4096])
    Path(f"{partial}-journal").write_bytes(b"\x00" * 512)
    temporary = snapshots / ".before-dream-29990103-000000.sqlite3.part"
    temporary.write_bytes(newer.read_bytes())
    Path(f"{temporary}-journal").write_bytes(b"\x00" * 512)
    (snapshots / "before-dream-29990104-000000.skills").mkdir()
    (snapshots / "notes.txt").write_text("the user's own file\n")
    dreaming.clock.advance(HOUR)

    dreaming.dreamer.run("manual", DreamControl())

    newest = sorted(snapshots.glob("*.sqlite3"))
    assert len(newest) == 2 and newest[0] == newer
    assert _names(snapshots) == sorted([newer.name, newest[1].name, "notes.txt"])
    assert not older.exists()
    for copy in newest:
        with open_database(copy) as database:
            assert database.fetch_value("PRAGMA integrity_check") == "ok"
            assert database.fetch_value("SELECT content FROM memories") == REX


def test_a_copy_is_written_under_a_temporary_name_and_renamed_once_checked(
    database: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "snapshots"
    written: list[tuple[str, list[str]]] = []
    real = Database.snapshot_to

    def watched(self: Database, path: Path) -> None:
        real(self, path)
        written.append((path.name, _names(folder)))

    monkeypatch.setattr(Database, "snapshot_to", watched)

    final = take_snapshot(database, folder, "20260101-000000", skills_dir=None, keep=3)

    # While it was being written and checked, only the temporary existed.
    assert written == [(f".{final.name}.part", [f".{final.name}.part"])]
    assert _names(folder) == [final.name]


def test_the_copy_of_the_skills_travels_with_its_database(
    database: Database, tmp_path: Path
) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "brew-tea.md").write_text("Brew the user's tea\n")
    folder = tmp_path / "snapshots"

    final = take_snapshot(database, folder, "20260101-000000", skills_dir=skills, keep=1)
    last = take_snapshot(database, folder, "20260102-000000", skills_dir=skills, keep=1)

    assert not final.exists()
    assert _names(folder) == [last.with_suffix(".skills").name, last.name]
    assert (last.with_suffix(".skills") / "brew-tea.md").is_file()


def test_a_full_disk_leaves_no_temporary_and_keeps_the_earlier_copies(
    database: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "snapshots"
    first = take_snapshot(database, folder, "20260101-000000", skills_dir=None, keep=1)
    _full_disk_after_some_bytes(monkeypatch)

    with pytest.raises(SnapshotFailed, match="the disk is full"):
        take_snapshot(database, folder, "20260102-000000", skills_dir=None, keep=1)

    assert _names(folder) == [first.name]


def test_an_unwritable_folder_is_a_reason_not_a_crash(database: Database, tmp_path: Path) -> None:
    blocker = tmp_path / "snapshots"
    blocker.write_text("a file where the folder should be")

    with pytest.raises(SnapshotFailed, match="could not be written"):
        take_snapshot(database, blocker, "20260101-000000", skills_dir=None, keep=3)

    assert blocker.read_text() == "a file where the folder should be"
