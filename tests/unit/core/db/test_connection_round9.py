"""Round 9: opening a copy of the database (a snapshot) created it when it
was missing, as opening the live database does: a copy the dream's rotation
removed after the start-up sweep listed it came back as a blank Reverie
database that counted as a complete snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.db import Database
from desktop.core.db.connection import CopyGone
from desktop.core.db.opening import open_copy
from desktop.core.dreaming.secret_sweep import sweep_snapshots


def test_a_missing_copy_is_gone_and_not_created(database: Database, tmp_path: Path) -> None:
    missing = tmp_path / "snapshots" / "before-dream-20260101-000000.sqlite3"
    missing.parent.mkdir()

    with pytest.raises(CopyGone):
        open_copy(missing, database).close()

    assert list(missing.parent.iterdir()) == []


def test_the_sweep_does_not_bring_back_a_copy_rotated_away_after_it_was_listed(
    database: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "snapshots"
    folder.mkdir()
    listed = folder / "before-dream-20260101-000000.sqlite3"  # then rotated away
    monkeypatch.setattr("desktop.core.dreaming.secret_sweep.complete_snapshots", lambda _: [listed])

    assert sweep_snapshots(database, folder) == 0
    assert not listed.exists()
