"""The skill library: learned procedures as Markdown files the user can edit.

A skill is ``skills/<name>.md`` in the user's data folder; its first line
is its one-line summary, the rest how to do it.  The ``skills`` table
(``SkillStore``) indexes the files; the files are the truth.  Where a file
lies says its status: active skills in ``skills/``, drafts (proposed by
dreaming, waiting for the user) in ``skills/.drafts/``, deleted ones in
``skills/.deleted/`` (so deleting is undone by moving the file back).

Files change outside Reverie: every listing first syncs the index with the
folder (a file added by hand appears, a summary follows its file's first
line, a file removed by hand takes its skill with it), and a skill is read
from its file each time. A sync reads a file again only once it changed
(its size, times or inode: the list is synced at every chat turn), and
checks a name for secrets again only once the redactor caught another. A
file that is not UTF-8, or larger than a skill can be (``FILE_BYTES``: a
notes export put there by hand, never read), is reported, and nothing is
changed because of it; nor because of a folder that is missing (moved
away), which is reported too. A file whose name holds a secret is reported
and never taken in (its name would be stored).

Every file move is undone when the index write after it fails, and one lock
keeps the folder and the index agreeing across threads (the chat worker
reads the list while a window edits).  A kill between a file and its row
is made good by the next sync: the row follows the file (a rename is noted
in ``.renaming.json`` first, so its row follows its file too).
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import json
import logging
import os
import re
import stat
import threading
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from desktop.core.base.errors import EnvironmentProblem, ReverieError
from desktop.core.base.files import (
    NAME_MAX_BYTES,
    PART,
    NotARegularFile,
    make_missing_folders,
    open_regular,
    remove_leftovers,
    write_atomically,
)
from desktop.core.base.text import cut, readable, scrub, searchable, shows_nothing
from desktop.core.db.fts import substring_words
from desktop.core.db.skills import (
    EVERY_STATUS,
    Skill,
    SkillNameTaken,
    SkillNotFound,
    SkillStateError,
    SkillStatus,
    SkillStore,
    SkillUse,
    name_key,
)
from desktop.core.privacy.prompt_safety import safe_for_prompt
from desktop.core.privacy.redaction import (
    Redacted,
    Redactor,
    past_any_redaction,
    redact,
    without,
)

log = logging.getLogger(__name__)

SUFFIX = ".md"
NAME_CHARS = 64
_LONGEST_ADDITION = len(f".{SUFFIX}.{'0' * 12}{PART}")
"""What the longest file name made of a skill's name adds to it: the
temporary file of a write, ``.<name>.md.<12 hex>.part`` (``write_atomically``,
whether or not it cuts a long name short); an older deleted copy,
``<name> (9999).md``, adds less."""
NAME_BYTES = NAME_MAX_BYTES - _LONGEST_ADDITION
"""The most bytes a skill name takes in UTF-8: a file system counts a file
name in bytes, and each of its files (and their temporary files) must fit."""
SUMMARY_CHARS = 200
TEXT_CHARS = 100_000
FILE_BYTES = 512 << 10
"""The largest skill file read: past the most 100,000 characters take in UTF-8
(400,000 bytes), so a file Reverie wrote always fits; a larger one put in the
folder by hand (a notes export) would cost its size on every chat turn."""
DRAFTS = ".drafts"
DELETED = ".deleted"
RENAMING = ".renaming.json"
"""A rename in flight: which skill, its new name, its file's old and new place."""
STATUS_FOLDERS: dict[SkillStatus, str] = {"active": "", "draft": DRAFTS, "deleted": DELETED}
_EVERY_STATUS: tuple[SkillStatus, ...] = ("active", "draft", "deleted")
# Windows cannot create these names, with any extension; a skill folder may
# travel to Windows in a backup.
_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"{port}{n}" for port in ("COM", "LPT") for n in "123456789"]
)
_FORBIDDEN = re.compile(r'[<>:"/\\|?*]')
_HEADING = re.compile(r"^#+\s*")
_SECRET_IN_NAME = "its name holds what looks like a {} (secrets are never stored); rename the file"
_RENAMING_BYTES = 64 << 10
"""A rename note is a few hundred bytes; past this it is not one (and is not read)."""


class SkillRefused(ReverieError):
    """A skill name or text that cannot be used; nothing was changed."""


class SkillChangedMeanwhile(ReverieError):
    """A write decided on the skill's text as it was: it changed since (an
    edit saved meanwhile), so nothing was written over it."""

    def __init__(self, skill: Skill) -> None:
        super().__init__(f"{skill.name!r} was changed meanwhile; nothing was written over it.")
        self.skill = skill


class SkillFileError(EnvironmentProblem):
    """A skill file that cannot be read or written (not UTF-8, missing, no space)."""

    brief = (
        "the skill file could not be read or written (not UTF-8 text, larger than a "
        "skill can be, missing, or its folder not writable); nothing was changed, and "
        "the user was shown which file"
    )


@dataclass(frozen=True)
class SkillText:
    skill: Skill
    text: str
    """The whole file: the summary line first."""


@dataclass(frozen=True)
class SkippedFile:
    file_name: str
    reason: str


@dataclass(frozen=True)
class SyncReport:
    """What a sync with the folder found."""

    added: tuple[str, ...] = ()
    """Skills whose files appeared (names)."""
    removed: tuple[str, ...] = ()
    """Skills whose files went away, now deleted."""
    skipped: tuple[SkippedFile, ...] = ()
    """Files that could not be taken in, and why."""
    missing: bool = False
    """The folder is not there while skills are indexed in it: none was
    read, and nothing was changed because of it."""


def skill_name(raw: str) -> str:
    """*raw* as a skill name that is also a safe file name on every system;
    ``SkillRefused`` says why one cannot be."""
    name = _spelled(raw)
    if not raw.strip():
        raise SkillRefused("A skill needs a name.")
    if shows_nothing(name):
        raise SkillRefused(
            "A skill name must show something; this one shows nothing (only accents, "
            "blanks or invisible characters)."
        )
    if len(name) > NAME_CHARS:
        raise _name_too_long(name)
    if (size := len(name.encode("utf-8"))) > NAME_BYTES:
        # Checked here, where create, rename and a sync all name a skill: a
        # name accepted once can always be written again.
        raise SkillRefused(
            f"A skill name is too long as a file name: {size} bytes in UTF-8, at most "
            f"{NAME_BYTES} (an emoji takes 4). Choose a shorter name."
        )
    if _FORBIDDEN.search(name) or any(unicodedata.category(ch) == "Cc" for ch in name):
        raise SkillRefused(
            f'A skill name cannot contain path separators or any of < > : " | ? *; {name!r} does.'
        )
    if name.startswith(".") or name.endswith("."):
        raise SkillRefused(f"A skill name cannot start or end with a dot; {name!r} does.")
    if name.split(".")[0].strip().upper() in _RESERVED:
        raise SkillRefused(f"{name!r} is a name some systems reserve for devices; choose another.")
    return name


def summary_of(text: str) -> str:
    """The first line that says something, without a Markdown heading mark,
    as a reader sees it (a file edited by hand may hold what no one sees, and
    the summary goes into every prompt), its secrets taken out (a file written
    by hand is the user's, but its summary is stored in the database)."""
    for line in readable(text).splitlines():
        if line := _HEADING.sub("", line).strip():
            line = redact(line).text
            return cut(line, SUMMARY_CHARS)
    return ""


def _spelled(raw: str) -> str:
    """*raw* spelled as a skill's name: NFKC folds look-alikes (full-width
    letters, ligatures) into one spelling; invisible format characters
    (zero-width joiners) go, and so does a trailing file suffix."""
    name = unicodedata.normalize("NFKC", scrub(raw))
    name = "".join(ch for ch in name if unicodedata.category(ch) != "Cf")
    name = " ".join(name.split())
    if name.casefold().endswith(SUFFIX):
        name = name[: -len(SUFFIX)].rstrip()
    return name


def _name_too_long(name: str) -> SkillRefused:
    # Its length, not the name: a megabyte pasted as a name was quoted whole.
    return SkillRefused(
        f"A skill name is at most {NAME_CHARS} characters; this one has {len(name):,}."
    )


def file_text(text: str, redactor: Callable[[str], Redacted] = redact) -> str:
    """What a skill file holds once *text* is written to it, its secrets
    taken out by *redactor*; ``SkillRefused`` says why *text* cannot be a skill."""
    # As a reader sees it, as memories and tasks are kept: no control
    # character, no override reordering what is shown, no letters only a
    # model reads (a skill's text reaches the model whole).
    # A pasted page is refused before it is read for secrets (seconds a megabyte).
    text = readable(scrub(text)).replace("\r\n", "\n").strip("\n")
    if past_any_redaction(text, TEXT_CHARS):
        raise _too_long(text)
    text = redactor(text).text
    if not summary_of(text):
        raise SkillRefused(
            "A skill needs some text; its first line is the one-line summary of what it is for."
        )
    if len(text) > TEXT_CHARS:
        raise _too_long(text)
    return text + "\n"


def _too_long(text: str) -> SkillRefused:
    return SkillRefused(
        f"A skill is at most {TEXT_CHARS:,} characters; this one has {len(text):,}."
    )


def same_text(first: str, second: str) -> bool:
    """Whether *first* and *second* are the same once written to a skill file."""
    return _as_written(first) == _as_written(second)


def _as_written(text: str) -> str:
    try:
        return file_text(text)
    except SkillRefused:
        return text


@dataclass(frozen=True)
class SkillLine:
    name: str
    summary: str

    def render(self) -> str:
        name, summary = safe_for_prompt(self.name), safe_for_prompt(self.summary)
        return f"- {name}: {summary}" if summary else f"- {name}"


class SkillLibrary:
    """The skills folder and its index."""

    def __init__(
        self, store: SkillStore, directory: Path, *, redactor: Redactor | None = None
    ) -> None:
        self.store = store
        self.directory = directory
        self._redact = redactor or Redactor()
        self.last_sync = SyncReport()
        self._lock = threading.RLock()
        # What a sync read of each file, kept while the file is unchanged:
        # the list is synced at every chat turn, and the secret checks of a
        # name and a summary cost milliseconds each (seconds for a folder
        # of a thousand skills).
        self._names_seen: dict[str, tuple[int, str | None]] = {}
        self._summaries_seen: dict[str, tuple[tuple[int, ...], str]] = {}

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Hold the folder and its index still for the block: no skill is
        moved, written or synced meanwhile, by another thread.  An erasure
        removes a skill's file, then its row, under it: a restore between
        would move the file out of its reach, and the row would go without it."""
        with self._lock:
            yield

    def path(self, skill: Skill) -> Path:
        """Where the skill's file is (by its status)."""
        return self.directory / STATUS_FOLDERS[skill.status] / skill.file_name

    # -- reading -----------------------------------------------------------

    def list(
        self, query: str = "", statuses: Sequence[SkillStatus] = ("active",)
    ) -> builtins.list[Skill]:
        """Skills with one of *statuses* whose name, summary or text hold every
        word of *query* (of Chinese or Japanese, every pair of neighbouring
        characters: ``substring_words``), by name (after a sync with the
        folder)."""
        with self._lock:
            self.sync()
            skills = self.store.list(statuses)
            words = [searchable(word) for word in substring_words(query)]
            if not words:
                return skills
            return [skill for skill in skills if self._matches(skill, words)]

    def find(self, name: str, statuses: Sequence[SkillStatus] = ("active",)) -> Skill | None:
        """The skill called *name* (ignoring case) if it has one of *statuses*."""
        with self._lock:
            self.sync()
            skill = self.store.find(name)
            return skill if skill is not None and skill.status in statuses else None

    def read(self, skill_id: int) -> SkillText:
        """The skill's whole text, read from its file now; its summary follows
        the file's first line."""
        with self._lock:
            skill = self._require(skill_id)
            text = self._read(self.path(skill))
            summary = summary_of(text)
            if summary and summary != skill.summary:
                skill = self.store.update(skill.id, summary=summary)
            return SkillText(skill, text)

    def use(self, name: str, conversation_id: int | None) -> SkillText:
        """Read the active skill *name* for a conversation (for the model: as
        a reader sees it), and record the use."""
        with self._lock:
            skill = self.find(name)
            if skill is None:
                raise SkillNotFound(name)
            read = self.read(skill.id)
            self.store.record_use(skill.id, conversation_id)
            # As the file reads to its user: a hand edit may hold what no one sees.
            return SkillText(self._require(skill.id), readable(scrub(read.text)))

    def kept(self, text: str) -> str:
        """*text* (a skill's, read) with the secrets taken out that writing
        it takes out: what a record of it kept elsewhere may hold."""
        return self._redact.text(text)

    def uses(self, skill_id: int) -> builtins.list[SkillUse]:
        return self.store.uses(skill_id)

    def table_of_contents(self, max_chars: int) -> builtins.list[SkillLine]:
        """The active skills as the prompt lists them, by name, within *max_chars*
        (lines joined by newlines); when not all fit, the ones used or added
        most recently are kept."""
        with self._lock:
            skills = self.list()
        recent_first = sorted(
            skills, key=lambda s: (max(s.last_used_at or 0.0, s.created_at), s.id), reverse=True
        )
        kept: builtins.list[SkillLine] = []
        used = -1  # no newline before the first line
        for skill in recent_first:
            line = SkillLine(skill.name, skill.summary)
            if used + 1 + (size := len(line.render())) <= max_chars:
                kept.append(line)
                used += 1 + size
        return sorted(kept, key=lambda line: name_key(line.name))

    def sync(self) -> SyncReport:
        """Bring the index in line with the folder (see the module docstring)."""
        with self._lock:
            report = self._sync()
            self.last_sync = report
            return report

    # -- writing -----------------------------------------------------------

    def create(
        self, name: str, text: str, *, draft: bool = False, replace_deleted: bool = False
    ) -> Skill:
        """A new skill (a draft, for the user to accept or reject, if *draft*).
        With *replace_deleted* (the user's own new skill), the name of a
        deleted skill may be taken again: the new one takes its row (its
        uses carry over), and the deleted one, restorable no more, goes.
        Else that name is taken (``SkillNameTaken``): a model's or a dream's
        skill never takes the place of one the user may restore."""
        name, text = self._named(name), file_text(text, self._redact)
        status: SkillStatus = "draft" if draft else "active"
        with self._lock:
            self.sync()  # a file of that name made by hand is a skill already
            holder = self.store.find(name)
            if holder is not None and (holder.status != "deleted" or not replace_deleted):
                raise SkillNameTaken(holder)
            file_name = name + SUFFIX
            path = self.directory / STATUS_FOLDERS[status] / file_name
            self._write(path, text)
            try:
                if holder is None:
                    return self.store.add(name, summary_of(text), file_name, status)
                revived = self.store.revive(holder.id, name, summary_of(text), file_name, status)
            except BaseException:
                path.unlink(missing_ok=True)
                raise
            self._drop_deleted_copies(revived, holder.file_name)
            return revived

    def _drop_deleted_copies(self, skill: Skill, file_name: str) -> None:
        """Remove the deleted skill's files whose name and row *skill* took
        (``.deleted/<file_name>``, with its older copies): it can be
        restored no more, and no erasure would look for them, so the text
        the user deleted would stay for good."""
        deleted = self.directory / DELETED
        try:
            for path in [deleted / file_name, *older_copies(deleted, file_name)]:
                path.unlink(missing_ok=True)
        except OSError as error:
            raise SkillFileError(
                f"The skill {skill.name!r} was made, but the file of the deleted skill it "
                f"replaced could not be removed from {deleted}: {error.strerror or error}.",
                hint="Check that the skills folder is yours and writable, then remove it.",
            ) from error

    def _named(self, raw: str) -> str:
        """*raw* as a skill's name, its secrets taken out (``skill_name``);
        one too long however they are is refused unread (a megabyte pasted
        as a name was read for secrets for 6 s, then refused)."""
        if past_any_redaction(spelled := _spelled(raw), NAME_CHARS):
            raise _name_too_long(spelled)
        return skill_name(self._redact.text(raw))

    def update_text(self, skill_id: int, text: str, *, expected: str | None = None) -> Skill:
        """Replace the skill's text; its summary follows the new first line.
        With *expected*, only if the file still holds that text (as written):
        else ``SkillChangedMeanwhile``, and nothing is changed."""
        text = file_text(text, self._redact)
        with self._lock:
            skill = self._require(skill_id, ("active", "draft"))
            path = self.path(skill)
            # Checked under the lock the app's editor saves under, just before
            # the write: a change decided on the old text (a dream's) never
            # overwrites an edit saved meanwhile.
            if expected is not None and not same_text(self._read(path), expected):
                raise SkillChangedMeanwhile(skill)
            # The file first: if the index write then fails, the next read or
            # sync takes the summary from the file anyway.
            self._write(path, text)
            return self.store.update(skill.id, summary=summary_of(text))

    def take_out(self, values: Sequence[str]) -> int:
        """Take *values*, secrets named after a skill was written with them
        ("text Anna kettle-moon-42", then "that's our wifi password"), out of
        every skill's file and summary, whatever its status (a deleted one
        waits out its restore window with its text); how many changed."""
        changed = 0
        with self._lock:
            for skill in self.store.list(_EVERY_STATUS):
                path = self.path(skill)
                try:
                    text = self._read(path)
                except EnvironmentProblem:
                    continue  # gone or unreadable: nothing to take out there
                cleaned = without(text, values)
                if cleaned != text:
                    self._write(path, cleaned)
                    self.store.update(skill.id, summary=summary_of(cleaned))
                    changed += 1
        return changed

    def rename(self, skill_id: int, new_name: str) -> Skill:
        name = self._named(new_name)
        with self._lock:
            self.sync()
            skill = self._require(skill_id, ("active", "draft"))
            holder = self.store.find(name)
            if holder is not None and holder.id != skill.id:
                raise SkillNameTaken(holder)
            file_name = name + SUFFIX
            source = self.path(skill)
            target = source.with_name(file_name)
            # The file and the row cannot change together: noted first, so a
            # kill between is finished by the next sync (``_finish_rename``).
            note = {
                "skill": skill.id,
                "name": name,
                "file_name": file_name,
                "from": source.relative_to(self.directory).as_posix(),
                "to": target.relative_to(self.directory).as_posix(),
            }
            self._write(self.directory / RENAMING, json.dumps(note, ensure_ascii=False))
            with self._moved(source, target):
                renamed = self.store.update(skill.id, name=name, file_name=file_name)
            self._drop_rename_note()
            return renamed

    def delete(self, skill_id: int) -> Skill:
        """Soft: the file goes to ``.deleted/``, and ``restore`` brings it back."""
        return self._move(skill_id, ("active", "draft"), "deleted")

    def move(self, skill_id: int, to: SkillStatus) -> Skill:
        """The skill to status *to* from whichever it has: how a change that
        was interrupted is put back as it was."""
        return self._move(skill_id, tuple(s for s in EVERY_STATUS if s != to), to)

    def restore(self, skill_id: int) -> Skill:
        """A deleted skill (or rejected draft) back as an active skill."""
        return self._move(skill_id, ("deleted",), "active")

    def accept(self, skill_id: int) -> Skill:
        """A draft becomes an active skill."""
        return self._move(skill_id, ("draft",), "active")

    def reject(self, skill_id: int) -> Skill:
        """A draft is deleted (restorable)."""
        return self._move(skill_id, ("draft",), "deleted")

    def discard(self, skill_id: int) -> Skill:
        """A draft's file removed for good (not restorable); its row is left
        deleted, for the caller to forget (``PurgeStore.forget_skills``)."""
        with self._lock:
            self.sync()
            skill = self._require(skill_id, ("draft",))
            path = self.path(skill)
            try:
                path.unlink(missing_ok=True)
            except OSError as error:
                raise _file_error(path, "removed", error) from error
            return self.store.set_status(skill.id, "deleted", from_statuses=("draft",))

    def clear_leftovers(self) -> None:
        """Remove the temporary files of skill writes a kill cut short (one may
        hold a draft's text, since erased), but not one a live write holds."""
        with self._lock:
            for folder in STATUS_FOLDERS.values():
                place = self.directory / folder
                try:
                    if place.is_dir():
                        remove_leftovers(place, f".*{PART}")
                except OSError as error:
                    raise SkillFileError(
                        f"A temporary file left in {place} could not be removed: "
                        f"{error.strerror or error}.",
                        hint="Check that the skills folder is writable.",
                    ) from error

    # -- the folder --------------------------------------------------------

    def _move(self, skill_id: int, allowed: Sequence[SkillStatus], to: SkillStatus) -> Skill:
        with self._lock:
            self.sync()
            skill = self._require(skill_id, allowed)
            target = self.directory / STATUS_FOLDERS[to] / skill.file_name
            if to == "deleted":
                _make_room(target)  # an older deleted copy of the name is kept too
            elif target.exists():
                raise SkillFileError(
                    f"{target} already exists, so {skill.name!r} cannot be put there.",
                    hint="Rename or move that file first.",
                )
            with self._moved(self.path(skill), target):
                return self.store.set_status(skill.id, to, from_statuses=allowed)

    @contextlib.contextmanager
    def _moved(self, source: Path, target: Path) -> Iterator[None]:
        """Move *source* to *target* for the block; back if the block raises."""
        if source == target:
            yield
            return
        try:
            make_missing_folders(target.parent)  # .drafts, .deleted: 0700
            os.replace(source, target)
        except OSError as error:
            raise _file_error(source, "moved", error) from error
        try:
            yield
        except BaseException:
            with contextlib.suppress(OSError):  # the block's error is the one to report
                os.replace(target, source)
            raise

    def _finish_rename(self) -> None:
        """A rename killed between moving its file and writing its row: the row
        follows the file (else the skill would come back as a new one, without
        its uses, and the old one deleted)."""
        path = self.directory / RENAMING
        try:
            found = path.lstat()
        except FileNotFoundError:
            return
        except OSError as error:
            raise _file_error(path, "read", error) from error
        try:
            note = _rename_note(path, found)
        except _DamagedRename as damaged:
            # Written whole by Reverie, so another hand's: the move it names
            # is not Reverie's to finish.  Named by what is wrong, not its text.
            log.warning("%s was dropped: it is %s", path, damaged)
            note = None
        if note is not None:
            skill = self.store.get(note.skill)
            moved = (self.directory / note.target).is_file() and not (
                self.directory / note.source
            ).exists()
            if skill is not None and skill.file_name != note.file_name and moved:
                with contextlib.suppress(SkillNameTaken):  # taken by hand since: sync sorts it
                    self.store.update(skill.id, name=note.name, file_name=note.file_name)
        self._drop_rename_note()

    def _drop_rename_note(self) -> None:
        path = self.directory / RENAMING
        try:
            path.unlink(missing_ok=True)
        except OSError as error:
            raise _file_error(path, "removed", error) from error

    def _sync(self) -> SyncReport:
        if not self.directory.is_dir():
            return self._folder_missing()
        self._finish_rename()
        skipped: builtins.list[SkippedFile] = []
        on_disk: dict[str, tuple[str, Path]] = {}
        for path in sorted(self.directory.glob(f"*{SUFFIX}")):
            if path.name.startswith(".") or not path.is_file():
                continue
            try:
                name = skill_name(path.name)
            except SkillRefused as refusal:
                skipped.append(SkippedFile(path.name, str(refusal)))
                continue
            if kind := self._secret_in(name):
                # Its name would be stored, listed in every prompt and exported.
                skipped.append(SkippedFile(path.name, _SECRET_IN_NAME.format(kind)))
                continue
            if name_key(name) in on_disk:
                skipped.append(SkippedFile(path.name, f"another file is also called {name!r}"))
                continue
            on_disk[name_key(name)] = (name, path)
        known = {name_key(skill.name): skill for skill in self.store.list(EVERY_STATUS)}
        added: builtins.list[str] = []
        new: builtins.list[tuple[str, str, str]] = []
        for key, (name, path) in on_disk.items():
            skill = known.get(key)
            try:
                summary = self._summary_of_file(path)
            except SkillFileError as problem:
                skipped.append(SkippedFile(path.name, str(problem)))
                continue
            if skill is None:
                new.append((name, summary, path.name))
                added.append(name)
            elif skill.status == "deleted":  # put back by hand: the file wins
                self.store.revive(skill.id, name, summary, path.name, "active")
                added.append(name)
            elif skill.status == "draft":  # a draft's name made by hand: the file wins
                self.store.update(skill.id, summary=summary, file_name=path.name)
                self.store.set_status(skill.id, "active", from_statuses=("draft",))
                added.append(name)
            elif (summary, path.name) != (skill.summary, skill.file_name):
                self.store.update(skill.id, summary=summary, file_name=path.name)
        self.store.add_many(new, "active")
        removed: builtins.list[str] = []
        for key, skill in known.items():
            # A skill with a file in the folder was dealt with above.
            if key not in on_disk and skill.status != "deleted" and not self.path(skill).is_file():
                self.store.set_status(skill.id, "deleted", from_statuses=(skill.status,))
                removed.append(skill.name)
        self._forget_seen(
            {path.name for _, path in on_disk.values()}, {name for name, _ in on_disk.values()}
        )
        return SyncReport(tuple(added), tuple(removed), tuple(skipped))

    def _secret_in(self, name: str) -> str | None:
        """The kind of secret the skill name *name* holds, if any; remembered
        until the redactor catches another secret."""
        seen = self._names_seen.get(name)
        if seen is None or seen[0] != self._redact.caught:
            kinds = self._redact(name).kinds
            seen = (self._redact.caught, kinds[0] if kinds else None)
            self._names_seen[name] = seen
        return seen[1]

    def _summary_of_file(self, path: Path) -> str:
        """The summary of the skill file at *path* (``summary_of``), read
        again only once the file changed (its size, times or inode)."""
        try:
            found = path.stat()
        except OSError as error:
            raise _file_error(path, "read", error) from error
        stamp = (found.st_mtime_ns, found.st_ctime_ns, found.st_size, found.st_ino, found.st_dev)
        seen = self._summaries_seen.get(path.name)
        if seen is not None and seen[0] == stamp:
            return seen[1]
        summary = summary_of(self._read(path))
        self._summaries_seen[path.name] = (stamp, summary)
        return summary

    def _forget_seen(self, file_names: set[str], names: set[str]) -> None:
        """Keep what was read of the files in the folder now (their
        *file_names*, the skill *names* they make), no more."""
        for seen, kept in ((self._summaries_seen, file_names), (self._names_seen, names)):
            for gone in [key for key in seen if key not in kept]:
                del seen[gone]

    def _folder_missing(self) -> SyncReport:
        """No folder is not every file removed by hand: a folder moved or
        renamed, or not there yet, takes no skill with it (a draft taken
        for deleted could not be restored, its file not among the deleted
        ones).  Said (``missing``) while there are skills it should hold."""
        return SyncReport(missing=bool(self.store.list(("active", "draft"))))

    def _matches(self, skill: Skill, words: Sequence[str]) -> bool:
        try:
            body = self._read(self.path(skill))
        except SkillFileError:
            body = ""  # unreadable: still found by its name and summary
        haystack = searchable(f"{skill.name}\n{skill.summary}\n{body}")
        return all(word in haystack for word in words)

    def _require(self, skill_id: int, statuses: Sequence[SkillStatus] = EVERY_STATUS) -> Skill:
        skill = self.store.get(skill_id)
        if skill is None:
            raise SkillNotFound(skill_id)
        if skill.status not in statuses:
            raise SkillStateError(
                f"{skill.name!r} is {skill.status}; this needs a skill that is "
                f"{' or '.join(statuses)}."
            )
        return skill

    @staticmethod
    def _read(path: Path) -> str:
        """The file at *path*, whole; a file larger than a skill can be is
        refused unread (``SkillFileError``), as one that is not UTF-8 is."""
        try:
            data = _read_bounded(path)
        except NotARegularFile as odd:
            raise SkillFileError(
                f"The skill file {path} is {odd.kind}, not a file; it was not read.",
                hint="Move it out of the skills folder.",
            ) from odd
        except OSError as error:
            raise _file_error(path, "read", error) from error
        if data is None:
            raise SkillFileError(
                f"The skill file {path} is larger than a skill can be (at most "
                f"{TEXT_CHARS:,} characters); it was not read and nothing was changed.",
                hint="Split it into smaller skills, or move it out of the skills folder.",
            )
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise SkillFileError(
                f"The skill file {path} is not UTF-8 text (byte 0x{data[error.start]:02x} at "
                f"position {error.start} is not); it was not read and nothing was changed.",
                hint="Open it in a text editor and save it with the UTF-8 encoding.",
            ) from error

    @staticmethod
    def _write(path: Path, text: str) -> None:
        try:
            make_missing_folders(path.parent)
            write_atomically(path, text)
        except OSError as error:
            raise _file_error(path, "written", error) from error


class _RenameNote(BaseModel):
    """What ``rename`` notes in ``.renaming.json``."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=True)
    skill: int = Field(ge=1, le=2**63 - 1)  # an SQLite rowid
    name: str
    file_name: str
    source: str = Field(alias="from")
    target: str = Field(alias="to")


class _DamagedRename(Exception):
    """Why ``.renaming.json`` is not a rename note (what is wrong, never its text)."""


def _rename_note(path: Path, found: os.stat_result) -> _RenameNote | None:
    """The rename note at *path* (None: never written whole, so the move
    never began); ``_DamagedRename`` if it is not one Reverie wrote."""
    if not stat.S_ISREG(found.st_mode):  # a FIFO would block, /dev/zero never end
        raise _DamagedRename("not a regular file")
    try:
        with path.open("rb") as file:
            data = file.read(_RENAMING_BYTES + 1)
    except OSError as error:
        raise _file_error(path, "read", error) from error
    if len(data) > _RENAMING_BYTES:
        raise _DamagedRename(f"larger than {_RENAMING_BYTES:,} bytes")
    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return None  # cut short by a kill as it was written
    try:
        note = _RenameNote.model_validate_json(data)
    except ValidationError as error:
        kinds = sorted({e["type"] for e in error.errors(include_input=False, include_url=False)})
        raise _DamagedRename(f"not a whole rename note ({', '.join(kinds)})") from None
    _check_rename(note)
    return note


def _check_rename(note: _RenameNote) -> None:
    """A file name the skill's own, and places in the skills folder or its
    drafts (the row's file name is where later writes go)."""
    try:
        named = skill_name(note.name) == note.name and note.file_name == note.name + SUFFIX
    except SkillRefused:
        named = False
    if not named:
        raise _DamagedRename("naming a file that is not the skill's name")
    target, source = PurePosixPath(note.target), PurePosixPath(note.source)
    for place in (target, source):
        folders = place.parts[:-1]
        if (
            folders not in ((), (DRAFTS,))
            or place.name in ("", ".", "..")
            or folders != (target.parts[:-1])
        ):
            raise _DamagedRename("naming a place outside the skills folder")
        if _FORBIDDEN.search(place.name) or place.name.startswith("."):
            raise _DamagedRename("naming a place outside the skills folder")
    if target.name != note.file_name:
        raise _DamagedRename("naming a file that is not the skill's name")


def _read_bounded(path: Path) -> bytes | None:
    """The bytes of *path* (a link is followed: a skill file may be one), or
    None if it holds more than ``FILE_BYTES``: never more is read.  Raises
    ``OSError``, ``NotARegularFile`` if it is not a regular file (a named pipe
    would block)."""
    descriptor = open_regular(Path(os.path.realpath(path)))
    with os.fdopen(descriptor, "rb") as file:
        if os.fstat(descriptor).st_size > FILE_BYTES:
            return None
        data = file.read(FILE_BYTES + 1)  # it may grow meanwhile
    return None if len(data) > FILE_BYTES else data


def older_copies(deleted: Path, file_name: str) -> list[Path]:
    """The older deleted copies of *file_name* in the folder *deleted*
    (``name (2).md``, as ``_make_room`` leaves them).  Raises ``OSError``."""
    stem, suffix = os.path.splitext(file_name)
    older = re.compile(rf"{re.escape(stem)} \(\d+\){re.escape(suffix)}")
    try:
        return [p for p in deleted.iterdir() if older.fullmatch(p.name)]
    except FileNotFoundError:
        return []


def _make_room(path: Path) -> None:
    """Move an existing *path* aside as ``name (2).md`` etc., never overwriting."""
    if not path.exists():
        return
    for number in range(2, 10_000):
        older = path.with_name(f"{path.stem} ({number}){path.suffix}")
        if not older.exists():
            try:
                os.replace(path, older)
            except OSError as error:
                raise _file_error(path, "moved", error) from error
            return
    raise SkillFileError(f"{path.parent} holds too many old copies of {path.name}.")


_HINTS = {
    errno.ENAMETOOLONG: "Its name is too long for this file system: rename the skill to a "
    "shorter name, or move the file out of the skills folder.",
    errno.ENOSPC: "Free some space on the disk that holds the skills folder.",
    errno.EROFS: "The skills folder is on a read-only disk; make it writable.",
    errno.EACCES: "Check that the skills folder and the file are yours and writable.",
    errno.EPERM: "Check that the skills folder and the file are yours and writable.",
    errno.ENOENT: "Check that the skills folder exists.",
}


def _file_error(path: Path, done: str, error: OSError) -> SkillFileError:
    """*error* as the user reads it, with the hint for what went wrong (a
    name too long is not a full disk)."""
    reason = error.strerror or str(error)
    return SkillFileError(
        f"The skill file {path} could not be {done}: {reason}. Nothing was changed.",
        hint=_HINTS.get(
            error.errno or 0,
            "Check that the skills folder exists and is writable, and that the disk has space.",
        ),
    )
