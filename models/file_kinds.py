"""What stands at a path when a regular file was expected, in words.

The model layer's downloads and the application's files (settings, the
database's side files, snapshots, erasure's mark) name it the same way; the
application reaches it through ``desktop.core.files``.
"""

from __future__ import annotations

import stat

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)


def kind_of(mode: int) -> str:
    """What a file of *mode* (``st_mode``) is, in words: "a named pipe"."""
    return next((name for test, name in _KINDS if test(mode)), "a special file")
