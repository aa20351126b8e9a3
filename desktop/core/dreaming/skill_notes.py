"""Dream changes to skill files in flight, noted beside the files.

A dream change to a skill touches two places that cannot share a
transaction: the skill's file (and its index row) and the change's record
in the database.  The files are written first and the record after, so
the record is what decides; before the first file is touched, a note says
what is about to change (each skill as it is, and as it will be) in
``skills/.changes/``, and it is removed once the record landed.  A note
still there (the process was killed, or putting the files back failed) is
settled by the ``ChangeBook``: see ``ChangeBook.finish_interrupted``.

The process writing a note holds a lock on it (``flock``) until the note
is settled, from before the note has its name: another process (a second
copy, ``reverie --check``) passes a locked note by, since the change it
says is under way, not interrupted.  A note that is not a regular file,
is larger than a note can be, or is not a whole note (see ``Note``) is
set aside as ``NAME.damaged`` and named in the log, never read again.

A note is one JSON object::

    {"op": "apply" | "approve" | "revert", "id": "…", "run": 3, "pass": "skills",
     "change": 7,                      # approve and revert
     "skills": {"12": {"before": STATE, "after": STATE}},
     "drafts": [{"name": "...", "text": "..."}]}   # drafts it creates

where a STATE is ``{"name", "status", "text"}``.  ``id`` is the note's
name; an applied change records it (``after["note"]``), so the note is
settled by its own record, not another pass's.
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from desktop.core.base.files import (
    NotARegularFile,
    create_locked,
    lock,
    make_private_folder,
    open_regular,
    remove_leftovers,
    sync_to_disk,
)
from desktop.core.skills.library import SkillFileError

log = logging.getLogger(__name__)

FOLDER = ".changes"
SUFFIX = ".json"
PART = ".part"
DAMAGED = ".damaged"
MAX_NOTE_BYTES = 16 << 20
"""A note holds a few skills (each at most 100,000 characters); past this it is not one."""
_ROW_ID = Annotated[int, Field(ge=1, le=2**63 - 1)]  # an SQLite rowid
_SKILL_KEY = Annotated[str, StringConstraints(pattern=r"^[1-9][0-9]{0,17}$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _State(_Strict):
    name: str
    status: Literal["active", "draft", "deleted"]
    text: str


class _Change(_Strict):
    before: _State
    after: _State


class _Draft(_Strict):
    name: str
    text: str


class Note(_Strict):
    """A whole note, as ``ChangeNotes.write`` writes it."""

    model_config = ConfigDict(populate_by_name=True)
    op: Literal["apply", "approve", "revert"]
    id: str | None = None
    """None in a note an older version wrote."""
    run: _ROW_ID
    pass_name: str = Field(alias="pass")
    change: _ROW_ID | None = None
    skills: dict[_SKILL_KEY, _Change] = Field(default_factory=dict)
    drafts: list[_Draft] = Field(default_factory=list)

    @model_validator(mode="after")
    def _names_its_change(self) -> Note:
        if self.op != "apply" and self.change is None:
            raise ValueError(f"a note of an {self.op} names the change it makes")
        return self


@dataclass(frozen=True)
class Found:
    """A note left by a change no live process is making, locked by this one
    until ``ChangeNotes.release``."""

    path: Path
    note: dict[str, Any]
    descriptor: int


class _NotANote(Exception):
    """Why a file in the notes folder is not a note (its kind, never its text)."""


class ChangeNotes:
    """The notes of one skills folder."""

    def __init__(self, skills_directory: Path) -> None:
        self.folder = skills_directory / FOLDER

    def new_path(self) -> Path:
        """Where a new note goes (a name no other note has)."""
        return self.folder / f"{uuid.uuid4().hex}{SUFFIX}"

    def write(self, path: Path, note: dict[str, Any]) -> int:
        """Note *note* at *path*, on the disk before this returns; the open,
        locked note, to ``remove`` or ``release`` once settled."""
        try:
            data = Note.model_validate(note).model_dump_json(by_alias=True).encode()
        except ValidationError as error:  # a change recorded in a damaged row
            raise SkillFileError(
                f"The note of a skill change, {path}, was not written: the change is not "
                f"one a note can hold ({_kinds(error)}).",
                hint="Nothing was changed; the change's record in the database is damaged.",
            ) from None
        temporary = path.with_name(f".{path.name}{PART}")
        descriptor = -1
        try:
            make_private_folder(self.folder)
            # Locked before it has its name: no other process settles it under
            # way, and no sweep (``clear_leftovers``) takes it for a leftover.
            descriptor = create_locked(temporary)
            with os.fdopen(os.dup(descriptor), "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
            sync_to_disk(self.folder)  # the rename too: the note must outlive a crash
        except OSError as error:
            _forget(temporary, descriptor)
            raise _error(path, "written", error) from error
        except BaseException:
            _forget(temporary, descriptor)
            raise
        return descriptor

    def remove(self, path: Path) -> None:
        try:
            path.unlink(missing_ok=True)
        except OSError as error:
            raise _error(path, "removed", error) from error

    @staticmethod
    def release(descriptor: int) -> None:
        """Let go of a note's lock (closing it)."""
        with contextlib.suppress(OSError):
            os.close(descriptor)

    def any_left(self) -> bool:
        """Whether the folder holds a note (held or not, or one set aside)."""
        try:
            return any(self.folder.glob(f"*{SUFFIX}*"))
        except OSError:
            return True  # then settling says what is wrong

    def remove_set_aside(self) -> None:
        """Remove the notes set aside as damaged: none can be settled, and
        each may hold a skill's text as a dream wrote it."""
        for path in self.folder.glob(f"*{SUFFIX}{DAMAGED}*"):
            with contextlib.suppress(FileNotFoundError):
                if path.is_dir() and not path.is_symlink():
                    continue  # not a note Reverie wrote: left to whoever made it
                path.unlink()

    def found(self) -> list[Found]:
        """Every note left and not locked by a live process, oldest name first,
        each locked until released.  A file that is not a whole note is set
        aside and named in the log (by what is wrong, never its text)."""
        if not self.folder.is_dir():
            return []
        found = []
        for path in sorted(self.folder.glob(f"*{SUFFIX}")):
            try:
                held = self._take(path)
            except _NotANote as problem:
                self._set_aside(path, str(problem))
                continue
            if held is not None:
                found.append(held)
        return found

    def clear_leftovers(self) -> None:
        """Remove the temporary files of notes never written whole (they may
        hold a skill's text), but not one a live process is writing."""
        if self.folder.is_dir():
            remove_leftovers(self.folder, f".*{PART}")

    def _take(self, path: Path) -> Found | None:
        """The note at *path*, locked; None if a live process holds it or it
        went meanwhile."""
        try:
            descriptor = _open_locked(path)
        except OSError as error:
            raise _error(path, "read", error) from error
        if descriptor is None:
            return None
        try:
            return Found(path, _read_note(descriptor), descriptor)
        except BaseException:
            os.close(descriptor)
            raise

    def _set_aside(self, path: Path, why: str) -> None:
        kept = path.with_name(f"{path.name}{DAMAGED}")
        for count in range(2, 10_000):  # never over a note set aside earlier
            if not os.path.lexists(kept):
                break
            kept = path.with_name(f"{path.name}{DAMAGED}-{count}")
        try:
            os.replace(path, kept)
        except OSError as error:
            raise _error(path, "set aside", error) from error
        log.warning("a skill change note that is %s was set aside as %s", why, kept)


def _open_locked(path: Path) -> int | None:
    """*path* open and locked by this process; None if another holds it or
    it is gone.  A FIFO or device is refused, never read (it would block,
    or never end)."""
    try:
        descriptor = open_regular(path)
    except FileNotFoundError:
        return None
    except NotARegularFile as odd:
        raise _NotANote(odd.kind) from odd
    try:
        # Not held: a live process's change under way, or one settled and
        # removed by another while this one opened it.
        if lock(descriptor, wait=False) and os.fstat(descriptor).st_nlink > 0:
            return descriptor
    except BaseException:
        os.close(descriptor)
        raise
    os.close(descriptor)
    return None


def _read_note(descriptor: int) -> dict[str, Any]:
    data = b""
    while len(data) <= MAX_NOTE_BYTES:  # the size may change after it was looked at
        chunk = os.read(descriptor, 1 << 20)
        if not chunk:
            break
        data += chunk
    if len(data) > MAX_NOTE_BYTES:
        raise _NotANote(f"larger than {MAX_NOTE_BYTES:,} bytes")
    try:
        return Note.model_validate_json(data).model_dump(by_alias=True)
    except ValidationError as error:
        raise _NotANote(f"not a whole note ({_kinds(error)})") from None


def _kinds(error: ValidationError) -> str:
    """What is wrong, by kind only: a note's text is a skill's."""
    return ", ".join(sorted({e["type"] for e in error.errors(include_url=False)}))


def _forget(temporary: Path, descriptor: int) -> None:
    """After a failed write: no temporary file, no descriptor (the first
    error is the one to report)."""
    with contextlib.suppress(OSError):
        temporary.unlink()
    if descriptor >= 0:
        with contextlib.suppress(OSError):
            os.close(descriptor)


def _error(path: Path, done: str, error: OSError) -> SkillFileError:
    reason = error.strerror or str(error)
    return SkillFileError(
        f"The note of a skill change in flight, {path}, could not be {done}: {reason}.",
        hint="Check that the skills folder is writable and that the disk has space.",
    )
