"""An import in a process of its own, for the kill tests: ``python -m
tests.unit.core.transfer.import_child FILE ROOT KILL_AT``.

It imports FILE (a Reverie archive, a ChatGPT or Claude export) into the
data folder under ROOT as the app does (``Imports``, learning from it).
With KILL_AT above 0 the process kills itself (SIGKILL, nothing cleaned
up) just before its KILL_AT-th SQL statement (``Statements``): inside the
import's transaction, just before its COMMIT, or just after it, before the
skill files and the settings.  At the end it prints its statements.
"""

from __future__ import annotations

import sys
from pathlib import Path

from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.imports import Imports
from desktop.core.transfer.progress import PlainState
from tests.children import Statements
from tests.unit.core.transfer.archive_world import folder, library, open_folder


def main(file: str, root: str, kill_at: str) -> None:
    paths = folder(Path(root))
    statements = Statements(kill_at)
    statements.install()
    with open_folder(paths) as database:
        imports = Imports(database, paths, Redactor(), library(database, paths))
        imports.run(Path(file), learn=True, state=PlainState())
    statements.said()


if __name__ == "__main__":
    main(*sys.argv[1:4])
