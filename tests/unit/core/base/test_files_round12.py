"""Writing a file whose name is legal but long (round 12: an export to a name
of 237 to 255 bytes failed with "File name too long": the temporary file,
``.<name>.<12 hex>.part``, was 19 bytes longer than the name chosen)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop.core.base import files
from desktop.core.base.files import leftovers_of, write_atomically

NAME_MAX = 255
LONG_NAMES = [
    "memories-" + "m" * 228 + ".md",  # 240 bytes
    "m" * (NAME_MAX - 3) + ".md",  # 255 bytes
    "记" * 83 + ".md",  # 252 bytes in UTF-8, 86 characters
    "é" * 126 + ".md",  # 255 bytes: a cut must not split a character
]


@pytest.mark.parametrize("name", LONG_NAMES, ids=["240", "255", "cjk", "two-byte"])
def test_a_file_with_a_long_legal_name_is_written_whole(tmp_path: Path, name: str) -> None:
    assert len(os.fsencode(name)) <= NAME_MAX
    target = tmp_path / name

    write_atomically(target, "every memory\n")
    write_atomically(target, "every memory, again\n")  # over the old one

    assert target.read_text(encoding="utf-8") == "every memory, again\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


@pytest.mark.parametrize("name", ["memories.md", *LONG_NAMES], ids=["short", *range(4)])
def test_the_temporary_name_fits_and_its_leftover_is_found_and_removed(
    tmp_path: Path, name: str
) -> None:
    target = tmp_path / name
    leftover = files.temporary_path(target)  # as a kill mid-write leaves it
    leftover.write_text("text since erased", encoding="utf-8")

    assert len(os.fsencode(leftover.name)) <= NAME_MAX
    assert list(tmp_path.glob(leftovers_of(name))) == [leftover]

    write_atomically(target, "new\n")

    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_a_short_name_keeps_its_temporary_name_beside_it(tmp_path: Path) -> None:
    temporary = files.temporary_path(tmp_path / "memories.md")

    assert temporary.parent == tmp_path
    assert temporary.name.startswith(".memories.md.")
    assert temporary.name.endswith(files.PART)
