"""Round 11: what an interrupted copy left in ``snapshots/`` and cannot be
removed (a folder at a journal name whose copy went, in a folder that
refuses removals) is named in an erasure's typed failure.  It was raised as
a bare ``PermissionError`` after the rows were gone."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database, MemoryStore
from desktop.core.dreaming.erasure import LEFTOVER_AGE_S, ErasedNotFinished, Eraser
from desktop.core.dreaming.snapshots import take_snapshot


def test_a_leftover_that_cannot_be_removed_is_named_and_the_erasure_finishes_later(
    database: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ConversationStore(database)
    conversation = store.create("to erase")
    store.add_message(conversation.id, "user", "quillfern " + "text " * 50)
    folder = tmp_path / "snapshots"
    take_snapshot(database, folder, "20260102-000000", skills_dir=None, keep=3)
    stray = folder / "before-dream-20260101-000000.sqlite3-journal"  # its copy is gone
    stray.mkdir()
    old = os.stat(stray).st_mtime - LEFTOVER_AGE_S - 60
    os.utime(stray, (old, old))
    store.delete(conversation.id)

    def refuse(path: object, *args: object, **kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted", str(path))

    monkeypatch.setattr(shutil, "rmtree", refuse)  # the folder will not go
    eraser = Eraser(
        database,
        MemoryStore(database),
        snapshots_dir=folder,
        working_set_file=tmp_path / "MEMORIES.md",
        working_set_size=lambda: 50,
        kept_days=lambda: 30,
    )

    with pytest.raises(ErasedNotFinished) as raised:
        eraser.erase_conversations([conversation.id])

    said = str(raised.value)
    assert str(stray) in said and "operation not permitted" in said and "Errno" not in said
    assert store.get(conversation.id) is None  # the rows are gone all the same
