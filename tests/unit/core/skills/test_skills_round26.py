"""Round 26: the first sync of a large folder made by hand took quadratic time.

Each new skill file was indexed on its own, and each indexing read every
skill's row to check its name was free: a folder of 2,000 files took 45 s
to sync the first time (500 files: 8.8 s).  The new files of a sync are
indexed together, the names taken read once.  Counted, not timed: how
many names a sync compares grows with the files, not with their square."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.db import Database, skills
from desktop.core.db.skills import SkillNameTaken, SkillStore
from desktop.core.skills.library import SkillLibrary


def test_the_first_sync_of_a_folder_compares_each_name_a_few_times(
    database: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = 200
    (tmp_path / "skills").mkdir()
    for n in range(files):
        (tmp_path / "skills" / f"skill {n}.md").write_text(f"Do {n}\n1. Step.\n", "utf-8")
    compared: list[str] = []
    real = skills.name_key

    def counted(name: str) -> str:
        compared.append(name)
        return real(name)

    monkeypatch.setattr(skills, "name_key", counted)
    library = SkillLibrary(SkillStore(database), tmp_path / "skills")

    report = library.sync()

    assert len(report.added) == files
    assert len(compared) <= 3 * files  # one skill after another: files * files / 2


def test_a_name_taken_in_the_same_batch_adds_nothing(database: Database) -> None:
    store = SkillStore(database)

    with pytest.raises(SkillNameTaken):
        store.add_many([("Tea", "Make tea", "Tea.md"), ("TEA", "Make tea", "TEA.md")], "active")

    assert store.list(("active", "draft", "deleted")) == []
