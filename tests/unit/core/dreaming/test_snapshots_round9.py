"""Round 9's attacks on the dream's safety copy of the skills folder.

``shutil.copytree`` followed links and failed on anything it could not read
as a file: one dangling link (a skill kept in a dotfiles folder whose
target moved) or a named pipe anywhere in ``skills/`` stopped every dream
before it started, with a Python list as its reason and a hint to free disk
space; and a link to a folder copied that whole folder into each snapshot.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from desktop.core.db import Database
from desktop.core.dreaming.snapshots import SKILLS_SUFFIX, SnapshotFailed, take_snapshot

TEA = "# Tea\n1. Boil.\n2. Steep.\n"


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    folder = tmp_path / "skills"
    (folder / ".changes").mkdir(parents=True)
    (folder / "tea.md").write_text(TEA)
    return folder


def _snapshot(database: Database, tmp_path: Path, skills: Path) -> Path:
    taken = take_snapshot(
        database, tmp_path / "snapshots", "20260101-000000", skills_dir=skills, keep=3
    )
    return taken.with_suffix(SKILLS_SUFFIX)


def test_a_dangling_link_in_the_skills_folder_is_kept_as_a_link(
    database: Database, tmp_path: Path, skills: Path
) -> None:
    target = tmp_path / "dotfiles" / "bread.md"  # moved away
    os.symlink(target, skills / "bread.md")

    copied = _snapshot(database, tmp_path, skills)

    assert (copied / "tea.md").read_text() == TEA
    assert os.readlink(copied / "bread.md") == str(target)


def test_a_linked_skill_file_is_copied_as_its_text(
    database: Database, tmp_path: Path, skills: Path
) -> None:
    kept = tmp_path / "dotfiles" / "bread.md"
    kept.parent.mkdir()
    kept.write_text("# Bread\n1. Knead.\n")
    os.symlink(kept, skills / "bread.md")

    copied = _snapshot(database, tmp_path, skills)
    kept.write_text("# Bread\nrewritten by a dream\n")

    assert not (copied / "bread.md").is_symlink()
    assert (copied / "bread.md").read_text() == "# Bread\n1. Knead.\n"


def test_a_named_pipe_in_the_skills_folder_is_left_out_of_the_copy(
    database: Database, tmp_path: Path, skills: Path
) -> None:
    os.mkfifo(skills / ".changes" / "stray")

    copied = _snapshot(database, tmp_path, skills)

    assert (copied / "tea.md").read_text() == TEA
    assert not (copied / ".changes" / "stray").exists()


def test_a_linked_folder_is_not_copied_into_the_snapshot(
    database: Database, tmp_path: Path, skills: Path
) -> None:
    outside = tmp_path / "shared"
    outside.mkdir()
    (outside / "video.bin").write_bytes(b"\0" * 4096)
    os.symlink(outside, skills / "shared")

    copied = _snapshot(database, tmp_path, skills)

    assert (copied / "shared").is_symlink()
    assert os.readlink(copied / "shared") == str(outside)


def test_a_skills_file_that_cannot_be_copied_is_named_not_listed(
    database: Database, tmp_path: Path, skills: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_copyfile = shutil.copyfile

    def unreadable(source: str, target: str, **options: bool) -> str:
        if Path(source).name == "tea.md":
            raise PermissionError(13, "Permission denied", source)
        return real_copyfile(source, target, **options)

    monkeypatch.setattr(shutil, "copyfile", unreadable)

    with pytest.raises(SnapshotFailed) as failed:
        _snapshot(database, tmp_path, skills)

    said = str(failed.value)
    assert f"{skills / 'tea.md'} could not be copied" in said
    assert "[(" not in said and "Errno" not in said  # no Python list, no bare exception
    assert "disk space" not in failed.value.hint
