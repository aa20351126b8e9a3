"""Round 36: a damaged list of free pages (its first trunk page overwritten)
opened without a word at start, though every message or memory that needed
a new page then failed to save as damaged; only the integrity check, on a
worker or ``reverie --check``, found it.  The start walks the list and says
so, with the rebuild that keeps everything."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, integrity_check, open_database
from desktop.core.dreaming.snapshots import damage_report
from tests.damage import (
    damage_the_free_list,
    filled,
    garble_an_index,
    home_with_a_copy,
    with_free_pages,
)

SEEDS = (3636, 3637, 3638, 3639)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_damaged_list_of_free_pages_is_said_at_open(tmp_path: Path, seed: int) -> None:
    path = tmp_path / "reverie.db"
    filled(path)
    damage_the_free_list(path, seed)

    with open_database(path) as database:
        assert integrity_check(database)  # SQLite sees the damage too
        [note] = database.opening_notes
        assert "list of free pages" in note
        assert f'sqlite3 "{path}" "VACUUM"' in note
        assert len(ConversationStore(database).messages(1)) == 40  # opened, all there


def test_the_rebuild_it_names_keeps_everything_and_ends_it(tmp_path: Path) -> None:
    path = tmp_path / "reverie.db"
    filled(path)
    damage_the_free_list(path, SEEDS[0])
    with open_database(path) as database:
        database._execute("VACUUM", ())  # what the sqlite3 program runs

    with open_database(path) as database:
        assert database.opening_notes == []
        assert integrity_check(database) == []
        store = ConversationStore(database)
        assert len(store.messages(1)) == 40
        for _ in range(40):  # saves that need new pages
            store.add_message(1, "user", "cedar " * 400)


def test_a_sound_list_of_free_pages_says_nothing(tmp_path: Path) -> None:
    path = tmp_path / "reverie.db"
    filled(path)
    with_free_pages(path)
    with open_database(path) as database:
        assert database.pragma("freelist_count") > 0
        assert database.opening_notes == []


def test_the_check_names_the_rebuild_not_a_copy_for_damage_in_the_list_alone(
    tmp_path: Path,
) -> None:
    # The check on a worker (and reverie --check) had named the newest copy
    # to go back to, losing what was said since it was taken.
    paths, copy = home_with_a_copy(tmp_path)
    damage_the_free_list(paths.database_file, SEEDS[1])

    with open_database(paths.database_file) as database:
        said = damage_report(database, paths.snapshots_dir)

    assert said is not None and "only in the list of free pages" in said
    assert f'sqlite3 "{paths.database_file}" "VACUUM"' in said
    assert str(copy) not in said


def test_damage_elsewhere_still_names_the_copy(tmp_path: Path) -> None:
    paths, copy = home_with_a_copy(tmp_path)
    garble_an_index(paths.database_file)  # VACUUM reads the index, and fails

    with open_database(paths.database_file) as database:
        said = damage_report(database, paths.snapshots_dir)

    assert said is not None and f"The newest sound copy is {copy}" in said
    assert "VACUUM" not in said
