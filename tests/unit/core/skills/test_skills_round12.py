"""A skill name is checked in bytes, as a file system counts a file name:
a name within 64 characters can still be too long once in UTF-8 (an emoji
takes 4 bytes) with ``.md`` and the temporary name of a write.  Create and
rename refuse it up front, by one rule, so a name that is accepted stays
usable; a write that still hits the limit says so, not "the disk has space"."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database
from desktop.core.db.skills import SkillStore
from desktop.core.skills.library import (
    NAME_BYTES,
    NAME_CHARS,
    SkillFileError,
    SkillLibrary,
    SkillRefused,
    skill_name,
)

TEA = "Brew tea: boil water.\n"
EMOJI = "\U0001f600"  # 4 bytes in UTF-8
# Within the 64-character rule, only 4-byte letters can pass 233 bytes.
TOO_LONG = {
    "60 emoji": EMOJI * 60,
    "64 emoji": EMOJI * 64,
    "one byte over": "a" * 6 + EMOJI * 57,
}
LONGEST = {"emoji": EMOJI * 58 + "a", "mixed": "a" * 5 + EMOJI * 57}


@pytest.fixture
def folder(user_dirs: AppPaths) -> Path:
    return user_dirs.skills_dir


@pytest.fixture
def library(database: Database, folder: Path) -> SkillLibrary:
    return SkillLibrary(SkillStore(database), folder)


def _files(folder: Path) -> list[str]:
    if not folder.exists():
        return []
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


def _message(name: str) -> str:
    size = len(name.encode())
    return f"too long as a file name: {size} bytes in UTF-8, at most {NAME_BYTES}"


@pytest.mark.parametrize("name", TOO_LONG.values(), ids=TOO_LONG.keys())
def test_a_name_too_long_in_bytes_is_refused_at_create_and_nothing_is_written(
    library: SkillLibrary, folder: Path, name: str
) -> None:
    assert len(name) <= 64  # within the character rule: only its bytes are too many

    with pytest.raises(SkillRefused, match=_message(name)):
        library.create(name, TEA)
    with pytest.raises(SkillRefused, match=_message(name)):
        library.create(name, TEA, draft=True)

    assert _files(folder) == []
    assert library.list(statuses=("active", "draft", "deleted")) == []


@pytest.mark.parametrize("name", TOO_LONG.values(), ids=TOO_LONG.keys())
def test_a_name_too_long_in_bytes_is_refused_at_rename_and_the_skill_is_kept(
    library: SkillLibrary, folder: Path, name: str
) -> None:
    tea = library.create("tea", TEA)

    with pytest.raises(SkillRefused, match=_message(name)):
        library.rename(tea.id, name)

    assert _files(folder) == ["tea.md"]
    kept = library.update_text(tea.id, "Brew tea: boil water, then steep.")
    assert kept.name == "tea" and library.read(tea.id).text == "Brew tea: boil water, then steep.\n"


@pytest.mark.parametrize("name", LONGEST.values(), ids=LONGEST.keys())
def test_the_longest_name_accepted_is_usable_in_every_state(
    library: SkillLibrary, folder: Path, name: str
) -> None:
    assert len(skill_name(name).encode()) == NAME_BYTES
    tea = library.rename(library.create("tea", TEA).id, name)
    library.update_text(tea.id, "Brew tea: steep 3 minutes.")
    library.delete(tea.id)
    again = library.create(
        name, "Brew tea: the second way.", replace_deleted=True
    )  # the old copy goes (round 32)
    # As a Reverie before round 32 left it: moved aside as "(2)" by the next delete.
    (folder / ".deleted" / f"{name}.md").write_text("Brew tea: the first way.\n")
    library.delete(again.id)
    library.restore(again.id)
    library.update_text(again.id, "Brew tea: the second way, in a pot.")
    other = name[:-1] + "b"
    draft = library.create(other, "A draft to review.", draft=True)
    library.update_text(draft.id, "A draft to review, edited.")
    library.accept(draft.id)

    assert library.read(again.id).text == "Brew tea: the second way, in a pot.\n"
    assert _files(folder) == sorted([f".deleted/{name} (2).md", f"{name}.md", f"{other}.md"])


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.integers(50, 64), st.text(alphabet="aé\u4e2d", max_size=10), st.booleans())
def test_any_name_accepted_stays_usable(
    library: SkillLibrary, emoji: int, letters: str, letters_first: bool
) -> None:
    raw = letters + EMOJI * emoji if letters_first else EMOJI * emoji + letters
    try:
        name = skill_name(raw)
    except SkillRefused as refusal:
        if len(raw) > NAME_CHARS:
            assert f"at most {NAME_CHARS} characters" in str(refusal)
        else:
            assert len(raw.encode()) > NAME_BYTES and _message(raw) in str(refusal)
        return
    skill = library.create(name, TEA, replace_deleted=True)  # one an earlier example deleted
    library.update_text(skill.id, "Brew tea: saved again.")
    assert library.read(skill.id).text == "Brew tea: saved again.\n"
    library.delete(skill.id)
    again = library.create(name, "Brew tea: the second way.", replace_deleted=True)
    library.delete(again.id)
    library.restore(again.id)
    assert library.read(again.id).text == "Brew tea: the second way.\n"
    library.delete(again.id)  # the name is free again for the next example


def test_a_file_name_too_long_for_the_disk_is_named_as_such_not_as_no_space(
    library: SkillLibrary, database: Database
) -> None:
    # A row left by an older version, naming a file no file system allows.
    old = SkillStore(database).add("old", "Old", "x" * 300 + ".md", "active")

    with pytest.raises(SkillFileError) as raised:
        library.update_text(old.id, "Old: new text.")

    assert "disk has space" not in str(raised.value)
    assert "rename the skill to a shorter name" in raised.value.hint


def test_a_skill_an_older_version_named_too_long_is_reported_and_can_be_renamed(
    library: SkillLibrary, folder: Path
) -> None:
    tea = library.create("tea", TEA)
    long = EMOJI * 60  # accepted by rename before names were counted in bytes
    (folder / "tea.md").rename(folder / f"{long}.md")
    library.store.update(tea.id, name=long, file_name=f"{long}.md")

    assert [s.reason for s in library.sync().skipped] == [
        f"A skill name is {_message(long)} (an emoji takes 4). Choose a shorter name."
    ]

    library.rename(tea.id, "tea")
    library.update_text(tea.id, "Brew tea: steep 3 minutes.")
    assert _files(folder) == ["tea.md"]
    assert library.read(tea.id).text == "Brew tea: steep 3 minutes.\n"
