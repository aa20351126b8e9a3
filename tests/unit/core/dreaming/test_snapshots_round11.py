"""Round 11's attack on the dream's safety copies: something odd at a copy's
journal name.

A folder, a named pipe or a link at ``<snapshot>-journal`` (made by hand or
by a tool) made the copy count as "mid-change" for good: not complete, so
never purged nor rotated, and never rolled back either, since no journal
file was there.  "Delete now" said it erased the text for good while that
copy kept it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.db import ConversationStore, Database, MemoryStore
from desktop.core.dreaming.erasure import Eraser
from desktop.core.dreaming.snapshots import complete_snapshots, roll_back_cut, take_snapshot

MARKER = b"quillfern"
KINDS = ["a folder", "a named pipe", "a link to a folder"]


def _snapshot(database: Database, tmp_path: Path, day: int) -> Path:
    folder = tmp_path / "snapshots"
    return take_snapshot(database, folder, f"202601{day:02d}-000000", skills_dir=None, keep=3)


def _odd_journal(copy: Path, kind: str, tmp_path: Path) -> Path:
    """Put *kind* at *copy*'s journal name; the folder a link points to."""
    journal = Path(f"{copy}-journal")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("not Reverie's")
    if kind == "a folder":
        journal.mkdir()
        (journal / "inside").write_text("left by a tool")
    elif kind == "a named pipe":
        os.mkfifo(journal)
    else:
        os.symlink(elsewhere, journal)
    return elsewhere


def _conversation(database: Database) -> int:
    store = ConversationStore(database)
    conversation = store.create("to erase")
    store.add_message(conversation.id, "user", f"{MARKER.decode()} " + "text " * 50)
    return conversation.id


def _eraser(database: Database, tmp_path: Path) -> Eraser:
    return Eraser(
        database,
        MemoryStore(database),
        snapshots_dir=tmp_path / "snapshots",
        working_set_file=tmp_path / "MEMORIES.md",
        working_set_size=lambda: 50,
        kept_days=lambda: 30,
    )


@pytest.mark.parametrize("kind", KINDS)
def test_delete_now_erases_the_text_from_a_copy_with_something_odd_at_its_journal(
    database: Database, tmp_path: Path, kind: str
) -> None:
    erased = _conversation(database)
    copy = _snapshot(database, tmp_path, 1)
    elsewhere = _odd_journal(copy, kind, tmp_path)
    ConversationStore(database).delete(erased)

    said = _eraser(database, tmp_path).erase_conversations([erased]).describe()

    assert copy.exists() and MARKER not in copy.read_bytes()
    assert "1 snapshot" in said and "not" not in said.lower()
    assert not os.path.lexists(f"{copy}-journal")
    assert (elsewhere / "keep.txt").read_text() == "not Reverie's"  # a link's target is kept


@pytest.mark.parametrize("kind", KINDS)
def test_a_copy_with_something_odd_at_its_journal_counts_toward_the_ones_kept(
    database: Database, tmp_path: Path, kind: str
) -> None:
    oldest = _snapshot(database, tmp_path, 1)
    _odd_journal(oldest, kind, tmp_path)
    for day in (2, 3, 4):
        _snapshot(database, tmp_path, day)

    kept = complete_snapshots(tmp_path / "snapshots")

    assert len(kept) == 3 and oldest not in kept
    assert not oldest.exists() and not os.path.lexists(f"{oldest}-journal")


def test_a_copy_whose_odd_journal_cannot_be_removed_is_removed_itself(
    database: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = _snapshot(database, tmp_path, 1)
    _odd_journal(copy, "a folder", tmp_path)

    def refuse(path: object, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(shutil, "rmtree", refuse)  # a folder that will not go

    roll_back_cut(tmp_path / "snapshots", database)

    assert not copy.exists()  # no copy left that no purge could reach


def test_a_copy_that_neither_it_nor_its_odd_journal_can_be_removed_is_named(
    database: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = _snapshot(database, tmp_path, 1)
    _odd_journal(copy, "a folder", tmp_path)

    def refuse(path: object, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(shutil, "rmtree", refuse)  # the folder refuses every removal
    monkeypatch.setattr(os, "unlink", refuse)

    with pytest.raises(EnvironmentProblem) as raised:
        roll_back_cut(tmp_path / "snapshots", database)

    said = str(raised.value)
    assert str(copy) in said and "a folder" in said and "Errno" not in said
    assert "by hand" in raised.value.hint
