"""Making folders readable by the user alone, whatever the process umask.

The model layer makes the folders it writes models in (a download's, a
conversion's); the application makes its own through ``desktop.core.files``,
which builds on this.  ``Path.mkdir(parents=True, mode=...)`` gives the mode
to the last folder only: the ones above it would take the umask's.
"""

from __future__ import annotations

from pathlib import Path

PRIVATE_FOLDER_MODE = 0o700


def make_missing_folders(folder: Path) -> None:
    """Create *folder* and the missing folders above it, each 0700 whatever
    the umask (``mkdir`` only takes bits away from the mode it is given).
    What is there already is left as it is, a folder other programs use
    too (``~/.config``) or a file at *folder* itself (a caller that needs
    a folder there says what is in the way).  Raises ``OSError``."""
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for created in reversed(missing):
        created.mkdir(mode=PRIVATE_FOLDER_MODE, exist_ok=True)
