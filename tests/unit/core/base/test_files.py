"""A user's file is written whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.base.files import write_atomically


def test_a_failed_write_keeps_the_previous_file(tmp_path: Path) -> None:
    path = tmp_path / "memories.jsonl"
    write_atomically(path, "the previous export\n")

    with pytest.raises(UnicodeEncodeError):
        write_atomically(path, "half of this is written, then \ud800 stops it")

    assert path.read_text() == "the previous export\n"
    assert [p.name for p in tmp_path.iterdir()] == ["memories.jsonl"]
    assert path.stat().st_mode & 0o077 == 0  # private, like the database


def test_a_missing_folder_is_an_os_error_and_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_atomically(tmp_path / "absent" / "file.txt", "text")
    assert list(tmp_path.iterdir()) == []


def test_a_symlink_is_written_through_and_kept(tmp_path: Path) -> None:
    # A dotfile manager's link: the file it points to is the one to update.
    (tmp_path / "dotfiles").mkdir()
    (tmp_path / "config").mkdir()
    target = tmp_path / "dotfiles" / "settings.json"
    target.write_text("old\n")
    link = tmp_path / "config" / "settings.json"
    link.symlink_to(Path("..", "dotfiles", "settings.json"))  # relative, as such tools make them

    write_atomically(link, "new\n")

    assert link.is_symlink()
    assert link.readlink() == Path("..", "dotfiles", "settings.json")
    assert target.read_text() == "new\n"
    assert [p.name for p in (tmp_path / "config").iterdir()] == ["settings.json"]
    assert [p.name for p in (tmp_path / "dotfiles").iterdir()] == ["settings.json"]


def test_a_chain_of_symlinks_reaches_the_last_target(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("old\n")
    middle = tmp_path / "middle.txt"
    middle.symlink_to(target)
    first = tmp_path / "first.txt"
    first.symlink_to(middle)

    write_atomically(first, "new\n")

    assert (first.is_symlink(), middle.is_symlink()) == (True, True)
    assert target.read_text() == "new\n"


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "settings.json"
    link.symlink_to(tmp_path / "moved" / "settings.json")
    (tmp_path / "moved").mkdir()

    write_atomically(link, "text\n")

    assert link.is_symlink()
    assert (tmp_path / "moved" / "settings.json").read_text() == "text\n"


def test_a_failed_write_through_a_symlink_keeps_the_target_and_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("previous\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)

    with pytest.raises(UnicodeEncodeError):
        write_atomically(link, "half, then \ud800 stops it")

    assert link.is_symlink()
    assert target.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real.txt"]
