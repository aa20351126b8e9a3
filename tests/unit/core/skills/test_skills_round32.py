"""Round 32: a deleted skill whose name was taken again kept its text for good.

A new skill may take a deleted skill's name: it takes its row too (its
uses carry over), so the deleted one leaves the Deleted tab and can no
longer be restored.  Its file stayed in ``skills/.deleted/``, with no row
naming it: no restore window ended for it and no erasure looked for it,
so the text the user deleted stayed in the skills folder, and in every
snapshot's copy of it, however long after.  It goes once its name is
taken, which only the user's own new skill does."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database
from desktop.core.db.skills import SkillNameTaken
from desktop.core.dreaming.erasure import DAY
from desktop.core.skills.library import SkillLibrary
from tests.erasers import eraser_for

MARK = "Quillbrook"


def _holding(folder: Path) -> list[str]:
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and MARK.encode() in p.read_bytes()
    )


def test_a_deleted_skill_whose_name_is_taken_again_is_gone_from_the_folder(
    skill_library: SkillLibrary, database: Database, user_dirs: AppPaths
) -> None:
    old = skill_library.create("Brew tea", f"Brew tea\n1. Use the {MARK} kettle.\n")
    skill_library.delete(old.id)

    new = skill_library.create(
        "Brew tea", "Brew tea\n1. Use the blue kettle.\n", replace_deleted=True
    )

    assert (new.id, new.status) == (old.id, "active")  # its row, and its uses
    assert skill_library.list(statuses=("deleted",)) == []
    assert _holding(user_dirs.skills_dir) == []
    later = eraser_for(database, user_dirs, clock=lambda: new.updated_at + 31 * DAY)
    later.erase_expired()
    assert skill_library.read(new.id).text == "Brew tea\n1. Use the blue kettle.\n"
    assert _holding(user_dirs.skills_dir) == []


def test_a_skill_deleted_twice_under_one_name_leaves_no_copy_once_restored(
    skill_library: SkillLibrary, user_dirs: AppPaths
) -> None:
    old = skill_library.create("Brew tea", f"Brew tea\n1. Use the {MARK} kettle.\n")
    skill_library.delete(old.id)
    new = skill_library.create(
        "Brew tea", "Brew tea\n1. Use the blue kettle.\n", replace_deleted=True
    )
    skill_library.delete(new.id)

    skill_library.restore(new.id)

    assert skill_library.read(new.id).text == "Brew tea\n1. Use the blue kettle.\n"
    assert _holding(user_dirs.skills_dir) == []


def test_a_skill_not_the_users_own_never_takes_a_deleted_skills_place(
    skill_library: SkillLibrary, user_dirs: AppPaths
) -> None:
    """A model's ``add_skill`` (or a dream's draft) under a deleted skill's
    name took its row, so the user could restore it no more."""
    old = skill_library.create("Brew tea", f"Brew tea\n1. Use the {MARK} kettle.\n")
    skill_library.delete(old.id)

    with pytest.raises(SkillNameTaken, match=r"'Brew tea' \(deleted\); choose another name"):
        skill_library.create("brew TEA", "Brew tea\n1. Any kettle.\n")

    restored = skill_library.restore(old.id)
    assert skill_library.read(restored.id).text == f"Brew tea\n1. Use the {MARK} kettle.\n"
