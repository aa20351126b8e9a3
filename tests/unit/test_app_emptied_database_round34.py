"""Round 34: a database file emptied (0 bytes: a sync tool, a crash of what
wrote it) while copies of it taken before dreams are beside it.

The start opened it as a new database without a word: conversations and
memory were gone, and the dreams that followed would rotate the copies
holding them away.  It is said, with the way back to the newest sound copy,
and left as it is.  An empty file with no copies (a first start killed
before its first write) still becomes the new database."""

from __future__ import annotations

from pathlib import Path

from desktop.app import build_core
from desktop.core.base.paths import resolve_paths
from tests.damage import home_with_a_copy, said_at_a_start_without_it


def test_an_emptied_database_beside_its_copies_is_said_and_left_as_it_is(
    tmp_path: Path,
) -> None:
    paths, copy = home_with_a_copy(tmp_path)
    paths.database_file.write_bytes(b"")

    said = said_at_a_start_without_it(paths)

    assert "is empty (0 bytes), though copies of it taken before dreams are in" in said
    assert f"The newest sound copy is {copy}" in said
    assert paths.database_file.stat().st_size == 0  # not made a new database
    assert copy.is_file()


def test_an_empty_database_with_no_copies_becomes_the_new_database(tmp_path: Path) -> None:
    paths = resolve_paths({"REVERIE_HOME": str(tmp_path / "home")})
    paths.ensure()
    paths.database_file.write_bytes(b"")

    core = build_core(paths)
    try:
        assert core.database is not None
        assert not [p for p in core.problems if str(paths.database_file) in p]
    finally:
        core.close()
