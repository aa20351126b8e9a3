"""What stands at a path when a regular file was expected, in words.

The model layer's downloads and the application's files (settings, the
database's side files, snapshots, erasure's mark) name it the same way; the
application reaches it through ``desktop.core.base.files``.
"""

from __future__ import annotations

import errno
import os
import stat

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)
SPECIAL_FILE = "a special file"
"""What ``kind_of`` calls a file of a kind it does not know."""

# What an open (without following a link, without waiting) says when no
# regular file stands there.  ENXIO is said for a named pipe with no reader,
# a socket and a device with nothing behind it alike: only a look tells them
# apart, so the guess here is the last resort.
_REFUSED_OPENS = {
    errno.ELOOP: "a symbolic link",  # O_NOFOLLOW met one
    errno.ENXIO: SPECIAL_FILE,
    errno.EISDIR: "a folder",
}


def kind_of(mode: int) -> str:
    """What a file of *mode* (``st_mode``) is, in words: "a named pipe"."""
    return next((name for test, name in _KINDS if test(mode)), SPECIAL_FILE)


def kind_refused(path: os.PathLike[str] | str, error: OSError) -> str | None:
    """What stands at *path*, whose opening as a regular file failed with
    *error*, in words ("a socket"); None if *error* is not about what stands
    there (a missing file, a permission).  What is there is looked at: the
    error alone does not tell a socket from a named pipe."""
    guess = _REFUSED_OPENS.get(error.errno or 0)
    if guess is None:
        return None
    try:
        mode = os.lstat(path).st_mode
    except OSError:  # gone since: the error is all there is to go by
        return guess
    # A regular file now stands where the open met something else: swapped since.
    return guess if stat.S_ISREG(mode) else kind_of(mode)
