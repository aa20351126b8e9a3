"""The ``Eraser`` the erasure tests build: over a database and the test's
user folders, as the application builds it (with the skills folder, a
working set of 50, a 30-day restore window unless told otherwise)."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database, MemoryStore
from desktop.core.db.skills import SkillStore
from desktop.core.dreaming import snapshots
from desktop.core.dreaming.erasure import Eraser
from desktop.core.skills.library import SkillLibrary


def eraser_for(
    database: Database,
    paths: AppPaths,
    *,
    kept_days: float = 30,
    clock: Callable[[], float] = time.time,
    skills: SkillLibrary | None = None,
) -> Eraser:
    """An eraser of *database* and the folders in *paths*, keeping deletions
    restorable for *kept_days* as told by *clock*; with *skills*, the
    library a window shares with it (as the application shares one)."""
    return Eraser(
        database,
        MemoryStore(database),
        snapshots_dir=paths.snapshots_dir,
        working_set_file=paths.working_set_file,
        working_set_size=lambda: 50,
        kept_days=lambda: kept_days,
        clock=clock,
        skills=skills or SkillLibrary(SkillStore(database), paths.skills_dir),
    )


class _SaysWaiting(logging.Handler):
    def __init__(self, event: threading.Event) -> None:
        super().__init__()
        self._event = event

    def emit(self, record: logging.LogRecord) -> None:
        if "waits" in record.getMessage():
            self._event.set()


@contextlib.contextmanager
def waiting_for_snapshots() -> Iterator[threading.Event]:
    """An event set when a holder of the snapshots' lock (an erasure, a
    dream's copy) has to wait for another: what a test waits on instead of
    sleeping, while the other holder is held."""
    event = threading.Event()
    logger = logging.getLogger(snapshots.__name__)
    handler, level = _SaysWaiting(event), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield event
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
