"""The temporary file of a write a kill cut short is removed by the next
write of that file, never one a live writer holds, and a sweep in the
instant between a temporary's creation and its lock does not fail the write."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.base import files
from desktop.core.base.files import write_atomically

MEMORY = "The user files the quillfern receipts on Fridays"


def _sweep_after_each_create(
    monkeypatch: pytest.MonkeyPatch, sweep: Callable[[], None], prefix: str
) -> list[str]:
    """Run *sweep* (a settling built meanwhile) right after a file named
    *prefix*… is created, before its writer can lock it; the names swept."""
    real_open = os.open
    swept: list[str] = []

    def open_then_sweep(path: str | os.PathLike[str], flags: int, *args: int, **kw: int) -> int:
        descriptor = real_open(path, flags, *args, **kw)
        name = Path(path).name
        if flags & os.O_CREAT and name.startswith(prefix) and not swept:
            swept.append(name)
            sweep()
        return descriptor

    monkeypatch.setattr(os, "open", open_then_sweep)
    return swept


def test_the_leftover_of_a_killed_write_goes_at_the_next_write_of_that_file(
    tmp_path: Path,
) -> None:
    target = tmp_path / "MEMORIES.md"
    # As a kill after the temporary reached the disk, before its rename, leaves it.
    leftover = tmp_path / ".MEMORIES.md.k1ll3d.part"
    leftover.write_text(f"# What Reverie remembers most\n- {MEMORY}\n")
    other = tmp_path / ".settings.json.k1ll3d.part"  # another file's: its own write sweeps it
    other.write_text("{}")

    write_atomically(target, "# What Reverie remembers most\n")

    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name, "MEMORIES.md"]
    assert target.read_text() == "# What Reverie remembers most\n"


def test_a_temporary_a_live_writer_holds_is_not_taken_for_a_leftover(tmp_path: Path) -> None:
    live = tmp_path / ".MEMORIES.md.wr1t1ng.part"
    live.write_text("being written by another process")
    holder = os.open(live, os.O_RDONLY)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)

        write_atomically(tmp_path / "MEMORIES.md", "text\n")

        assert live.read_text() == "being written by another process"
    finally:
        os.close(holder)


@pytest.mark.parametrize(
    "target", ["MEMORIES.md", "settings.json"], ids=["working set", "settings"]
)
def test_a_sweep_between_the_temporarys_creation_and_its_lock_does_not_fail_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    path = tmp_path / target
    swept = _sweep_after_each_create(
        monkeypatch,
        lambda: files.remove_leftovers(tmp_path, files.leftovers_of(target)),
        f".{target}.",
    )

    write_atomically(path, "whole\n")

    assert swept, "the sweep ran while the temporary was unlocked"
    assert path.read_text() == "whole\n"
    assert [p.name for p in tmp_path.iterdir()] == [target]
