"""Round 36: damage in the database file itself, with frames of its own
write-ahead log beside it (Reverie killed after a write), went through the
check for a stray log, which skipped SQLite's quick check for a record of
schema versions read as newer than this Reverie ("update Reverie", for an
update that does not exist), and refused a file damaged alone as with the
log as "damaged and does not open": a damaged index, on which the same file
without a log opens and its check names the damage, kept the user from
every conversation."""

from __future__ import annotations

from pathlib import Path

from desktop.app import build_core
from desktop.core.db import ConversationStore
from tests.damage import (
    garble_an_index,
    home_with_a_copy,
    said_at_a_start_without_it,
    with_frames_left,
)
from tests.unit.test_app_damaged_schema_record_round35 import FLIPS, _overwrite_the_record


def test_a_record_of_versions_damaged_under_a_wal_is_said_as_damage(tmp_path: Path) -> None:
    paths, copy = home_with_a_copy(tmp_path)
    _overwrite_the_record(paths.database_file, FLIPS["a version no Reverie wrote"])
    with_frames_left(paths.database_file)

    said = said_at_a_start_without_it(paths)

    assert "is damaged and does not open" in said
    assert "Update Reverie" not in said
    assert f"The newest sound copy is {copy}" in said


def test_a_damaged_index_under_its_own_wal_opens_as_without_it(tmp_path: Path) -> None:
    paths, _copy = home_with_a_copy(tmp_path)
    garble_an_index(paths.database_file)
    with_frames_left(paths.database_file)

    core = build_core(paths)
    try:
        assert core.database is not None, core.problems
        titles = [c.title for c in ConversationStore(core.database).list()]
        assert "After the damage" in titles  # the log's change replayed
        assert core.database.damage()  # what the check at start then names
    finally:
        core.close()
