"""A note of a skill change in flight is never taken for a leftover by a
settling that runs in the instant between its creation and its lock."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop.core.dreaming.skill_notes import ChangeNotes

NOTE = {
    "op": "apply",
    "run": 1,
    "pass": "skills",
    "skills": {},
    "drafts": [{"name": "ledger", "text": "Ledger\n1. File the slips.\n"}],
}


def test_a_settling_between_the_notes_creation_and_its_lock_does_not_fail_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = ChangeNotes(tmp_path)
    real_open = os.open
    swept: list[str] = []

    def open_then_settle(path: str | os.PathLike[str], flags: int, *args: int) -> int:
        descriptor = real_open(path, flags, *args)
        if flags & os.O_CREAT and str(path).endswith(".json.part") and not swept:
            swept.append(Path(path).name)
            # What every ChangeBook built does first (another thread's, or a
            # second process's): the temporary is not locked yet.
            ChangeNotes(tmp_path).clear_leftovers()
        return descriptor

    monkeypatch.setattr(os, "open", open_then_settle)
    path = notes.new_path()

    descriptor = notes.write(path, {**NOTE, "id": path.stem})

    try:
        assert swept, "the settling ran while the note's temporary was unlocked"
        assert [p.name for p in notes.folder.iterdir()] == [path.name]
        found_by_another = ChangeNotes(tmp_path).found()
        assert found_by_another == []  # held: the change is under way
    finally:
        notes.release(descriptor)
    assert [f.note["drafts"] for f in ChangeNotes(tmp_path).found()] == [NOTE["drafts"]]
