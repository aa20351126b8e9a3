"""Looking at a model file's path before reading it, with a clear word for
every way a path can fail.

A model path comes from the user (``models.added``, the command line, a
role's settings), so it may be anything: missing, a folder, a FIFO, too long
for the file system, a loop of links, behind a folder Reverie may not enter,
or holding a NUL.  ``pathlib``'s ``is_file()`` answers False for some of
these and raises a bare ``OSError``/``ValueError`` for others (a name over
255 bytes, a path over ``PATH_MAX``), which crashed start-up with such a path
in ``models.added``.  Every check of a model path goes through
``stat_model_file``, and every failure to open one through
``unreadable_model_file``, so each becomes a ``ModelFileInvalid`` naming the
path and saying what to do.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

from models.errors import ModelFileInvalid

_LONGEST_SHOWN = 160
"""A path longer than this is shown by its start and its end: the message
must name it without thousands of characters of folder names."""
_PERMISSION_ERRNOS = frozenset({errno.EACCES, errno.EPERM})
_UNSHOWABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""Control characters (a terminal runs ESC and BEL sequences: retitling,
clearing, colours, OSC 52 setting the clipboard), bidirectional overrides
(which reorder what follows) and lone surrogates (which cannot be printed)."""


def shown_text(text: str, limit: int = _LONGEST_SHOWN) -> str:
    """*text* read from a file (a path, a model's metadata) as a message or a
    terminal may show it: every character in ``_UNSHOWABLE`` written as a
    visible escape (NUL as ``\\0``, ESC as ``\\x1b``), and a very long one
    shortened to its start and its end."""
    visible = _UNSHOWABLE.sub(_escaped, text)
    if len(visible) <= limit:
        return visible
    head = limit // 2
    return f"{visible[:head]}…{visible[-(limit - head - 1) :]}"


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0:
        return "\\0"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown_path(path: Path | str) -> str:
    """*path* as a message names it (``shown_text``: NULs and escapes visible,
    a very long one shortened)."""
    return shown_text(str(path))


def stat_model_file(path: Path) -> os.stat_result:
    """*path*'s status (links followed) if it is a regular file;
    ``ModelFileInvalid`` naming it for a folder, anything else that is not a
    file, and every reason it cannot be looked at."""
    try:
        status = path.stat()
    except OSError as error:
        raise unreadable_model_file(path, error) from error
    except ValueError as error:  # a NUL, or a lone surrogate from a JSON escape
        raise ModelFileInvalid(
            f"{shown_path(path)} is not a file name this system can use.",
            "Give the .gguf file's path again.",
        ) from error
    if stat.S_ISDIR(status.st_mode):
        raise ModelFileInvalid(
            f"{shown_path(path)} is a folder, not a .gguf model file.",
            "Choose a .gguf file, not its folder.",
        )
    if not stat.S_ISREG(status.st_mode):
        # A FIFO or a device would block or stream forever when read.
        raise ModelFileInvalid(
            f"{shown_path(path)} is not a regular file.", "Choose a .gguf model file."
        )
    return status


def unreadable_model_file(path: Path, error: OSError) -> ModelFileInvalid:
    """The ``ModelFileInvalid`` for *error*, met looking at or opening *path*."""
    shown = shown_path(path)
    if error.errno in (errno.ENOENT, errno.ENOTDIR):
        return ModelFileInvalid(f"Model file not found: {shown}.", "Choose an existing .gguf file.")
    if error.errno == errno.ENAMETOOLONG:
        return ModelFileInvalid(
            f"The model path is too long for the file system: {shown}.",
            "Move the file to a folder with a shorter path (or give it a shorter name) "
            "and choose it again.",
        )
    if error.errno == errno.ELOOP:
        return ModelFileInvalid(
            f"The model path {shown} is a loop of symbolic links.",
            "Fix the link, or choose the .gguf file itself.",
        )
    if error.errno in _PERMISSION_ERRNOS:
        return ModelFileInvalid(
            f"Reverie may not read the model file {shown} (permission denied).",
            "Check the permissions of the file and of the folders above it.",
        )
    if error.errno == errno.EISDIR:
        return ModelFileInvalid(
            f"{shown} is a folder, not a .gguf model file.", "Choose a .gguf file, not its folder."
        )
    reason = error.strerror or type(error).__name__
    return ModelFileInvalid(
        f"Cannot read model file {shown}: {reason}.", "Check that the file is readable."
    )


def damaged_weights(path: Path) -> ModelFileInvalid:
    """The ``ModelFileInvalid`` of *path* whose weights compute numbers that
    are not (NaN, infinity): llama.cpp reads no checksum, so it loads."""
    return ModelFileInvalid(
        f"{shown_path(path.name)} is damaged: some of its weights are not numbers.",
        "Download the model again or choose another .gguf file.",
    )


def resolved_model_file(path: Path) -> Path:
    """*path* made absolute with its links resolved (how the settings keep
    an added file); ``ModelFileInvalid`` for a loop of links or a path the
    file system refuses."""
    try:
        return path.resolve()
    except RuntimeError as error:  # pathlib's word for a loop of links
        raise unreadable_model_file(path, OSError(errno.ELOOP, "loop")) from error
    except OSError as error:
        raise unreadable_model_file(path, error) from error
    except ValueError as error:
        raise ModelFileInvalid(
            f"{shown_path(path)} is not a file name this system can use.",
            "Give the .gguf file's path again.",
        ) from error
