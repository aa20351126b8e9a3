"""The safety copies taken before each dream: whole and checked, or none.

A copy of the database is written under a temporary name in the snapshots
folder, checked (it opens, passes SQLite's quick check, has every table) and
only then renamed into place; the skills folder travels beside it the same
way.  A kill or a full disk therefore leaves at most a temporary, never a
0-byte or partial ``before-dream-*.sqlite3``.  Only complete copies count
toward the ones kept; what an interrupted copy left (temporaries, journals,
an empty or truncated file an older version wrote in place, a skills folder
without its database) is removed each time, and so is anything at a copy's
journal name that is no file SQLite wrote (a folder, a pipe, a link): left,
it would keep the copy "mid-change", out of every purge, for good.  A copy
that cannot be written raises ``SnapshotFailed``: the dream does not start.

A copy is named by its number, one past every copy in the folder, then by
when it was taken, in UTC (``snapshot_stamp``, for the user), and the
copies are kept and rotated in the order of their numbers, read from their
names (``complete_snapshots``): a clock run ahead and set right, a time
zone or DST would put a copy just taken before older ones, and every later
dream would rotate out the copy of the dream before it.  An older
version's copies count as taken before this version's: those named by the
UTC stamp alone in its order, and before them those named by local time
in a zone no longer known, in the order of their names.  The copy just
taken is always kept, and a copy never replaces another.

A copy is written under a ``SnapshotsLock``, which an erasure holds too
while it erases: else a copy read before an erasure took the rows out
would land after it purged the others, holding the erased text.

The skills folder is copied file by file.  A link to a file (a skill kept
in a dotfiles folder) is copied as the file, since a dream rewrites the
skill through it; any other link (to a folder elsewhere, or to nothing any
more) is copied as the link it is, never followed; and what is neither (a
named pipe, a socket) is left out, said in the log.  None of them stops the
dream.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import shutil
import stat
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from desktop.core.base.errors import EnvironmentProblem, ReverieError
from desktop.core.base.files import (
    PRIVATE_FOLDER_MODE,
    kind_of,
    lock,
    make_private_folder,
    make_tree_private,
    sync_to_disk,
)
from desktop.core.db import (
    SQLITE_HEADER,
    Damaged,
    Database,
    DatabaseBusy,
    DiskFull,
    Driver,
    integrity_check,
    is_damage,
    only_the_free_list,
    open_copy,
    select_driver,
)

SNAPSHOT_PREFIX = "before-dream-"
SNAPSHOT_SUFFIX = ".sqlite3"
SKILLS_SUFFIX = ".skills"
TEMPORARY_SUFFIX = ".part"
_SIDE_FILES = ("-journal", "-wal", "-shm")
_TAKEN_AT = "%Y%m%dT%H%M%SZ"
"""A copy's stamp: when it was taken, in UTC, the same whatever the clock's zone."""
_NUMBERED = re.compile(r"(?P<number>\d{6,})-(?P<stamp>\d{8}T\d{6}Z.*)")
"""A copy's name after the prefix as ``_free_name`` writes it: its number
(six digits or more: the millionth copy has seven), then its UTC stamp
(an older version's local stamp, "20260101-000000", has none after it)."""
_STAMP = re.compile(r"(?P<utc>\d{8}T\d{6}Z)(?:-(?P<sequence>\d+))?")
"""A copy's UTC stamp, as an older version named copies by it alone (with a
sequence number if two had one stamp)."""

log = logging.getLogger(__name__)


class SnapshotFailed(EnvironmentProblem):
    """The safety copy before a dream could not be written; the dream did not start."""

    def __init__(self, reason: str, *, disk_full: bool = False) -> None:
        super().__init__(
            f"The dream did not start: the safety copy of the database could not be "
            f"written: {reason}.",
            "Nothing was changed; free some disk space and dream again."
            if disk_full
            else "Nothing was changed; check that the snapshots and skills folders can be "
            "read and written, then dream again.",
        )
        self.reason = reason


class SnapshotsLock:
    """One at a time over the copies in a folder: a dream writing its copy,
    or an erasure taking text out of them (see the module docstring).

    Held across threads (a lock of this object: the dream and the erasure
    share their eraser's) and across processes (``flock`` on the folder
    itself, opened anew by each holder, so two holders in one process
    exclude each other too, and no lock file stands among the copies).
    Windows has no ``flock`` (``files.lock``): there only the threads
    sharing this object wait for each other."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._threads = threading.Lock()
        self._flocked = False

    @property
    def across_processes(self) -> bool:
        """Whether its holder holds it across processes too (``flock`` on the
        folder: not on Windows, nor when the folder was not there when it
        was taken).  Then nobody writes a copy in the folder meanwhile, so
        what an interrupted copy left there is no live copy, however young."""
        return self._flocked

    @contextlib.contextmanager
    def held(self, by: str) -> Iterator[None]:
        """Hold the copies for *by* (who waits, as the log says while it
        waits).  A folder that is not there (or no folder) holds no copy:
        only the threads are held.  Raises ``OSError`` if the folder
        cannot be opened."""
        if not self._threads.acquire(blocking=False):
            _say_waiting(by, self.folder)
            self._threads.acquire()
        try:
            descriptor = _open_folder(self.folder)
            try:
                if descriptor >= 0 and not lock(descriptor, wait=False):
                    _say_waiting(by, self.folder)
                    lock(descriptor, wait=True)
                self._flocked = descriptor >= 0
                yield
            finally:
                self._flocked = False
                if descriptor >= 0:
                    os.close(descriptor)  # and its flock with it
        finally:
            self._threads.release()


def _open_folder(folder: Path) -> int:
    """A descriptor of *folder* to lock, or -1 where there is nothing to
    lock: no folder there, or Windows (no ``flock``, no folder opens)."""
    if sys.platform == "win32":
        return -1
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        return os.open(folder, flags)
    except (FileNotFoundError, NotADirectoryError):
        return -1


def _say_waiting(by: str, folder: Path) -> None:
    log.info("%s waits: the snapshots in %s are being written or purged", by, folder)


def take_snapshot(
    database: Database,
    folder: Path,
    stamp: str,
    *,
    skills_dir: Path | None,
    keep: int,
    under: SnapshotsLock | None = None,
) -> Path:
    """Copy *database* (and *skills_dir*) into *folder* as
    ``before-dream-<number>-<stamp>`` (``_free_name``, ``snapshot_stamp``),
    then keep it and the newest others, *keep* complete copies in all,
    all *under* a lock (the eraser's ``snapshots_lock``; without one, a
    lock of the folder's own).  Raises ``SnapshotFailed``."""
    try:
        make_private_folder(folder)
        with (under or SnapshotsLock(folder)).held("A dream's safety copy"):
            roll_back_cut(folder, database)  # a copy a kill left mid-change counts again
            remove_leftovers(folder)  # before writing: their space may be what is missing
            final = _free_name(folder, stamp)
            _write(database, final, skills_dir)
            rotate(folder, keep, taken=final)
    except (OSError, EnvironmentProblem) as error:
        raise SnapshotFailed(_reason(error), disk_full=_disk_full(error)) from error
    return final


def snapshot_stamp(when: float) -> str:
    """The stamp of a copy taken at *when* (seconds since the epoch), for the
    user: UTC, the same whatever the clock's zone."""
    return time.strftime(_TAKEN_AT, time.gmtime(when))


def _free_name(folder: Path, stamp: str) -> Path:
    """The copy's path for *stamp* in *folder*: numbered one past every copy
    there, so it sorts as the newest whatever the clock did since the others
    were taken, and never replaces one."""
    number = 1 + max((_number(path.name) for path in folder.iterdir()), default=0)
    while any(
        os.path.lexists(folder / f"{_name(number, stamp)}{end}")
        for end in (SNAPSHOT_SUFFIX, SKILLS_SUFFIX)
    ):
        number += 1
    return folder / f"{_name(number, stamp)}{SNAPSHOT_SUFFIX}"


def _name(number: int, stamp: str) -> str:
    return f"{SNAPSHOT_PREFIX}{number:06d}-{stamp}"


def _number(name: str) -> int:
    """The number of the copy (or its skills, its side file) named *name*; 0 if none."""
    found = _NUMBERED.match(name.removeprefix(SNAPSHOT_PREFIX))
    return int(found["number"]) if name.startswith(SNAPSHOT_PREFIX) and found else 0


def _taken_order(path: Path) -> tuple[int, str, int]:
    """Where the copy at *path* stands among the others, in the order they
    were taken, read from its name: its number.  An older version's copy
    was taken before any numbered one: one named by its UTC stamp (which
    sorts as time does) and sequence number in that order, and before them
    one named by a local stamp, in a zone no longer known, by name."""
    if number := _number(path.name):
        return (2, "", number)
    found = _STAMP.fullmatch(_stamp_part(path))
    if found is None:
        return (0, path.name, 0)
    return (1, found["utc"], int(found["sequence"] or 1))


def _stamp_part(path: Path) -> str:
    """What follows the prefix (and the number) in the copy's name."""
    stamp = path.name.removeprefix(SNAPSHOT_PREFIX).removesuffix(SNAPSHOT_SUFFIX)
    numbered = _NUMBERED.fullmatch(stamp)
    return numbered["stamp"] if numbered else stamp


def roll_back_cut(folder: Path, like: Database | Driver) -> None:
    """Bring the copies in *folder* that a kill left mid-change (the secret
    sweep's or an erasure's transaction on a copy: a journal beside it) back
    to what they were, so they count again.

    SQLite rolls a hot journal back when it takes the copy's write lock; a
    journal still there then is one SQLite ignores (cut before its header
    was written: the copy itself was never touched), removed while the lock
    keeps any other writer out.  A copy being changed now is left to its
    changer; one that does not open as a database (an older version's copy
    cut short while it was written) loses its journal and is judged, and
    removed, as the interrupted copy it is.  What stands at a copy's journal
    name and is no journal at all goes first (``_clear_odd_side_entries``).
    Raises ``EnvironmentProblem`` for a copy that can be neither mended nor
    removed."""
    for path in sorted(folder.glob(f"{SNAPSHOT_PREFIX}*{SNAPSHOT_SUFFIX}")):
        _clear_odd_side_entries(path)
        journal = Path(f"{path}-journal")
        if not (journal.is_file() and path.is_file()):
            continue
        try:
            with open_copy(path, like) as copy:
                copy.set_pragma("busy_timeout", 0)  # one being changed now is its changer's
                with copy.transaction():
                    journal.unlink(missing_ok=True)
        except DatabaseBusy:
            log.info("snapshot %s is being changed; left to that change", path.name)
        except (EnvironmentProblem, OSError) as problem:
            log.warning("snapshot %s is no whole database: %s", path.name, problem)
            with contextlib.suppress(OSError):
                journal.unlink()


def _clear_odd_side_entries(path: Path) -> None:
    """Remove what stands at a side file's name of the copy *path* (its
    journal, WAL or shared memory) and is no file SQLite wrote: a folder, a
    named pipe, a socket, a link (only the link goes, never what it points
    to).  SQLite could never write there, and the copy would count as
    mid-change for good, so no purge, rotation or sweep would ever
    reach it.  The name is the copy's, so nothing there is the user's.

    An entry that cannot be removed takes its copy with it, as a damaged
    copy goes: a copy no purge can reach must not keep erased text.  Raises
    ``EnvironmentProblem`` when neither can be removed."""
    for side in _SIDE_FILES:
        entry = Path(f"{path}{side}")
        try:
            mode = entry.lstat().st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISREG(mode):
            continue
        log.warning("%s is %s, not SQLite's: removed", entry.name, kind_of(mode))
        try:
            _remove(entry)
        except OSError as error:
            log.warning("%s could not be removed: its copy %s goes", entry.name, path.name)
            try:
                _discard_copy(path)
            except OSError:
                raise _unmendable(path, entry, kind_of(mode), error) from error
            return


def _unmendable(path: Path, entry: Path, kind: str, error: OSError) -> EnvironmentProblem:
    why = (error.strerror or type(error).__name__).lower()
    return EnvironmentProblem(
        f"The snapshot {path} cannot be purged or rotated: {entry} is {kind}, and "
        f"neither could be removed ({why}).",
        "Remove both by hand: the snapshot may hold erased text.",
    )


def complete_snapshots(folder: Path) -> list[Path]:
    """The copies in *folder* that are whole, oldest first (as taken, by
    their names' numbers: ``_taken_order``)."""
    found = folder.glob(f"{SNAPSHOT_PREFIX}*{SNAPSHOT_SUFFIX}")
    return sorted((path for path in found if _complete(path)), key=_taken_order)


def rotate(folder: Path, keep: int, taken: Path | None = None) -> None:
    """Remove leftovers and all complete copies but the newest *keep*; of
    them, always *taken*, the copy just taken: a clock set back since the
    others were taken must not make it the oldest."""
    remove_leftovers(folder)
    others = [path for path in complete_snapshots(folder) if path != taken]
    kept_others = keep - 1 if taken is not None else keep
    for old in others[: max(len(others) - kept_others, 0)]:
        old.unlink(missing_ok=True)  # an erasure may have discarded it, damaged, meanwhile
        shutil.rmtree(old.with_suffix(SKILLS_SUFFIX), ignore_errors=True)


def damaged(path: Path, like: Database | Driver) -> bool:
    """Whether the copy at *path* fails SQLite's integrity check (a bad
    sector, a page overwritten, an index no longer matching its rows):
    whole in size and header, so it counts as complete, but no copy to
    restore, nor one a purge can take text out of.  SQLite
    may also refuse to read it at all as damaged; any other reason it cannot
    be looked at (permissions, a busy copy) is not damage: False."""
    try:
        with open_copy(path, like) as copy:
            return bool(integrity_check(copy))
    except EnvironmentProblem as problem:
        return is_damage(problem)


def damage_report(database: Database, folder: Path) -> str | None:
    """What to tell the user if *database* fails SQLite's integrity check (a bad
    sector, a page overwritten) or cannot be read through for it: what is
    wrong, and the way back to the newest sound copy in *folder*, if there
    is one; None if it is sound.

    Reading a large file takes seconds, so the start asks it on a worker,
    before anything there writes to the file."""
    live = database.path
    try:
        damage = database.damage()
    except ReverieError as error:  # a disk that fails to read (EIO) is no sounder
        found = f"could not be read to the end to check it ({error})"
    else:
        if not damage:
            return None
        found = f"is damaged (SQLite found: {'; '.join(damage)})"
    return (
        f"Reverie's database {live} {found}. "
        "What stands in the damaged part may fail to load or to save. Chat goes on, "
        "but Reverie does no work of its own there (dreams, memory upkeep, scheduled "
        "tasks and deletions past their restore window wait). "
        f"{_way_out(live, folder, database)}"
    )


def _way_out(live: Path, folder: Path, database: Database) -> str:
    """The way out of damage in *live*: a rebuild, which loses nothing, when
    the damage is only in its list of free pages (``only_the_free_list``),
    else back to the newest sound copy."""
    try:
        rebuilt = only_the_free_list(database)
    except ReverieError:  # not even the quick check reads it: damage elsewhere
        rebuilt = False
    if rebuilt:
        return (
            "It is only in the list of free pages, which holds nothing of yours: a "
            f'rebuild keeps everything. Quit Reverie and run  sqlite3 "{live}" "VACUUM"'
        )
    return _way_back(live, folder, database)


def unopenable_report(live: Path, error: EnvironmentProblem, folder: Path) -> str:
    """What to tell the user when the database *live* does not open at all
    because it is damaged or no database (``is_damage(error)``: page 1, the
    schema, overwritten): the same way back as ``damage_report``'s."""
    found = error.found if isinstance(error, Damaged) else error.__cause__ or error
    said = (
        f"Reverie's database {live} is damaged and does not open (SQLite: {found}), "
        "so conversations and memory are unavailable."
    )
    try:
        driver = select_driver()  # the one that failed to open it: no copy can be checked
    except EnvironmentProblem:
        return f"{said} {error.hint}" if error.hint else said
    return f"{said} {_way_back(live, folder, driver)}"


def emptied_report(live: Path, folder: Path) -> str | None:
    """What to tell the user when the database *live* is an empty file (0
    bytes, no log beside it holding its pages) while whole copies of it are
    in *folder*: it was emptied (a sync tool, a crash of what wrote it), and
    opened it would become a new, empty database, the copies rotated away by
    the dreams that follow; None otherwise (round 34: nothing was said).
    What is not a file there (a named pipe, a link to ``/dev/null``) reads
    as zero bytes too, but nothing was emptied: opening names it."""
    try:
        found = live.stat()
        if not stat.S_ISREG(found.st_mode) or found.st_size or _size(Path(f"{live}-wal")):
            return None
        if not complete_snapshots(folder):
            return None
    except OSError:  # no file (a first start), or out of reach: opening says why
        return None
    said = (
        f"Reverie's database {live} is empty (0 bytes), though copies of it taken before "
        f"dreams are in {folder}: it was emptied, so it was not opened, and conversations "
        "and memory are unavailable."
    )
    try:
        driver = select_driver()
    except EnvironmentProblem:
        return said
    return f"{said} {_way_back(live, folder, driver)}"


def _size(path: Path) -> int:
    """The size of the file at *path*; 0 if there is none."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _way_back(live: Path, folder: Path, like: Database | Driver) -> str:
    """The way back from the damaged database *live* to the newest sound
    copy in *folder* (checked with *like*'s driver), or to what of it is
    still readable when there is none.  A copy a kill left mid-change (a
    purge or a sweep: a journal beside it) is rolled back first and counts:
    on a damaged file the start skips the work that would roll it back, and
    only the copies are written here, never the damaged file."""
    with contextlib.suppress(OSError, EnvironmentProblem):  # a copy neither mended nor removed
        roll_back_cut(folder, like)
    with contextlib.suppress(OSError):  # a folder closed to the user: no copy to offer
        for copy in reversed(complete_snapshots(folder)):
            if not damaged(copy, like):
                return (
                    f"The newest sound copy is {copy} ({_taken_text(copy)}): to go "
                    f"back to it, quit Reverie, move {live.name} and its -wal and -shm files "
                    f"out of {live.parent}, and copy it there as {live.name}. What was said "
                    "since it was taken is not in it."
                )
    return (
        "There is no sound copy to go back to: the sqlite3 program's .recover "
        "command (version 3.43 or newer, which reads Reverie's search indexes) "
        "saves what is still readable into a new file."
    )


def _taken_text(path: Path) -> str:
    """When the copy at *path* was taken, for the user (a name an older
    version wrote, in local time, is shown as it is)."""
    found = _STAMP.fullmatch(_stamp_part(path))
    if found is None:
        return f"taken before a dream, named {path.name}"
    taken = time.strptime(found["utc"], _TAKEN_AT)
    return f"taken before the dream of {time.strftime('%Y-%m-%d %H:%M', taken)} UTC"


def discard(path: Path) -> None:
    """Remove the copy at *path*, its journal and its skills folder.  Raises ``OSError``."""
    _discard_copy(path)
    Path(f"{path}-journal").unlink(missing_ok=True)


def _discard_copy(path: Path) -> None:
    path.unlink(missing_ok=True)
    skills = path.with_suffix(SKILLS_SUFFIX)
    if skills.is_dir() and not skills.is_symlink():
        shutil.rmtree(skills)


def remove_leftovers(folder: Path) -> None:
    """Remove what an interrupted copy left in *folder*: temporaries, journals,
    incomplete copies and skills folders whose database copy is gone."""
    for path in folder.iterdir():
        if _leftover(path):
            _remove(path)
    complete = {path.with_suffix(SKILLS_SUFFIX) for path in complete_snapshots(folder)}
    for skills in folder.glob(f"{SNAPSHOT_PREFIX}*{SKILLS_SUFFIX}"):
        if skills not in complete:
            _remove(skills)


def _write(database: Database, final: Path, skills_dir: Path | None) -> None:
    temporary = _temporary(final)
    temporary_skills = _temporary(final.with_suffix(SKILLS_SUFFIX))
    try:
        database.snapshot_to(temporary)  # checked before it returns
        if skills_dir is not None and skills_dir.is_dir():
            _copy_skills(skills_dir, temporary_skills)
            make_tree_private(temporary_skills)  # copytree keeps the source's modes
            # Skill files cannot share a pass's transaction, so a crash between
            # a rewritten file and its record would leave no undo: the copy
            # keeps the text as it was.
            _remove(final.with_suffix(SKILLS_SUFFIX))
            os.replace(temporary_skills, final.with_suffix(SKILLS_SUFFIX))
        os.replace(temporary, final)  # the copy counts from here on
        sync_to_disk(final.parent)  # the rename itself
    except BaseException:
        for path in (temporary, Path(f"{temporary}-journal"), temporary_skills):
            with contextlib.suppress(OSError):  # the first error is the one to report
                _remove(path)
        raise


def _copy_skills(source: Path, target: Path) -> None:
    """Copy the skills folder *source* to *target* (see the module docstring).
    Raises ``OSError`` at the first entry that cannot be copied."""
    target.mkdir(mode=PRIVATE_FOLDER_MODE)
    for entry in sorted(os.scandir(source), key=lambda e: e.name):
        try:
            _copy_entry(entry, target / entry.name)
        except FileNotFoundError as gone:
            if gone.filename != entry.path:
                raise  # the copy's side is missing, not the entry
            # Not its path: a skill's name, which the log would keep once erased.
            log.info("a file of the skills folder went while the snapshot was taken")


def _copy_entry(entry: os.DirEntry[str], into: Path) -> None:
    own = entry.stat(follow_symlinks=False).st_mode
    if stat.S_ISDIR(own):
        _copy_skills(Path(entry.path), into)
    elif stat.S_ISREG(own) or (stat.S_ISLNK(own) and _links_to_a_file(entry.path)):
        # A linked skill is a skill (a dream rewrites it through its link):
        # the copy keeps its text as it was.
        shutil.copy2(entry.path, into)
    elif stat.S_ISLNK(own):
        os.symlink(os.readlink(entry.path), into)  # a folder elsewhere, or nothing
    else:
        log.warning("%s is %s: left out of the snapshot", entry.path, kind_of(own))


def _links_to_a_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # dangling, or a loop: kept as the link it is


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}{TEMPORARY_SUFFIX}")


def _leftover(path: Path) -> bool:
    name = path.name
    if name.startswith(f".{SNAPSHOT_PREFIX}"):
        return True  # a temporary (and its journal): only one copy is written at a time
    if not name.startswith(SNAPSHOT_PREFIX):
        return False  # not ours: left alone
    if name.endswith(_SIDE_FILES):
        # A copy's journal is what rolls it back (a sweep or a purge on it,
        # now or cut short): it goes only with its copy.
        return not path.with_name(name.rsplit("-", 1)[0]).exists()
    if name.endswith(SNAPSHOT_SUFFIX) and Path(f"{path}-journal").exists():
        return False  # mid-change: rolled back by the next reader (``roll_back_cut``)
    return name.endswith(SNAPSHOT_SUFFIX) and not _complete(path)


def _complete(path: Path) -> bool:
    """A whole SQLite file with no journal beside it (so no copy cut short).

    Copies are checked before they are renamed into place; this cheaper test
    is for files an older version wrote in place, which a kill could cut.
    """
    if not path.is_file() or Path(f"{path}-journal").exists():
        return False
    with path.open("rb") as handle:
        header = handle.read(100)
    size = path.stat().st_size
    if len(header) < 100 or not header.startswith(SQLITE_HEADER):
        return False
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        return False  # no SQLite page size: a damaged header
    pages = int.from_bytes(header[28:32], "big")
    # The page count in the header is valid when its "version valid for"
    # matches the change counter (SQLite's file format, section 1.3.7).
    if header[92:96] == header[24:28] and pages:
        return size == pages * page_size
    return size > 0 and size % page_size == 0


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _reason(error: OSError | EnvironmentProblem) -> str:
    if _disk_full(error):
        return "the disk is full"
    if isinstance(error, EnvironmentProblem):
        return str(error.args[0]).rstrip(".")
    if error.filename is not None and error.strerror:
        return f"{error.filename} could not be copied ({error.strerror.lower()})"
    return str(error)


def _disk_full(error: OSError | EnvironmentProblem) -> bool:
    return isinstance(error, DiskFull) or getattr(error, "errno", None) == errno.ENOSPC
