"""A skill file larger than a skill can be (a notes export put in the
folder by hand) is named and skipped, never read whole on every turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database
from desktop.core.db.skills import SkillStore
from desktop.core.skills.library import FILE_BYTES, TEXT_CHARS, SkillFileError, SkillLibrary

HUGE = 64 << 20


@pytest.fixture
def library(database: Database, user_dirs: AppPaths) -> SkillLibrary:
    return SkillLibrary(SkillStore(database), user_dirs.skills_dir)


def _grow(path: Path, size: int) -> None:
    with path.open("a") as file:
        file.truncate(size)  # sparse: costs no disk


def test_a_hand_placed_file_larger_than_a_skill_is_named_and_skipped(
    library: SkillLibrary,
) -> None:
    library.directory.mkdir(parents=True, exist_ok=True)
    notes = library.directory / "notes.md"
    notes.write_text("My notes\n")
    _grow(notes, HUGE)

    contents = library.table_of_contents(2000)

    assert contents == []
    skipped = library.last_sync.skipped
    assert [s.file_name for s in skipped] == ["notes.md"]
    assert "larger than a skill can be" in skipped[0].reason


def test_a_skill_whose_file_grew_past_the_limit_is_refused_unread(library: SkillLibrary) -> None:
    tea = library.create("tea", "How to brew\nboil\n")
    _grow(library.path(tea), HUGE)

    with pytest.raises(SkillFileError, match="larger than a skill can be"):
        library.read(tea.id)
    with pytest.raises(SkillFileError, match="larger than a skill can be"):
        library.use("tea", None)


def test_the_largest_skill_reverie_writes_is_still_read(library: SkillLibrary) -> None:
    text = "Longest\n" + "\U0001d11e" * (TEXT_CHARS - len("Longest\n"))  # 4 bytes each
    big = library.create("longest", text)

    assert library.path(big).stat().st_size <= FILE_BYTES
    assert library.read(big.id).text == text + "\n"
    assert [line.name for line in library.table_of_contents(2000)] == ["longest"]
