"""Round 29: a megabyte pasted as a skill's name (a page of combining
marks, one letter wide on screen) was read for secrets before its length
was looked at, six seconds, and then refused with a message quoting it
whole, a megabyte in the dialog saying so.  It is now refused unread, its
length said, not its text."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.db import Database
from desktop.core.db.skills import SkillStore
from desktop.core.skills.library import NAME_CHARS, SkillLibrary, SkillRefused
from tests.unit.core.tasks.test_tasks_round27 import ReadingRedactor

PASTED = "Z" + "\u0301" * 1_000_000
"""One letter on screen, a million combining accents over it."""
# Z and its first accent fold into one (NFKC): a million characters.
REFUSED = f"A skill name is at most {NAME_CHARS} characters; this one has 1,000,000."


@pytest.fixture
def redactor() -> ReadingRedactor:
    return ReadingRedactor()


@pytest.fixture
def library(database: Database, tmp_path: Path, redactor: ReadingRedactor) -> SkillLibrary:
    return SkillLibrary(SkillStore(database), tmp_path / "skills", redactor=redactor)


def test_a_megabyte_as_a_new_skills_name_is_refused_unread_in_a_line(
    library: SkillLibrary, redactor: ReadingRedactor
) -> None:
    with pytest.raises(SkillRefused) as refused:
        library.create(PASTED, "Fold a flag\n1. Twice.")

    assert str(refused.value) == REFUSED
    assert all(size < 100 for size in redactor.read)  # its text alone
    assert library.list() == []


def test_a_megabyte_as_a_skills_new_name_is_refused_unread_and_its_name_kept(
    library: SkillLibrary, redactor: ReadingRedactor
) -> None:
    skill = library.create("Fold flags", "Fold a flag\n1. Twice.")
    redactor.read.clear()

    with pytest.raises(SkillRefused) as refused:
        library.rename(skill.id, PASTED)

    assert str(refused.value) == REFUSED
    assert redactor.read == []
    assert [s.name for s in library.list()] == ["Fold flags"]
