"""The skills and dream changes the skill-change tests build over a home
folder, as the app builds them, and the skills they write."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

from desktop.core.base.settings import DreamSettings
from desktop.core.db import Database, DreamStore, MemoryStore, open_database
from desktop.core.db.skills import SkillStore
from desktop.core.db.tasks import TaskStore
from desktop.core.dreaming.changes import ChangeBook
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService

TEA = (
    "How to brew tea the way the user likes it\n"
    + "Boil the water, then wait. " * 20
    + "\nSteep for 4 minutes at 90 degrees in the kettle /usr/bin/teapot.\n"
)
SHORT_TEA = "How to brew tea the way the user likes it\nBoil the water, then wait.\n"
COFFEE = "How to make coffee\n1. Grind 18 g of beans.\n2. Brew for 3 minutes.\n"
DB = "reverie.sqlite3"


@dataclass
class World:
    database: Database
    skills: SkillLibrary
    book: ChangeBook

    def close(self) -> None:
        self.database.close()


def open_world(home: Path) -> World:
    """Reverie's skills and dream changes over *home*, as the app builds them."""
    database = open_database(home / DB)
    skills = SkillLibrary(SkillStore(database), home / "skills")
    book = ChangeBook(
        database,
        MemoryStore(database),
        DreamStore(database),
        DreamSettings(),
        tasks=TaskService(TaskStore(database), ZoneInfo("UTC")),
        skills=skills,
    )
    return World(database, skills, book)
