"""Dream changes to skill files in flight, noted beside the files.

A dream change to a skill touches two places that cannot share a
transaction: the skill's file (and its index row) and the change's record
in the database.  The files are written first and the record after, so
the record is what decides; before the first file is touched, a note says
what is about to change (each skill as it is, and as it will be) in
``skills/.changes/``, and it is removed once the record landed.  A note
still there (the process was killed, or putting the files back failed) is
settled by the ``ChangeBook``: see ``ChangeBook.finish_interrupted``.

A note is one JSON object::

    {"op": "apply" | "approve" | "revert", "run": 3, "pass": "skills",
     "change": 7,                      # approve and revert
     "skills": {"12": {"before": STATE, "after": STATE}},
     "drafts": [{"name": "...", "text": "..."}]}   # drafts it creates

where a STATE is ``{"name", "status", "text"}``.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from pathlib import Path
from typing import Any

from desktop.core.files import make_private_folder, sync_to_disk, write_atomically
from desktop.core.skills import SkillFileError

FOLDER = ".changes"
SUFFIX = ".json"


class ChangeNotes:
    """The notes of one skills folder."""

    def __init__(self, skills_directory: Path) -> None:
        self.folder = skills_directory / FOLDER

    def new_path(self) -> Path:
        """Where a new note goes (a name no other note has)."""
        return self.folder / f"{uuid.uuid4().hex}{SUFFIX}"

    def write(self, path: Path, note: dict[str, Any]) -> None:
        """Note *note* at *path*, on the disk before this returns."""
        try:
            make_private_folder(self.folder)
            write_atomically(path, json.dumps(note, ensure_ascii=False))
            sync_to_disk(self.folder)  # the rename too: the note must outlive a crash
        except OSError as error:
            raise _error(path, "written", error) from error

    def remove(self, path: Path) -> None:
        try:
            path.unlink(missing_ok=True)
        except OSError as error:
            raise _error(path, "removed", error) from error

    def found(self) -> list[tuple[Path, dict[str, Any]]]:
        """Every note left, oldest name first (a note that is no JSON object is
        left out: it was never written whole, so nothing followed it)."""
        if not self.folder.is_dir():
            return []
        found = []
        for path in sorted(self.folder.glob(f"*{SUFFIX}")):
            try:
                note = json.loads(path.read_text(encoding="utf-8"))
            except OSError as error:
                raise _error(path, "read", error) from error
            except ValueError:
                note = None
            if isinstance(note, dict):
                found.append((path, note))
        return found

    def clear_leftovers(self) -> None:
        """Remove the temporary files of notes never written whole (they may
        hold a skill's text); only when no note is being written."""
        if self.folder.is_dir():
            for part in self.folder.glob(".*.part"):
                with contextlib.suppress(FileNotFoundError):
                    part.unlink()


def _error(path: Path, done: str, error: OSError) -> SkillFileError:
    reason = error.strerror or str(error)
    return SkillFileError(
        f"The note of a skill change in flight, {path}, could not be {done}: {reason}.",
        hint="Check that the skills folder is writable and that the disk has space.",
    )
