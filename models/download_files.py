"""The files a download writes beside its model, and what may stand in their way.

A download writes its ``.part`` and ``.part.json`` in place, then renames the
finished file onto the model's name (or ``<name>.rejected``).  A symbolic
link or a second name (a hard link) where it writes in place would lead the
bytes into another file and overwrite it; a named pipe would hang the
download; a folder cannot be renamed onto.  Each is named, as a
``DownloadFailed``, before a byte is downloaded, and the files are opened so
that one appearing afterwards is still never written through.

One download of a file at a time: a download holds a lock on
``<name>.part.lock`` (``downloading_alone``), so a second one of the same file
(the Models page and ``reverie models download``, or two terminals) is told at
once that it is under way, instead of writing the same ``.part`` and failing
when the first moves it into place.  The lock is the system's (``flock``):
a download killed midway holds it no longer.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

from models.errors import DownloadFailed
from models.file_kinds import kind_of, kind_refused
from models.folders import make_missing_folders

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl

PRIVATE_FILE_MODE = 0o600
# A link is never followed; a named pipe opens at once (then is refused) instead of
# waiting for its other end, which for a regular file changes nothing.
_OPEN_FLAGS = (
    getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_LOCK_ATTEMPTS = 5
"""Lock files taken in turn when each was removed as its holder finished."""


def make_folder(folder: Path) -> None:
    """Make *folder* and its parents if need be (0700 each, whatever the
    umask); ``DownloadFailed`` names what is in the way."""
    try:
        make_missing_folders(folder)
        if not folder.is_dir():
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(folder))
    except OSError as error:
        in_the_way = error.errno in (errno.EEXIST, errno.ENOTDIR)
        raise DownloadFailed(
            f"Cannot make the folder {folder}: "
            + ("a file is in the way." if in_the_way else f"{error.strerror}."),
            "Move the file that is in the way, or check that the folder is writable; "
            "then download again.",
        ) from error


def check_renamed_onto(path: Path) -> None:
    """A finished file will be renamed onto *path*: anything there but a folder is
    replaced by it (a link itself, never the file it leads to)."""
    mode = _mode_of(path)
    if mode is not None and stat.S_ISDIR(mode):
        raise in_the_way(path, "a folder")


def check_written_in_place(path: Path) -> None:
    """*path* will be written in place: it must be absent, or a regular file of one name."""
    try:
        status = path.lstat()
    except FileNotFoundError:
        return
    except OSError as error:
        raise _cannot_look_at(path, error) from error
    _check_regular(path, status)


@contextmanager
def opening(path: Path) -> Iterator[None]:
    """Turn what ``os.open`` meets at *path* instead of a file into ``DownloadFailed``."""
    try:
        yield
    except OSError as error:
        kind = kind_refused(path, error)
        if kind is None:
            raise
        raise in_the_way(path, kind) from error


def open_to_write(path: Path, *, keep: bool) -> int:
    """A descriptor that writes *path*, made private if new and emptied unless *keep*;
    ``DownloadFailed`` if anything but a regular file of one name is there."""
    with opening(path):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | _OPEN_FLAGS, PRIVATE_FILE_MODE)
    try:
        _check_regular(path, os.fstat(fd))
        if not keep:  # only now: emptying it on opening would empty a file of two names
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_to_read(path: Path) -> BinaryIO:
    """*path* opened to read, as ``open_to_write`` checks it (``FileNotFoundError`` if absent)."""
    with opening(path):
        fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
    try:
        _check_regular(path, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


@contextmanager
def downloading_alone(lock: Path, name: str) -> Iterator[None]:
    """Hold *lock* while the block downloads *name*; ``DownloadFailed`` at once
    if another download (in this process or another) holds it."""
    descriptor = _take_lock(lock, name)
    try:
        yield
    finally:
        # Removed while still held: a newcomer finds no file, or makes a new one.
        with suppress(OSError):
            lock.unlink()
        os.close(descriptor)


def _take_lock(lock: Path, name: str) -> int:
    for _ in range(_LOCK_ATTEMPTS):
        descriptor = open_to_write(lock, keep=True)
        try:
            if not _lock_now(descriptor):
                raise under_way(name)
            if _still_named(descriptor, lock):
                return descriptor
        except BaseException:
            os.close(descriptor)
            raise
        os.close(descriptor)  # its holder finished and removed it meanwhile: take the new one
    raise under_way(name)


def _lock_now(descriptor: int) -> bool:
    """Lock *descriptor*'s file for this open file (True), or find it held (False)."""
    try:
        if sys.platform == "win32":
            msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
        else:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:  # BlockingIOError, or EACCES from msvcrt
        if error.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES, errno.EDEADLK):
            return False
        raise
    return True


def _still_named(descriptor: int, path: Path) -> bool:
    """Whether *path* still names the file open at *descriptor*."""
    try:
        named = path.lstat()
    except FileNotFoundError:
        return False
    held = os.fstat(descriptor)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def under_way(name: str) -> DownloadFailed:
    """The error for a second download of *name* while one is under way."""
    return DownloadFailed(
        f"{name} is being downloaded already (on the Models page, or by a "
        "`reverie models download` command).",
        "Wait for that download to finish: the model is ready then. To start over, "
        "cancel it first.",
    )


def in_the_way(path: Path, kind: str) -> DownloadFailed:
    """The error for *kind* (a folder, a symbolic link...) standing where a download writes."""
    if kind == "a folder":
        return DownloadFailed(
            f"{path} is a folder, in the way of the download.",
            "Move or rename that folder, then download again.",
        )
    if kind == "a symbolic link":
        return DownloadFailed(
            f"{path} is a symbolic link: a download never writes through one "
            "(it would overwrite the file it leads to).",
            "Remove the link, then download again.",
        )
    return DownloadFailed(
        f"{path} is {kind}, where the download must write a file.",
        "Remove it, then download again.",
    )


def _check_regular(path: Path, status: os.stat_result) -> None:
    if not stat.S_ISREG(status.st_mode):
        raise in_the_way(path, kind_of(status.st_mode))
    if status.st_nlink > 1:
        raise DownloadFailed(
            f"{path} is another name of a file (a hard link): writing the download there "
            "would overwrite that file.",
            "Remove this name of it, then download again.",
        )


def _mode_of(path: Path) -> int | None:
    try:
        return path.lstat().st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        raise _cannot_look_at(path, error) from error


def _cannot_look_at(path: Path, error: OSError) -> DownloadFailed:
    return DownloadFailed(
        f"Cannot look at {path}: {error.strerror}.", "Check that the models folder is readable."
    )
