"""``Eraser``: deleted memories, conversations, tasks and skills, erased for good when
their time is up.

A deletion is restorable for ``DreamSettings.deleted_kept_days``; then (after
each dream, and at start) it is erased: gone from the database file, its
WAL, its full-text indexes, its vectors and every snapshot taken before a
dream (``desktop.core.db.purge``), and ``MEMORIES.md`` is written again
without it.  A skill's file goes first (in the skills folder, with the
older deleted copies of its name, and in each snapshot's copy of the
folder), then its row, the skill library held meanwhile (a restore moving
the file between would leave it with its row gone).  What is due when
the restore window ends is decided once the erasure holds everything,
inside the transaction that erases it: what the user restored while the
erasure waited its turn is kept.  "Delete now" erases at once.  With a restore window of 0 days a
deletion is erased by the next purge (after the next dream, or at start).

Erasing rewrites the whole database file (``VACUUM``): seconds for a large
one, so callers run it off the UI thread.

An erasure cut short (a kill, a crash, a full disk) is finished by the next
one, whatever it is asked, and at start (``erase_expired``): the rows go
in one transaction, but compacting the file, purging the snapshots and
writing ``MEMORIES.md`` again come after.  A mark beside the database
(``<database>-erasing``) is written before the rows can go and removed only
when all of it is done; while it is there every erasure compacts the file
and writes ``MEMORIES.md`` again.  Anything but a file where the mark goes
(a named pipe, a folder, a link) is named and the erasure refused: it is
never opened (a pipe would keep the erasure, and every job queued behind
it, waiting for good).  Every erasure also purges each snapshot
still holding an erased id, one a cut purge left with a journal included,
and removes what interrupted copies left in the snapshots folder (as
``remove_leftovers`` does), however young: every copy is written under the
lock the erasure holds (below), so none is being written.  Only where
that lock holds this process's threads alone (Windows: no ``flock``) are
just the files older than ``LEFTOVER_AGE_S`` removed: another process may
be writing its copy at that moment, and a copy in progress is always
younger than that.  A snapshot SQLite finds damaged can be neither
purged nor restored: it is removed, and the erasure says so.

An erasure holds the snapshots (``SnapshotsLock``, which a dream's copy
takes too) from its first step to its last: a copy being written when it
starts is waited for, then purged with the others; one a dream starts
meanwhile waits, and is read from the database without the erased rows.
Else a copy read before the rows went would land after the purge, holding
what the user was told is gone.

A value named a secret later, taken out of the memories in place, owes
``MEMORIES.md`` too (``memories_rewritten``): the rewrite queues that with
its rows, and a kill or a full disk before the file is written leaves it
to the next start (``erase_expired``).

A draft skill a dream made only from erased conversations (and the user
did not accept) goes too: every erasure looks for such drafts, whatever it
is asked, so one a kill left is removed by the next; its file first (in
the skills folder and in each snapshot's copy of it), then its row.
Before anything is erased, skill changes a kill (or a failure) cut short
are settled (``ChangeBook.finish_interrupted``): their notes in
``skills/.changes/`` hold skills and drafts as a dream wrote them, and a
draft whose record never landed is tied to no conversation; settling
removes it and the note.  Notes set aside as damaged (which cannot be
settled) are removed.

A full or failing disk while compacting or purging the snapshots, after
the rows went, raises ``ErasedNotFinished``: what was asked is gone from
the tables, and the mark left beside the database makes the next erasure
(or the next start) finish the rest.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from desktop.core.base.errors import EnvironmentProblem, ReverieError
from desktop.core.base.files import kind_of, kind_refused, open_private
from desktop.core.base.settings import DreamSettings
from desktop.core.db import Database, DatabaseUnavailable, DreamStore, MemoryStore
from desktop.core.db.purge import Compacted, Erasable, ErasedDraft, PurgeStore
from desktop.core.dreaming.changes import ChangeBook
from desktop.core.dreaming.skill_notes import ChangeNotes
from desktop.core.dreaming.snapshots import (
    SKILLS_SUFFIX,
    SNAPSHOT_PREFIX,
    SNAPSHOT_SUFFIX,
    SnapshotsLock,
    complete_snapshots,
    damaged,
    discard,
    roll_back_cut,
)
from desktop.core.dreaming.working_set import write_working_set
from desktop.core.skills.library import DELETED, STATUS_FOLDERS, SkillLibrary, older_copies

log = logging.getLogger(__name__)

DAY = 86_400.0
LEFTOVER_AGE_S = 600.0
"""Where the snapshots' lock does not reach other processes (Windows), what
an interrupted snapshot left is removed once it is this old: a dream writes
its copy in seconds, and its files are new when it starts."""
UNFINISHED_SUFFIX = "-erasing"
"""The mark beside the database while an erasure is not finished."""


class ErasedNotFinished(EnvironmentProblem):
    """The rows were erased, but a step after them failed (removing drafts,
    compacting the file or purging the snapshots, on a full disk): the
    file's free space, a draft or a snapshot may still hold the text until
    the next erasure finishes it."""

    def __init__(
        self, erasure: Erasure, step: str, still_holding: str, problem: EnvironmentProblem
    ) -> None:
        super().__init__(
            f"{erasure.describe()} {step} failed ({_first_sentence(problem)}) and will be "
            "finished later, by the next erasure or the next start; until then "
            f"{still_holding} may still hold the text.",
            _advice(problem),
        )
        self.erasure = erasure


def _advice(problem: EnvironmentProblem) -> str:
    """What to do about the step that failed: its own advice (remove a file
    by hand, fix a folder's permissions), not always "free some disk space"."""
    if isinstance(problem, DatabaseUnavailable):  # its advice is about the live database
        return "Check that the file named and its folder are readable and writable by you."
    return problem.hint or "Free some disk space."


@dataclass(frozen=True)
class Erasure:
    """What one erasure did."""

    memories: int
    conversations: int
    snapshots: int
    """Snapshot files that held some of it, and were purged too."""
    wal_truncated: bool
    tasks: int = 0
    skills: int = 0
    finished_earlier: bool = False
    """An erasure cut short before was finished by this one."""
    damaged_removed: tuple[str, ...] = ()
    """Snapshots (file names) removed because they were damaged: they could
    be neither purged nor restored."""

    def describe(self) -> str:
        """A sentence for a dream report or a banner."""
        said = self._what_was_erased()
        if len(self.damaged_removed) == 1:
            said += (
                f" Removed the damaged snapshot {self.damaged_removed[0]}: it could be "
                "neither purged nor used to restore the database."
            )
        elif self.damaged_removed:
            said += (
                f" Removed {len(self.damaged_removed)} damaged snapshots "
                f"({', '.join(self.damaged_removed)}): they could be neither purged nor "
                "used to restore the database."
            )
        return said

    def _what_was_erased(self) -> str:
        if not (self.memories or self.conversations or self.tasks or self.skills):
            copies = _count(self.snapshots, "snapshot", "snapshots")
            if self.finished_earlier:
                where = f"the database and {copies}" if copies else "the database"
                return f"Finished erasing what an interrupted erasure left in {where}."
            if copies:
                return f"Erased from {copies} what an earlier erasure left there."
            return "Nothing was due to be erased."
        parts = [
            _count(self.memories, "memory", "memories"),
            _count(self.conversations, "conversation", "conversations"),
            _count(self.tasks, "task", "tasks"),
            _count(self.skills, "skill", "skills"),
        ]
        said = f"Erased {_listed([p for p in parts if p])} for good"
        if self.snapshots:
            said += f", from the database and {_count(self.snapshots, 'snapshot', 'snapshots')}"
        if not self.wal_truncated:
            # Another program was reading the file; SQLite empties the WAL at the next chance.
            said += "; a copy stays in the database's write-ahead log until Reverie closes"
        return said + "."


def _erasure_of(
    erased: Erasable,
    *,
    snapshots: int,
    wal_truncated: bool,
    finished_earlier: bool = False,
    damaged_removed: tuple[str, ...] = (),
) -> Erasure:
    """What an erasure of *erased* did, each kind counted (a task or skill too)."""
    return Erasure(
        len(erased.memory_ids),
        len(erased.conversation_ids),
        snapshots,
        wal_truncated,
        tasks=len(erased.task_ids),
        skills=len(erased.skill_ids),
        finished_earlier=finished_earlier,
        damaged_removed=damaged_removed,
    )


class Eraser:
    """Erases deletions from *database*, the snapshots in *snapshots_dir* and
    the working set file (``MEMORIES.md``), keeping each deletion restorable
    for *kept_days* (a callable: the setting may change while Reverie runs)."""

    def __init__(
        self,
        database: Database,
        store: MemoryStore,
        *,
        snapshots_dir: Path,
        working_set_file: Path,
        working_set_size: Callable[[], int],
        kept_days: Callable[[], float],
        clock: Callable[[], float] = time.time,
        skills: SkillLibrary | None = None,
    ) -> None:
        """Without *skills* (the application's skill library), drafts made
        from erased conversations are left as they are (their change is
        still blanked)."""
        self._database = database
        self._purge = PurgeStore(database)
        self._skills = skills
        self._unfinished = Path(f"{database.path}{UNFINISHED_SUFFIX}")
        # One erasure at a time (a dream's and a "Delete now" may meet): the
        # mark is removed only when no other erasure still needs it.
        self._one_at_a_time = threading.Lock()
        self.snapshots_lock = SnapshotsLock(snapshots_dir)
        """Held by every erasure; a dream's copy is written under it too."""
        self._store = store
        self._snapshots_dir = snapshots_dir
        self._working_set_file = working_set_file
        self._working_set_size = working_set_size
        self._kept_days = kept_days
        self._clock = clock
        self.erasures = 0
        """How many erasures removed something since Reverie started."""

    def erase_memories(self, memory_ids: Iterable[int]) -> Erasure:
        """Erase these memories now, whatever their status ("Delete now")."""
        return self._erase(Erasable(memory_ids=tuple(memory_ids)))

    def erase_conversations(self, conversation_ids: Iterable[int]) -> Erasure:
        """Erase these conversations and their messages now ("Delete now")."""
        return self._erase(Erasable(conversation_ids=tuple(conversation_ids)))

    def erase_tasks(self, task_ids: Iterable[int]) -> Erasure:
        """Erase these tasks now ("Delete now")."""
        return self._erase(Erasable(task_ids=tuple(task_ids)))

    def erase_skills(self, skill_ids: Iterable[int]) -> Erasure:
        """Erase these skills, their files too, now ("Delete now")."""
        return self._erase(Erasable(skill_ids=tuple(skill_ids)))

    def erase_expired(self) -> Erasure:
        """Erase what was deleted longer ago than the restore window.  At
        start, first write ``MEMORIES.md`` again if a value taken out of the
        memories is still owed to it (``memories_rewritten``, cut short)."""
        self.memories_rewritten()
        return self._erase(Erasable(), expired_before=self._clock() - self._kept_days() * DAY)

    def erase_after_dream(self) -> str:
        """``erase_expired`` for the end of a dream: what it did, or why it
        could not, as a sentence for the dream's report (the dream itself
        is done either way)."""
        try:
            return self.erase_expired().describe()
        except ErasedNotFinished as problem:
            log.warning("finishing an erasure failed: %s", problem)
            return str(problem)
        except EnvironmentProblem as problem:
            log.warning("erasing expired deletions failed: %s", problem)
            return f"Expired deletions were not erased: {problem}"

    def blank_dream_words(self) -> None:
        """Blank the model's words every dream kept again: a dream that ran
        while something was erased wrote, after the erasure, words it had
        from before it."""
        with self._one_at_a_time:
            self._purge.blank_dream_words()
            self._purge.compact()  # the WAL still holds the words as they were

    def erased_on(self, memory_ids: Iterable[int]) -> dict[int, float]:
        """When each deleted one of *memory_ids* will be erased for good."""
        window = self._kept_days() * DAY
        return {i: at + window for i, at in self._purge.deleted_at(memory_ids).items()}

    def conversation_erased_on(self, deleted_at: float) -> float:
        """When a conversation deleted at *deleted_at* will be erased for good."""
        return deleted_at + self._kept_days() * DAY

    def _erase(self, items: Erasable, *, expired_before: float | None = None) -> Erasure:
        """Erase *items* (or, with *expired_before*, what was deleted before
        then), finishing first what an earlier erasure left undone."""
        with self._one_at_a_time, contextlib.ExitStack() as held:
            try:
                held.enter_context(self.snapshots_lock.held("An erasure"))
            except OSError as error:
                why = (error.strerror or type(error).__name__).lower()
                raise EnvironmentProblem(
                    f"Nothing was erased: the snapshots folder {self._snapshots_dir} could "
                    f"not be opened ({why}).",
                    "Fix the folder's permissions, then try again.",
                ) from error
            return self._erase_alone(items, expired_before)

    def _erase_alone(self, items: Erasable, expired_before: float | None) -> Erasure:
        unfinished = self._left_unfinished()  # first: nothing is done past an odd mark
        self._settle_skill_changes()
        with self._skills_held():
            erased = self._erase_rows(items, expired_before)
        if erased:
            self.erasures += 1
            # Ids only: the point is that the text is gone, from the log too.
            log.info(
                "erasing for good: memories %s, conversations %s, tasks %s, skills %s",
                *(list(ids) for _, ids in erased.by_kind()),
            )
        elif unfinished:
            log.info("finishing an erasure that was cut short")
        # The rows are gone (their transaction committed): a failure from
        # here on must not say "nothing was changed".  The mark stays.
        with _finished_later(erased, "Removing the draft skills made from it", "a draft"):
            drafts = self._remove_drafts_of_erased()
        compacted = Compacted(True)
        with _finished_later(erased, "Compacting the database file", "its free space"):
            if erased or unfinished or drafts:
                compacted = self._purge.compact()
        damaged_removed: list[str] = []
        with _finished_later(erased, "Purging the snapshots taken before dreams", "a snapshot"):
            snapshots = self._purge_snapshots(damaged_removed)
        if erased.memory_ids or unfinished:
            self._rewrite_working_set()
        self._unfinished.unlink(missing_ok=True)
        return _erasure_of(
            erased,
            snapshots=snapshots,
            wal_truncated=compacted.wal_truncated,
            finished_earlier=unfinished,
            damaged_removed=tuple(damaged_removed),
        )

    def _erase_rows(self, items: Erasable, expired_before: float | None) -> Erasable:
        """Erase *items*, or what is due (decided now, when the erasure holds
        everything: what was restored while it waited its turn is kept),
        the skills' files before their rows; what was erased."""
        if expired_before is not None:
            items = self._purge.expired(expired_before)
        if not items:
            return Erasable()
        self._mark_unfinished()  # before the rows can go: a kill after it is finished later
        # The files before the rows: a kill between leaves a row to find again.
        self._remove_skill_files(self._purge.skill_files(items.skill_ids), [])
        # What is due is decided again inside the transaction: a memory, task
        # or conversation restored since the line above is kept.
        return self._purge.erase(items, self._clock(), deleted_before=expired_before)

    def _skills_held(self) -> contextlib.AbstractContextManager[None]:
        """The skill library held still (``SkillLibrary.held``) while skill
        files and rows go: no restore moves a file out of the erasure's reach."""
        return self._skills.held() if self._skills is not None else contextlib.nullcontext()

    def _settle_skill_changes(self) -> None:
        """Settle the skill changes cut short, and remove the notes set aside
        as damaged (see the module docstring); a change a live process is
        making is passed by (that process records it or takes it back).  Not
        settled (the skills folder failing): said in the log, and the erasure
        goes on, the note kept for the next one."""
        if self._skills is None:
            return
        notes = ChangeNotes(self._skills.directory)
        if not notes.any_left():
            return
        try:
            book = ChangeBook(
                self._database,
                self._store,
                DreamStore(self._database),
                DreamSettings(),
                skills=self._skills,
            )
            book.finish_interrupted()
        except ReverieError as problem:
            log.warning("skill changes cut short are not settled yet: %s", type(problem).__name__)
        try:
            notes.remove_set_aside()
        except OSError as error:
            log.warning("damaged skill change notes are not removed yet: %s", error.strerror)

    def _remove_drafts_of_erased(self) -> bool:
        """Remove the draft skills made only from erased conversations: each
        file (in the skills folder and every snapshot's copy of it) before
        its row, so a kill between leaves the row, found again next time.
        Whether there were any."""
        if self._skills is None:
            return False
        with self._skills.held():  # no accept or restore moves a file out of reach meanwhile
            drafts = self._purge.drafts_of_erased()
            if not drafts:
                return False
            self._mark_unfinished()  # the rows' freed pages hold a line of each
            snapshots = (
                complete_snapshots(self._snapshots_dir) if self._snapshots_dir.is_dir() else []
            )
            self._remove_skill_files(drafts, snapshots)
            self._purge.forget_skills([d.skill_id for d in drafts])
        log.info(
            "removed draft skills made from erased conversations: %s", [d.skill_id for d in drafts]
        )
        return True

    def _remove_skill_files(self, skills: list[ErasedDraft], snapshots: list[Path]) -> None:
        """Remove the files of *skills* from the skills folder and from the
        copy of it beside each of *snapshots*."""
        if self._skills is None or not skills:
            return
        for folder in [self._skills.directory, *(p.with_suffix(SKILLS_SUFFIX) for p in snapshots)]:
            _remove_skill_files_in(folder, skills)

    def _left_unfinished(self) -> bool:
        """Whether an erasure cut short left its mark.  Anything but a file
        there is named, never opened (a named pipe would keep its opener
        waiting for good, a link lead elsewhere)."""
        try:
            found = os.lstat(self._unfinished)
        except FileNotFoundError:
            return False
        except OSError as error:
            raise self._mark_unusable(error.strerror or "it cannot be looked at") from error
        if not stat.S_ISREG(found.st_mode):
            raise self._mark_in_the_way(kind_of(found.st_mode))
        return True

    def _mark_unfinished(self) -> None:
        # Not blocking and not following a link: what stands there was
        # looked at when this erasure began, but may have been swapped since.
        flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            descriptor = open_private(str(self._unfinished), flags)
        except OSError as error:
            kind = kind_refused(self._unfinished, error)
            if kind is not None:
                raise self._mark_in_the_way(kind) from error
            raise self._mark_unusable(error.strerror or "it cannot be written") from error
        try:
            mode = os.fstat(descriptor).st_mode
            if not stat.S_ISREG(mode):
                raise self._mark_in_the_way(kind_of(mode))
            os.fsync(descriptor)
        except OSError as error:
            raise self._mark_unusable(error.strerror or "it cannot be written") from error
        finally:
            os.close(descriptor)

    def _mark_in_the_way(self, kind: str) -> EnvironmentProblem:
        return EnvironmentProblem(
            f"Nothing was erased: {self._unfinished} is {kind}, where Reverie marks an "
            "erasure that is not finished yet.",
            "Move or rename it, then try again; the database itself is untouched.",
        )

    def _mark_unusable(self, why: str) -> EnvironmentProblem:
        return EnvironmentProblem(
            f"Nothing was erased: {self._unfinished} could not be written ({why}).",
            "Free some disk space or fix the folder's permissions, then try again.",
        )

    def _purge_snapshots(self, damaged_removed: list[str]) -> int:
        """Erase everything ever erased from every snapshot; how many held
        some.  A damaged copy cannot be purged (nor restored): it is removed
        and its name added to *damaged_removed*, so it never blocks an erasure."""
        if not self._snapshots_dir.is_dir():
            return 0
        # A copy a kill left mid-change (a cut purge or sweep) counts again.
        roll_back_cut(self._snapshots_dir, self._database)
        everything = self._purge.erased()
        purged = 0
        for path in complete_snapshots(self._snapshots_dir) if everything else []:
            try:
                # As the copy has them (a skill renamed or deleted since is elsewhere there).
                copied = self._purge.skill_files(everything.skill_ids, copy=path)
                _remove_skill_files_in(path.with_suffix(SKILLS_SUFFIX), copied)
                purged += self._purge.purge_copy(path, everything)
            except DatabaseUnavailable:
                if _gone(path):
                    continue
                if not damaged(path, self._database):
                    raise
                self._discard_damaged(path)
                damaged_removed.append(path.name)
        self._remove_leftovers()
        return purged

    def _discard_damaged(self, path: Path) -> None:
        log.warning("snapshot %s is damaged and cannot be purged: removed", path.name)
        try:
            discard(path)
        except OSError as error:
            raise EnvironmentProblem(
                f"The damaged snapshot {path} could not be removed ({error.strerror}).",
                "Remove it by hand: it may hold erased text, and cannot restore anything.",
            ) from error

    def _remove_leftovers(self) -> None:
        """What interrupted copies and purges left (see ``remove_leftovers``),
        however young: a copy killed a moment ago holds the whole database,
        erased text and all, and none is being written while the snapshots'
        lock is held across processes.  Where it is not (Windows), only
        what is old: young, it may be a copy another process writes now.
        One that cannot be removed is named (``EnvironmentProblem``): a
        partial copy may hold erased text."""
        complete = complete_snapshots(self._snapshots_dir)
        kept = {*complete, *(path.with_suffix(SKILLS_SUFFIX) for path in complete)}
        may_be_written = not self.snapshots_lock.across_processes
        for path in self._snapshots_dir.iterdir():
            try:
                young = may_be_written and not _old(path)
            except FileNotFoundError:  # removed since listed (a dream's rotation): done
                continue
            if not young and path not in kept and _ours(path.name):
                try:
                    _remove(path)
                except OSError as error:
                    why = (error.strerror or type(error).__name__).lower()
                    raise EnvironmentProblem(
                        f"{path}, left by an interrupted copy, could not be removed ({why}).",
                        "Remove it by hand: it may hold erased text.",
                    ) from error

    def memories_rewritten(self) -> None:
        """Memories were rewritten in place (a value named a secret later,
        taken out: ``MemoryService.take_out``): write ``MEMORIES.md`` again,
        as after an erasure, so it no longer lists the value.  The rewrite
        queued that write with its rows (``MemoryStore.files_owed``), and it
        is marked done only once the file was written: a kill before then,
        or a full disk (said in the log: the rewrite is done, and the
        message that named the value is stored), leaves it owed to the next
        start (``erase_expired``)."""
        owed = self._store.files_owed()
        if owed is None:
            return
        try:
            self._write_working_set_again()
            self._store.files_written(owed)
        except OSError as error:
            _working_set_still_owed(error.strerror or type(error).__name__)
        except EnvironmentProblem as problem:  # written, but not marked so: written again
            _working_set_still_owed(_first_sentence(problem))

    def _rewrite_working_set(self) -> None:
        try:
            self._write_working_set_again()
        except OSError as error:
            raise EnvironmentProblem(
                f"The memories were erased, but MEMORIES.md could not be written again: {error}",
                "It still lists them until it is written; free some disk space, then dream.",
            ) from error

    def _write_working_set_again(self) -> None:
        """Write ``MEMORIES.md`` again, if a dream wrote one.  Raises ``OSError``."""
        if self._working_set_file.exists():  # else nothing in it to take out
            write_working_set(self._store, self._working_set_file, self._working_set_size())


def _old(path: Path) -> bool:
    """Whether *path* is older than ``LEFTOVER_AGE_S``.  Its age is the file
    system's, so it is read on the real clock.  Raises ``FileNotFoundError``."""
    return time.time() - path.lstat().st_mtime >= LEFTOVER_AGE_S


def _ours(name: str) -> bool:
    """A name the snapshots folder's copies, their temporaries and side files take."""
    if name.startswith(f".{SNAPSHOT_PREFIX}"):
        return True
    return name.startswith(SNAPSHOT_PREFIX) and name.endswith(
        (SNAPSHOT_SUFFIX, SKILLS_SUFFIX, "-journal", "-wal", "-shm")
    )


def _gone(path: Path) -> bool:
    """Whether the copy at *path* was removed (the dream's rotation) while it
    was purged: SQLite then refuses to write it, as if it were read-only
    ("moved") or could not be opened.  It holds nothing any more: done."""
    try:
        return not path.exists()
    except OSError:  # unreachable, not gone: the purge's own error says why
        return False


@contextlib.contextmanager
def _finished_later(erased: Erasable, step: str, still_holding: str) -> Iterator[None]:
    """Report a failing *step* after *erased* went as ``ErasedNotFinished``
    (*still_holding* says where the text may stay meanwhile); with nothing
    erased now, the failure as it is."""
    try:
        yield
    except EnvironmentProblem as problem:
        if not erased:
            raise
        done = _erasure_of(erased, snapshots=0, wal_truncated=True)
        raise ErasedNotFinished(done, step, still_holding, problem) from problem


def _remove_skill_files_in(folder: Path, skills: list[ErasedDraft]) -> None:
    """Remove each of *skills*' file from the skills *folder* (the live one,
    or a snapshot's copy), and the deleted copies of its name
    (``.deleted/name.md``, ``name (2).md``): its earlier texts."""
    folders = {str(status): name for status, name in STATUS_FOLDERS.items()}
    for skill in skills:
        deleted = folder / DELETED
        paths = [
            folder / folders.get(skill.status, DELETED) / skill.file_name,
            deleted / skill.file_name,
            *_older_copies(deleted, skill.file_name),
        ]
        for path in paths:
            try:
                path.unlink(missing_ok=True)
            except OSError as error:
                raise EnvironmentProblem(
                    f"A skill file that is being erased could not be removed: {error}",
                    "Fix the skills folder's permissions; the next erasure removes it.",
                ) from error


def _older_copies(place: Path, file_name: str) -> list[Path]:
    """The older deleted copies of *file_name* in *place* (``name (2).md``)."""
    try:
        return older_copies(place, file_name)
    except OSError as error:
        raise EnvironmentProblem(
            f"The folder {place} could not be read to erase a skill: {error.strerror}.",
            "Fix the skills folder's permissions; the next erasure removes it.",
        ) from error


def _listed(parts: list[str]) -> str:
    """*parts* as a sentence lists them: "a, b and c"."""
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _working_set_still_owed(why: str) -> None:
    log.warning(
        "MEMORIES.md could not be written again after a value was taken out of the "
        "memories; it is written at the next start: %s",
        why,
    )


def _first_sentence(problem: EnvironmentProblem) -> str:
    """What went wrong, without the hint or a "Nothing was changed" that
    would not be true here."""
    said = str(problem.args[0]) if problem.args else str(problem)
    return said.replace(" Nothing was changed.", "").rstrip(".")


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _count(n: int, one: str, many: str) -> str:
    return "" if n == 0 else f"1 {one}" if n == 1 else f"{n} {many}"
