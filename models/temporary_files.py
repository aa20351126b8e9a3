"""Temporary files and folders held locked while in use, and removing what a kill left.

A write that must land whole goes to a temporary file beside its target
(``temporary_path``: hidden, ending ``PART``), made with ``create_locked``:
the lock (``flock``, the system's) lasts while the writer's file is open,
and a kill ends it with the process.  So the next write or start removes
what a kill left (``remove_leftovers``: the matching files nobody holds)
and never a temporary a live writer in another process is filling.

Work too large for one file (the memory model's weights, unpacked while it
is prepared) gets a folder of its own (``working_folder``), whose lock is a
file beside it (``<folder>.lock``), made before the folder and removed
after it: a folder whose lock is gone was left by a kill, and one whose lock
nobody holds is removed with it (``remove_left_folders``).

The application reaches these through ``desktop.core.base.files``.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import logging
import os
import shutil
import stat
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

from models.folders import PRIVATE_FOLDER_MODE, make_missing_folders

if sys.platform != "win32":
    import fcntl

log = logging.getLogger(__name__)

PART = ".part"
"""How the temporary files of a write end (``temporary_path``, ``create_locked``)."""
LOCK = ".lock"
"""How the lock file beside a working folder ends (``working_folder``)."""
NAME_MAX_BYTES = 255
"""The longest name of one file or folder most file systems allow (ext4, APFS, NTFS...)."""
_PRIVATE_FILE_MODE = 0o600
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NO_WAIT = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_CREATE_ATTEMPTS = 5
_RANDOM_HEX = 12
_STEM_BYTES = NAME_MAX_BYTES - len(f"..{PART}") - _RANDOM_HEX
"""How much of the target's name a temporary name keeps: all of it up to 236 bytes."""


def temporary_path(target: Path) -> Path:
    """A new temporary name for writing *target*: beside it (the rename must
    stay on its file system), hidden, ending ``PART``, and never longer than
    a file name may be, however long *target*'s name (a name of 237 to 255
    bytes would otherwise be refused as too long)."""
    return target.with_name(f".{_stem(target.name)}.{_random()}{PART}")


def leftovers_of(name: str) -> str:
    """The pattern (``Path.glob``) of the temporary files ``temporary_path``
    names for the file *name*."""
    return f".{glob.escape(_stem(name))}.*{PART}"


def _stem(name: str) -> str:
    """As much of *name* as a temporary name has room for, cut between characters."""
    stem = name
    while len(os.fsencode(stem)) > _STEM_BYTES:
        stem = stem[:-1]
    return stem


def _random() -> str:
    return uuid.uuid4().hex[:_RANDOM_HEX]


def create_locked(path: Path) -> int:
    """A new, empty file at *path* (0600; never an existing file, nor through
    a link), open for writing and locked (``lock``) by this open file until
    it is closed.  A sweep (``remove_leftovers``) may take the file for a
    leftover in the instant between its creation and its lock: then it is
    made again.  Raises ``OSError`` (``FileExistsError`` if *path* exists)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW | _CLOEXEC
    for _ in range(_CREATE_ATTEMPTS):
        descriptor = os.open(path, flags, _PRIVATE_FILE_MODE)
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
        descriptor = _open_if_regular(path)
        if descriptor is None:  # gone meanwhile, or not a file a writer left
            continue
        try:
            # st_nlink: removed by another sweep while this one opened it.
            if lock(descriptor, wait=False) and os.fstat(descriptor).st_nlink > 0:
                _remove_unless_open(path)
        finally:
            os.close(descriptor)


def _open_if_regular(path: Path) -> int | None:
    """*path* opened to read if it is a regular file (never through a link,
    never waiting on a pipe); None if it is not, or is gone."""
    try:
        descriptor = os.open(path, os.O_RDONLY | _NO_WAIT | _NO_FOLLOW | _CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        return None
    return descriptor


def _remove_unless_open(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except PermissionError:
        if sys.platform != "win32":
            raise
        # Windows (no flock): a file open in another process cannot be
        # removed there, and one open is a live writer's.


@contextlib.contextmanager
def working_folder(root: Path, prefix: str) -> Iterator[Path]:
    """A new folder in *root* (made if missing, 0700) named *prefix* and a
    random part, for the block's files, removed with them afterwards.  Its
    lock file beside it, held meanwhile, tells ``remove_left_folders`` it is
    in use.  Raises ``OSError`` if it cannot be made."""
    make_missing_folders(root)
    folder = root / f"{prefix}{_random()}"
    held = _lock_of(folder)
    descriptor = create_locked(held)  # first: a folder never stands without its lock
    try:
        folder.mkdir(mode=PRIVATE_FOLDER_MODE)
        yield folder
    finally:
        try:
            _remove_folder(folder)
            _remove_unless_open(held)  # last, and only once the folder is gone
        except OSError as error:  # the block's own error, if any, is the one to report
            # Left with its lock, unheld once closed: the next sweep removes both.
            log.warning("%s could not be removed: %s", folder, error)
        finally:
            os.close(descriptor)


def remove_left_folders(root: Path, prefix: str) -> None:
    """Remove the folders ``working_folder`` made in *root* with *prefix*
    that a kill left: those whose lock file nobody holds, and those whose
    lock is gone (a sweep cut short between the two).  Lock files left
    without their folder go too; anything else there stays.  Raises
    ``OSError`` if a leftover cannot be removed."""
    if not root.is_dir():
        return
    pattern = f"{glob.escape(prefix)}{'[0-9a-f]' * _RANDOM_HEX}"
    remove_leftovers(root, pattern + LOCK)  # first: a live folder's lock is held
    for folder in root.glob(pattern):
        if not _lock_of(folder).exists():
            _remove_folder(folder)


def _lock_of(folder: Path) -> Path:
    return folder.with_name(folder.name + LOCK)


def _remove_folder(folder: Path) -> None:
    """*folder* and all in it, if it is a folder (a link is not followed)."""
    try:
        found = folder.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISDIR(found.st_mode):
        # Gone under it: another sweep, or its finishing owner, removes it too.
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(folder)
