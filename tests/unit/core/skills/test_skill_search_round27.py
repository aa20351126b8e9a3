"""Round 27: a skill's text was searched with its case folded alone, so
"file" did not find the full-width "File" nor "cafe" "Café" in it, as
the conversations' search does now (``searchable``)."""

from __future__ import annotations

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database
from desktop.core.db.skills import SkillStore
from desktop.core.skills.library import SkillLibrary


@pytest.fixture
def library(database: Database, user_dirs: AppPaths) -> SkillLibrary:
    return SkillLibrary(SkillStore(database), user_dirs.skills_dir)


@pytest.mark.parametrize("query", ["file", "FILE cafe", "\ufb01le caf\u00e9", "resume"])
def test_a_skill_is_found_whatever_the_form_or_accents_of_its_text(
    library: SkillLibrary, query: str
) -> None:
    found = library.create(
        "Filing", "Keep each \uff26\uff49\uff4c\uff45 of the Caf\u00e9's r\u00e9sum\u00e9s.\n"
    )
    library.create("Tea", "Brew it for four minutes.\n")

    assert [s.id for s in library.list(query)] == [found.id]


def test_a_word_not_there_finds_nothing(library: SkillLibrary) -> None:
    library.create("Filing", "Keep each \uff26\uff49\uff4c\uff45.\n")

    assert library.list("folder") == []
