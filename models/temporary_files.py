"""Temporary files held locked while written, and removing what a kill left.

A write that must land whole goes to a temporary file beside its target
(``temporary_path``: hidden, ending ``PART``), made with ``create_locked``:
the lock (``flock``, the system's) lasts while the writer's file is open,
and a kill ends it with the process.  So the next write or start removes
what a kill left (``remove_leftovers``: the matching files nobody holds)
and never a temporary a live writer in another process is filling.

The application reaches these through ``desktop.core.files``.
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

if sys.platform != "win32":
    import fcntl

PART = ".part"
"""How the temporary files of a write end (``temporary_path``, ``create_locked``)."""
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
