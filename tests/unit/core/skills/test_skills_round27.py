"""Round 27: a pasted page as a skill was read for secrets before its length
was looked at.

A skill is at most 100,000 characters, but the text the editor saved (or
a dream wrote) was taken through the redaction whole first: 2 MB pasted
into the skill editor froze it for two minutes before it said the skill
was too long.  A text longer than the limit by more than taking secrets
out could shorten it is now refused unread, with the same words."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.db import Database
from desktop.core.db.skills import SkillStore
from desktop.core.skills.library import TEXT_CHARS, SkillLibrary, SkillRefused
from tests.unit.core.tasks.test_tasks_round27 import ReadingRedactor

PASTED = "Check the tyre pressure before a long drive.\n" * 50_000
"""Over 2 MB, as a notes export pasted by mistake."""


@pytest.fixture
def redactor() -> ReadingRedactor:
    return ReadingRedactor()


@pytest.fixture
def library(database: Database, tmp_path: Path, redactor: ReadingRedactor) -> SkillLibrary:
    return SkillLibrary(SkillStore(database), tmp_path / "skills", redactor=redactor)


def test_a_pasted_page_as_a_new_skill_is_refused_for_its_length_unread(
    library: SkillLibrary, redactor: ReadingRedactor
) -> None:
    with pytest.raises(SkillRefused, match=f"at most {TEXT_CHARS:,} characters; this one has"):
        library.create("Car care", PASTED)

    assert all(size < 100 for size in redactor.read)  # its name alone
    assert library.list() == []


def test_a_pasted_page_over_a_skill_is_refused_unread_and_its_text_kept(
    library: SkillLibrary, redactor: ReadingRedactor
) -> None:
    skill = library.create("Car care", "Keep the car running\n1. Check the oil.")
    before = library.read(skill.id).text
    redactor.read.clear()

    with pytest.raises(SkillRefused, match=f"at most {TEXT_CHARS:,} characters"):
        library.update_text(skill.id, PASTED)

    assert redactor.read == []
    assert library.read(skill.id).text == before
