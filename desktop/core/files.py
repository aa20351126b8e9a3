"""Writing a user's file whole or not at all."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str) -> None:
    """Replace *path* with *text* (UTF-8) in one step, or leave it as it was.

    The text goes to a temporary file beside *path* (readable by the user
    only), reaches the disk, then takes the old file's place in one rename;
    a crash or a full disk never leaves a half-written file.  Raises
    ``OSError``, after removing the temporary file.
    """
    temporary: Path | None = None
    try:
        with tempfile.NamedTemporaryFile(
            "w",
            encoding="utf-8",
            newline="\n",
            dir=path.parent,
            prefix=f".{path.name}.",
            suffix=".part",
            delete=False,
        ) as handle:
            temporary = Path(handle.name)
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(OSError):  # the first error is the one to report
                temporary.unlink()
        raise
