"""Round 24 of the attacks on opening the database: a link to nothing.

The database file is a symbolic link whose target is not there (the data
moved to a drive that is not mounted now): the start said "the file cannot
be created ([Errno 17] File exists: ...)" and advised checking that the
file exists, which it seems to.  It now names the link and where it leads,
and still changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.db import DatabaseUnavailable, open_database


@pytest.mark.parametrize("target", ["drive/Reverie/reverie.sqlite3", "gone.sqlite3"])
def test_a_database_linked_to_nothing_names_the_link_and_where_it_leads(
    tmp_path: Path, target: str
) -> None:
    missing = tmp_path / target  # in a folder that is not there, or in one that is
    path = tmp_path / "data" / "reverie.sqlite3"
    path.parent.mkdir()
    path.symlink_to(missing)

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(path)

    said = str(refused.value)
    assert f"{path} is a link to {missing}, which does not exist" in said
    assert "File exists" not in said
    assert "Nothing was changed" in said
    assert path.is_symlink() and not missing.exists()  # left as it was
    assert sorted(p.name for p in path.parent.iterdir()) == ["reverie.sqlite3"]
