"""A user's file is written whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.files import write_atomically


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
