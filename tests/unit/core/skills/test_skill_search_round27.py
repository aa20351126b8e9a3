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


@pytest.mark.parametrize("query", ["东京", "怎么去东京", "東京へ行く方法", "ﾄｳｷｮｳ"])
def test_a_word_inside_an_unspaced_sentence_is_found(library: SkillLibrary, query: str) -> None:
    """Issue 18: a skill's text was searched for the query's words as spaces
    part them, so a Chinese or Japanese query was one word found only
    whole; it is now searched for by its pairs of neighbouring characters,
    as the conversations' index is."""
    found = library.create(
        "出差", "我下周去东京出差\uff0c怎么去最快。東京へ行く。行く方法はトウキョウ\n"
    )
    library.create("Tea", "京都的茶。东边。\n")

    assert [s.id for s in library.list(query)] == [found.id]


def test_an_unspaced_query_sharing_one_character_finds_nothing(library: SkillLibrary) -> None:
    library.create("出差", "我下周去东京出差\n")

    assert library.list("北京") == []
