"""Round 23 tests of the skill library: the skills folder itself goes away
for a while (moved or renamed by hand, a sync client replacing it).

A sync read "no folder" as every file removed by hand: every skill was
deleted, and when the folder came back the active ones came back with it,
but each draft stayed deleted and could not be restored (its file waits in
the drafts, not among the deleted ones): the dream's proposals were lost
to the user.  A missing folder now changes nothing, and is said.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database
from desktop.core.db.skills import EVERY_STATUS, SkillStore
from desktop.core.skills.library import SkillFileError, SkillLibrary

TEA = "Brew the user's tea\n1. Boil water.\n"
COFFEE = "Brew coffee\n1. Grind the beans.\n"


@pytest.fixture
def library(database: Database, user_dirs: AppPaths) -> SkillLibrary:
    return SkillLibrary(SkillStore(database), user_dirs.skills_dir)


def _statuses(library: SkillLibrary) -> dict[str, str]:
    return {skill.name: skill.status for skill in library.list(statuses=EVERY_STATUS)}


def test_a_skills_folder_moved_away_and_back_keeps_every_skill_and_draft(
    library: SkillLibrary,
) -> None:
    library.create("tea", TEA)
    coffee = library.create("coffee", COFFEE, draft=True)
    away = library.directory.with_name("skills moved")
    library.directory.rename(away)

    assert _statuses(library) == {"tea": "active", "coffee": "draft"}
    assert library.last_sync.missing and library.last_sync.skipped == ()
    assert not library.directory.exists()  # looking made no empty folder in its place

    away.rename(library.directory)
    assert _statuses(library) == {"tea": "active", "coffee": "draft"}
    assert not library.last_sync.missing
    assert library.accept(coffee.id).status == "active"
    assert library.read(coffee.id).text == COFFEE


def test_a_skill_read_while_its_folder_is_away_says_why(library: SkillLibrary) -> None:
    library.create("tea", TEA)
    library.directory.rename(library.directory.with_name("skills moved"))

    with pytest.raises(SkillFileError, match="could not be read") as refused:
        library.use("tea", None)

    assert "tea.md" in str(refused.value)


def test_an_empty_folder_in_its_place_lets_the_skills_go(
    library: SkillLibrary,
) -> None:
    tea = library.create("tea", TEA)
    library.directory.rename(library.directory.with_name("skills moved"))
    library.directory.mkdir()

    assert _statuses(library) == {"tea": "deleted"}
    assert library.last_sync.removed == ("tea",)
    assert library.list() == [] and library.table_of_contents(2000) == []
    assert (library.directory.with_name("skills moved") / "tea.md").is_file()  # never touched
    assert library.store.get(tea.id) is not None


def test_no_folder_yet_and_no_skills_is_nothing_to_say(library: SkillLibrary) -> None:
    assert not library.directory.exists()

    assert library.list() == []
    assert not library.last_sync.missing


# -- a secret in a file's name ---------------------------------------------------
#
# Every name Reverie is given is redacted (create, rename), but a file put in
# the folder by hand was taken in under its own name: "wifi password is
# kettle-moon-42.md" became a skill of that name in the database, and so in
# every export of it.

SECRET = "kettle-moon-42"


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        (f"wifi password is {SECRET}", "password"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "api key"),
    ],
)
def test_a_file_whose_name_holds_a_secret_is_named_and_never_stored(
    library: SkillLibrary, tmp_path: Path, name: str, kind: str
) -> None:
    library.directory.mkdir(parents=True)
    (library.directory / f"{name}.md").write_text("Join the wifi\n", encoding="utf-8")
    (library.directory / "Change the wifi password.md").write_text("Log in\n", encoding="utf-8")

    assert [skill.name for skill in library.list(statuses=EVERY_STATUS)] == [
        "Change the wifi password"  # a name about a password is no secret
    ]
    [skipped] = library.last_sync.skipped
    assert skipped.file_name == f"{name}.md"
    assert f"looks like a {kind}" in skipped.reason and "rename the file" in skipped.reason
    assert (library.directory / f"{name}.md").read_text(encoding="utf-8") == "Join the wifi\n"
    secret = name.rsplit(" ", 1)[-1].encode()
    assert [p.name for p in tmp_path.glob("*.sqlite3*") if secret in p.read_bytes()] == []
