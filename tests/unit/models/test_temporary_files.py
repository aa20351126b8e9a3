"""Working folders: removed after their work, and what a kill left removed by
the next sweep, never one a live holder (another process) is using."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from models.temporary_files import LOCK, remove_left_folders, working_folder

PREFIX = "reverie-minilm-"
KILLED = f"{PREFIX}0123456789ab"
"""As ``working_folder`` names one: the prefix and 12 hexadecimal digits."""


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _left_by_a_kill(root: Path, name: str = KILLED, *, lock: bool = True) -> Path:
    folder = root / name
    (folder / "weights").mkdir(parents=True)
    (folder / "weights" / "model.safetensors").write_bytes(b"\0" * 4096)
    if lock:
        (root / f"{name}{LOCK}").touch()  # its holder is gone: nobody holds it
    return folder


def test_a_working_folder_is_private_and_goes_with_its_lock_after_the_work(
    tmp_path: Path,
) -> None:
    root = tmp_path / "cache" / "preparing"
    with working_folder(root, PREFIX) as folder:
        (folder / "config.json").write_text("{}")
        assert folder.parent == root and folder.name.startswith(PREFIX)
        assert _names(root) == [folder.name, folder.name + LOCK]
        assert oct(folder.stat().st_mode & 0o777) == "0o700"

    assert _names(root) == []


def test_a_working_folder_goes_when_its_work_fails_too(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="bad weights"), working_folder(tmp_path, PREFIX):
        raise ValueError("bad weights")
    assert _names(tmp_path) == []


def test_what_a_kill_left_goes_and_nothing_else(tmp_path: Path) -> None:
    _left_by_a_kill(tmp_path)
    _left_by_a_kill(tmp_path, f"{PREFIX}ba9876543210", lock=False)  # a sweep was cut short
    (tmp_path / f"{PREFIX}cafecafecafe{LOCK}").touch()  # killed before its folder was made
    kept = [
        f"{PREFIX}x1y2z3w4",  # an older Reverie's: no lock tells whether it is in use
        f"{PREFIX}0123456789ab.notes",
        "reverie.log",
    ]
    for name in kept:
        (tmp_path / name).mkdir()

    remove_left_folders(tmp_path, PREFIX)

    assert _names(tmp_path) == sorted(kept)


def test_a_folder_in_use_elsewhere_stays(tmp_path: Path) -> None:
    folder = _left_by_a_kill(tmp_path)
    holder = os.open(tmp_path / f"{KILLED}{LOCK}", os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)  # as a live conversion in another process holds it
    try:
        remove_left_folders(tmp_path, PREFIX)
    finally:
        os.close(holder)

    assert (folder / "weights" / "model.safetensors").exists()


def test_a_live_working_folder_survives_a_sweep_in_the_middle_of_its_work(
    tmp_path: Path,
) -> None:
    with working_folder(tmp_path, PREFIX) as folder:
        remove_left_folders(tmp_path, PREFIX)
        assert folder.is_dir()
    assert _names(tmp_path) == []


def test_a_link_named_like_a_working_folder_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("the user's")
    root = tmp_path / "preparing"
    root.mkdir()
    (root / KILLED).symlink_to(elsewhere)

    remove_left_folders(root, PREFIX)

    assert (elsewhere / "keep.txt").read_text() == "the user's"
