"""Round 34: a damaged byte in the database header at start.

The header's schema format number overwritten (SQLite: "unsupported file
format", under its generic error code) was taken for a bug in Reverie:
``build_core`` let it through, and the start ended in a traceback.  Its
write version overwritten, SQLite opened the file read-only, and the user
was sent to check its permissions, which were fine.  Both are damage, said
as such, with the way back to the newest sound copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.damage import home_with_a_copy, overwrite_header_byte, said_at_a_start_without_it

SCHEMA_FORMAT = 47
"""The last byte of the header's schema format number (1 to 4 in any SQLite file)."""
WRITE_VERSION = 18
"""The header's file format write version (1 or 2 in any SQLite file)."""


@pytest.mark.parametrize(
    ("offset", "value", "found"),
    [
        (SCHEMA_FORMAT, 5, "SQLite: unsupported file format"),
        (WRITE_VERSION, 255, "SQLite: its header's write version is 255, where SQLite writes 1"),
    ],
    ids=["schema format", "write version"],
)
def test_a_header_value_no_sqlite_writes_is_damage_with_the_way_back(
    tmp_path: Path, offset: int, value: int, found: str
) -> None:
    paths, copy = home_with_a_copy(tmp_path)
    overwrite_header_byte(paths.database_file, offset, value)
    before = paths.database_file.read_bytes()

    said = said_at_a_start_without_it(paths)

    assert f"is damaged and does not open ({found}" in said
    assert f"The newest sound copy is {copy}" in said
    assert paths.database_file.read_bytes() == before  # nothing written to the damaged file
