"""Writing a user's file whole or not at all, and keeping Reverie's files private.

Everything Reverie creates is readable by the user alone: folders 0700,
files 0600.  The app sets its umask to 0o077 at start, but files made by
SQLite (the database, its WAL, ``VACUUM INTO`` copies) and anything left by
an older version with group or other bits are fixed here explicitly, so the
guarantee does not rest on the umask alone.  The temporary files of a
write, locked while written and removed once a kill left them, are the
model layer's too (``models.temporary_files``); the application names them
here.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from models.file_kinds import kind_of as kind_of  # the application names them here
from models.file_kinds import kind_refused as kind_refused
from models.folders import PRIVATE_FOLDER_MODE as PRIVATE_FOLDER_MODE
from models.folders import make_missing_folders as make_missing_folders
from models.temporary_files import NAME_MAX_BYTES as NAME_MAX_BYTES
from models.temporary_files import PART as PART
from models.temporary_files import create_locked as create_locked
from models.temporary_files import leftovers_of as leftovers_of
from models.temporary_files import lock as lock
from models.temporary_files import remove_leftovers as remove_leftovers
from models.temporary_files import temporary_path as temporary_path

PRIVATE_UMASK = 0o077
"""The process umask while Reverie runs: nothing new is group/other readable."""
PRIVATE_FILE_MODE = 0o600
_SHARED_BITS = 0o077
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def write_atomically(path: Path, text: str) -> None:
    """Replace *path* with *text* (UTF-8) in one step, or leave it as it was.

    The text goes to a temporary file beside *path* (readable by the user
    only), reaches the disk, then takes the old file's place in one rename;
    a crash or a full disk never leaves a half-written file.  A kill between
    leaves the temporary file (it may hold what was since erased): the next
    write of the same file removes it (``remove_leftovers``).  A symlink is
    written through: its target is replaced and the link kept (a dotfile
    manager's link would otherwise become a copy that stops being shared).
    Anything but a regular file there (a named pipe, a device, a folder) is
    ``NotARegularFile`` and left as it is: renamed over, it would be gone,
    and what was written would be where nothing reads it.
    Raises ``OSError``, after removing the temporary file.
    """
    # realpath, not Path.resolve: a symlink loop stays as it is (then fails
    # or is replaced like a file) instead of raising RuntimeError.
    target = Path(os.path.realpath(path))
    if (kind := kind_in_the_way(target)) is not None:
        raise NotARegularFile(target, kind)
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


def kind_in_the_way(path: Path) -> str | None:
    """What stands at *path* where a file was expected, in words ("a named
    pipe"), looked at past a symbolic link (as an open would follow it) and
    never opened: a named pipe would block its reader.  None for a regular
    file, or when nothing can be looked at there (missing, say)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else kind_of(mode)


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
