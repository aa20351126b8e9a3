"""Round 25: every sync read every skill file again.

The skill list is synced with the folder at every chat turn (the prompt's
table of contents), and a sync read each file whole and ran the secret
checks on its name and first line, milliseconds each: seven seconds a
turn with two thousand skills.  A file is read again only once it changed
(its size, times or inode), a name checked again only once the redactor
caught another secret; what changed is still seen at the next sync."""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

import pytest

from desktop.core.db import Database
from desktop.core.db.skills import SkillStore
from desktop.core.privacy.redaction import Redacted, Redactor
from desktop.core.skills.library import SkillLibrary


class CountingRedactor(Redactor):
    """The app's redactor, counting the texts it is asked to read."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[str] = []

    def __call__(self, text: str, **after: object) -> Redacted:
        self.read.append(text)
        return super().__call__(text, **after)  # type: ignore[arg-type]


class CountingLibrary(SkillLibrary):
    """The app's library, counting the skill files it reads."""

    files_read: ClassVar[list[str]] = []

    @staticmethod
    def _read(path: Path) -> str:
        CountingLibrary.files_read.append(path.name)
        return SkillLibrary._read(path)


@pytest.fixture
def counted(database: Database, tmp_path: Path) -> tuple[CountingLibrary, CountingRedactor]:
    redactor = CountingRedactor()
    CountingLibrary.files_read = []
    folder = tmp_path / "skills"
    folder.mkdir()
    for n in range(20):
        (folder / f"skill {n}.md").write_text(f"Do thing {n}\n1. Step.\n", encoding="utf-8")
    return CountingLibrary(SkillStore(database), folder, redactor=redactor), redactor


def test_a_sync_reads_only_the_files_that_changed(
    counted: tuple[CountingLibrary, CountingRedactor],
) -> None:
    library, redactor = counted
    library.sync()
    assert len(CountingLibrary.files_read) == 20
    CountingLibrary.files_read.clear()
    redactor.read.clear()

    library.sync()
    library.table_of_contents(10_000)

    assert CountingLibrary.files_read == [] and redactor.read == []
    changed = library.directory / "skill 3.md"
    changed.write_text("Do the third thing, changed\n1. Step.\n", encoding="utf-8")
    os.utime(changed, ns=(1, 1))  # even an edit that set the time back is seen

    library.sync()

    assert CountingLibrary.files_read == ["skill 3.md"]
    [skill] = [s for s in library.list() if s.name == "skill 3"]
    assert skill.summary == "Do the third thing, changed"


def test_a_name_is_checked_again_once_a_secret_was_caught(
    counted: tuple[CountingLibrary, CountingRedactor],
) -> None:
    library, redactor = counted
    library.sync()
    redactor("my wifi password is kettle-moon-42")
    redactor.read.clear()
    (library.directory / "kettle-moon-42.md").write_text("Tea\n1. Boil.\n", encoding="utf-8")

    report = library.sync()

    assert "skill 0" in redactor.read  # read again, with the secret now known
    assert [s.file_name for s in report.skipped] == ["kettle-moon-42.md"]
    assert "kettle-moon-42" not in [s.name for s in library.list()]
