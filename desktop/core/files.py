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
import os
import stat
import tempfile
from pathlib import Path

PRIVATE_UMASK = 0o077
"""The process umask while Reverie runs: nothing new is group/other readable."""
PRIVATE_FOLDER_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
_SHARED_BITS = 0o077


def write_atomically(path: Path, text: str) -> None:
    """Replace *path* with *text* (UTF-8) in one step, or leave it as it was.

    The text goes to a temporary file beside *path* (readable by the user
    only), reaches the disk, then takes the old file's place in one rename;
    a crash or a full disk never leaves a half-written file.  A symlink is
    written through: its target is replaced and the link kept (a dotfile
    manager's link would otherwise become a copy that stops being shared).
    Raises ``OSError``, after removing the temporary file.
    """
    # realpath, not Path.resolve: a symlink loop stays as it is (then fails
    # or is replaced like a file) instead of raising RuntimeError.
    target = Path(os.path.realpath(path))
    temporary: Path | None = None
    try:
        with tempfile.NamedTemporaryFile(
            "w",
            encoding="utf-8",
            newline="\n",
            dir=target.parent,  # the rename must stay on the target's file system
            prefix=f".{target.name}.",
            suffix=".part",
            delete=False,
        ) as handle:
            temporary = Path(handle.name)
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(OSError):  # the first error is the one to report
                temporary.unlink()
        raise


def make_private_folder(folder: Path) -> None:
    """Create *folder* (and the missing folders above it) 0700, or make an
    existing one 0700.  Raises ``OSError``."""
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for created in reversed(missing):
        created.mkdir(mode=PRIVATE_FOLDER_MODE, exist_ok=True)
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


def open_regular(path: Path) -> int:
    """A read-only descriptor of *path*, which must be a regular file: a
    named pipe would block its reader, a device never end, a link lead
    elsewhere.  ``NotARegularFile`` names what stands there instead;
    ``FileNotFoundError`` and other ``OSError`` as ``os.open`` raises them."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        if error.errno == errno.ELOOP:  # O_NOFOLLOW met a symbolic link
            raise NotARegularFile(path, "a symbolic link") from error
        raise
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise NotARegularFile(path, kind_of(mode))
    return descriptor


def kind_of(mode: int) -> str:
    """What a file of *mode* (``st_mode``) is, in words: "a named pipe"."""
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


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
