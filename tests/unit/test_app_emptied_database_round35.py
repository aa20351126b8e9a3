"""Round 35: a named pipe or a link to ``/dev/null`` where the database
belongs, with copies taken before dreams beside it, was said to be "empty
(0 bytes) ... it was emptied": both read as zero bytes.  Neither is a file
the user's data was emptied from; the start names what stands there, as
with no copies beside it, and changes nothing."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.damage import home_with_a_copy, said_at_a_start_without_it

NOT_A_FILE: dict[str, tuple[Callable[[Path], None], str]] = {
    "a named pipe": (os.mkfifo, "a named pipe"),
    "a link to /dev/null": (lambda path: os.symlink("/dev/null", path), "device"),
}


@pytest.mark.parametrize("make, named", NOT_A_FILE.values(), ids=NOT_A_FILE.keys())
def test_what_is_not_a_file_where_the_database_belongs_is_not_said_emptied(
    tmp_path: Path, make: Callable[[Path], None], named: str
) -> None:
    paths, copy = home_with_a_copy(tmp_path)
    paths.database_file.unlink()
    make(paths.database_file)

    said = said_at_a_start_without_it(paths)

    assert "empty (0 bytes)" not in said
    assert named in said
    assert copy.is_file()
