"""Writing a user's file whole or not at all, and keeping Reverie's files private.

Everything Reverie creates is readable by the user alone: folders 0700,
files 0600.  The app sets its umask to 0o077 at start, but files made by
SQLite (the database, its WAL, ``VACUUM INTO`` copies) and anything left by
an older version with group or other bits are fixed here explicitly, so the
guarantee does not rest on the umask alone.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import stat
import sys
import uuid
from pathlib import Path

from models.file_kinds import kind_of as kind_of  # the application names it here
from models.file_kinds import kind_refused as kind_refused
from models.folders import PRIVATE_FOLDER_MODE as PRIVATE_FOLDER_MODE
from models.folders import make_missing_folders as make_missing_folders

if sys.platform != "win32":
    import fcntl

PRIVATE_UMASK = 0o077
"""The process umask while Reverie runs: nothing new is group/other readable."""
PRIVATE_FILE_MODE = 0o600
_SHARED_BITS = 0o077
PART = ".part"
"""How the temporary files of a write end (``write_atomically``, ``create_locked``)."""
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_CREATE_ATTEMPTS = 5
NAME_MAX_BYTES = 255
"""The longest name of one file or folder most file systems allow (ext4, APFS, NTFS...)."""
_RANDOM_HEX = 12
_STEM_BYTES = NAME_MAX_BYTES - len(f"..{PART}") - _RANDOM_HEX
"""How much of the target's name a temporary name keeps: all of it up to 236 bytes."""


def write_atomically(path: Path, text: str) -> None:
    """Replace *path* with *text* (UTF-8) in one step, or leave it as it was.

    The text goes to a temporary file beside *path* (readable by the user
    only), reaches the disk, then takes the old file's place in one rename;
    a crash or a full disk never leaves a half-written file.  A kill between
    leaves the temporary file (it may hold what was since erased): the next
    write of the same file removes it (``remove_leftovers``).  A symlink is
    written through: its target is replaced and the link kept (a dotfile
    manager's link would otherwise become a copy that stops being shared).
    Raises ``OSError``, after removing the temporary file.
    """
    # realpath, not Path.resolve: a symlink loop stays as it is (then fails
    # or is replaced like a file) instead of raising RuntimeError.
    target = Path(os.path.realpath(path))
    remove_leftovers(target.parent, leftovers_of(target.name))
    temporary = temporary_path(target)
    descriptor = -1
    try:
        descriptor = create_locked(temporary)  # locked: no sweep takes it while written
        with os.fdopen(os.dup(descriptor), "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        if descriptor >= 0:  # else the name may be another's (it existed)
            with contextlib.suppress(OSError):  # the first error is the one to report
                temporary.unlink()
        raise
    finally:
        if descriptor >= 0:
            os.close(descriptor)


def temporary_path(target: Path) -> Path:
    """A new temporary name for writing *target*: beside it (the rename must
    stay on its file system), hidden, ending ``PART``, and never longer than
    a file name may be, however long *target*'s name (a name of 237 to 255
    bytes would otherwise be refused as too long)."""
    return target.with_name(f".{_stem(target.name)}.{uuid.uuid4().hex[:_RANDOM_HEX]}{PART}")


def leftovers_of(name: str) -> str:
    """The pattern (``Path.glob``) of the temporary files ``write_atomically``
    makes for the file *name* (``temporary_path``)."""
    return f".{glob.escape(_stem(name))}.*{PART}"


def _stem(name: str) -> str:
    """As much of *name* as a temporary name has room for, cut between characters."""
    stem = name
    while len(os.fsencode(stem)) > _STEM_BYTES:
        stem = stem[:-1]
    return stem


def create_locked(path: Path) -> int:
    """A new, empty file at *path* (0600; never an existing file, nor through
    a link), open for writing and locked (``lock``) by this open file until
    it is closed.  A sweep (``remove_leftovers``) may take the file for a
    leftover in the instant between its creation and its lock: then it is
    made again.  Raises ``OSError`` (``FileExistsError`` if *path* exists)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW | _CLOEXEC
    for _ in range(_CREATE_ATTEMPTS):
        descriptor = os.open(path, flags, PRIVATE_FILE_MODE)
        try:
            lock(descriptor, wait=True)  # a sweep holds it an instant at most
            if os.fstat(descriptor).st_nlink > 0:
                return descriptor
        except BaseException:
            os.close(descriptor)
            with contextlib.suppress(OSError):  # made by this call (O_EXCL): not kept
                path.unlink()
            raise
        os.close(descriptor)  # removed by a sweep before it was locked: made again
    raise FileNotFoundError(errno.ENOENT, "removed as a leftover each time it was made", str(path))


def lock(descriptor: int, *, wait: bool) -> bool:
    """Lock *descriptor*'s file for this open file (True), or find it held by
    another (False).  Windows has no ``flock``: there every file is taken as
    unheld (and an open file cannot be removed there anyway)."""
    if sys.platform == "win32":
        return True
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def remove_leftovers(folder: Path, pattern: str) -> None:
    """Remove the regular files matching *pattern* (``Path.glob``) in *folder*
    that no live writer holds (``create_locked``): temporary files a kill
    left, which may hold text since erased.  Anything else that matches (a
    folder, a link, a named pipe) is not Reverie's, and stays.  Raises
    ``OSError`` if a leftover cannot be removed."""
    for path in folder.glob(pattern):
        try:
            descriptor = open_regular(path)
        except OSError:  # gone meanwhile, or not a file a writer left
            continue
        try:
            # st_nlink: removed by another sweep while this one opened it.
            if lock(descriptor, wait=False) and os.fstat(descriptor).st_nlink > 0:
                _remove_unless_open(path)
        finally:
            os.close(descriptor)


def _remove_unless_open(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except PermissionError:
        if sys.platform != "win32":
            raise
        # Windows (no flock): a file open in another process cannot be
        # removed there, and one open is a live writer's.


def make_private_folder(folder: Path) -> None:
    """Create *folder* (and the missing folders above it) 0700, or make an
    existing one 0700.  A folder that may be another program's too (a
    folder override's, ``~/.config``) is made with ``make_missing_folders``
    instead, which leaves one that is there as it is.  Raises ``OSError``."""
    make_missing_folders(folder)
    make_private(folder)


def make_private(path: Path) -> None:
    """Take the group and other permissions off *path* (a symlink is left
    alone: what it points to is not Reverie's).  Raises ``OSError``."""
    found = path.lstat()
    if stat.S_ISLNK(found.st_mode) or not found.st_mode & _SHARED_BITS:
        return
    # The user's own bits stay as they are: a folder they made read-only stays so.
    os.chmod(path, stat.S_IMODE(found.st_mode) & ~_SHARED_BITS)


def make_tree_private(root: Path) -> None:
    """*root* and everything under it private (files an older Reverie left
    readable by others); symlinked folders are not followed.  Raises ``OSError``."""
    if not root.exists():
        return
    make_private(root)
    if root.is_symlink() or not root.is_dir():
        return
    for folder, folders, files in os.walk(root, onerror=_raise):
        for name in (*folders, *files):
            make_private(Path(folder, name))


def open_private(path: str, flags: int) -> int:
    """An ``opener`` for ``open()``: a new file is created 0600 whatever the umask."""
    return os.open(path, flags, PRIVATE_FILE_MODE)


class NotARegularFile(OSError):
    """What stands at a path a file was expected at is something else."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"{path} is {kind}, not a regular file")
        self.kind = kind


def open_regular(path: Path, flags: int = os.O_RDONLY) -> int:
    """A descriptor of *path* opened with *flags* (read-only unless told;
    with ``O_CREAT``, a new file is made 0600), which must be a regular
    file: a named pipe would block its reader or writer, a device never
    end, a link lead elsewhere.  ``NotARegularFile`` names what stands
    there instead; ``FileNotFoundError`` and other ``OSError`` as
    ``os.open`` raises them."""
    flags |= getattr(os, "O_NONBLOCK", 0) | _NO_FOLLOW | _CLOEXEC
    try:
        descriptor = os.open(path, flags, PRIVATE_FILE_MODE)
    except OSError as error:
        kind = kind_refused(path, error)
        if kind is None:
            raise
        raise NotARegularFile(path, kind) from error
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise NotARegularFile(path, kind_of(mode))
    return descriptor


def sync_to_disk(path: Path) -> None:
    """Wait until *path* (a file's content, or a folder's entries: a rename
    in it) is on the disk, not only in the system's cache.  Raises ``OSError``."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _raise(error: OSError) -> None:
    raise error
