"""Round 35: a few bytes overwritten in the page holding the record of the
database's schema versions (``schema_migrations``) made the start say the
database was written by a newer Reverie ("update Reverie": there is no such
update), or rerun a migration already applied, which failed, and the start
ended in a traceback.  SQLite's quick check finds the damage: the start
says the database is damaged, with the way back to the newest sound copy."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from desktop.core.db import DEFAULT_CANDIDATES, open_copy, quick_check, select_driver
from tests.damage import home_with_a_copy, said_at_a_start_without_it

FLIPS = {"a version no Reverie wrote": 3542, "an applied migration unrecorded": 3565}
"""Seeds of four random bytes written in the record's page (found by the
round's damage sweep), and what each made of the record."""


def _overwrite_the_record(path: Path, seed: int) -> None:
    with open_copy(path, select_driver(DEFAULT_CANDIDATES)) as database:
        root = database.fetch_value(
            "SELECT rootpage FROM sqlite_schema WHERE name = 'schema_migrations'"
        )
        page_size = database.pragma("page_size")
    chance = random.Random(seed)
    with path.open("r+b") as file:
        for _ in range(4):
            file.seek((root - 1) * page_size + chance.randrange(page_size))
            file.write(bytes([chance.randrange(256)]))
    with open_copy(path, select_driver(DEFAULT_CANDIDATES)) as database:
        assert quick_check(database)  # damage SQLite sees


@pytest.mark.parametrize("seed", FLIPS.values(), ids=FLIPS.keys())
def test_a_damaged_record_of_schema_versions_is_said_as_damage(tmp_path: Path, seed: int) -> None:
    paths, copy = home_with_a_copy(tmp_path)
    with open_copy(paths.database_file, select_driver(DEFAULT_CANDIDATES)) as database:
        database.truncate_wal()  # every page in the file
    _overwrite_the_record(paths.database_file, seed)

    said = said_at_a_start_without_it(paths)

    assert "is damaged and does not open" in said
    assert "Update Reverie" not in said
    assert f"The newest sound copy is {copy}" in said
