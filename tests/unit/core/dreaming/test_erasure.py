"""The ``Eraser`` beside a dream's safety copy: "Delete now" while the copy
is being written waits for it, then purges it with the others, so no
snapshot, finished or in progress, holds what the user was told is gone."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import Database, MemoryStore
from desktop.core.dreaming.erasure import Eraser, Erasure
from desktop.core.dreaming.snapshots import SNAPSHOT_PREFIX, complete_snapshots, take_snapshot
from tests.erasers import waiting_for_snapshots

SECRET = "The user's safe combination is kept with Quillibrant the notary."
EARLIER, NOW = "20270101-000000", "20270101-010000"
WAIT_S = 60.0
"""Only how long a broken test takes to fail: every wait ends on an event."""


def _holding_the_secret(folder: Path) -> list[str]:
    """Every file under *folder* whose bytes hold the secret's rare word."""
    return sorted(
        p.name for p in folder.rglob("*") if p.is_file() and b"quillibrant" in p.read_bytes()
    )


@pytest.fixture
def waiting_or_done() -> Iterator[threading.Event]:
    """Set once the erasure waits for the snapshots, or finished."""
    with waiting_for_snapshots() as event:
        yield event


@pytest.mark.parametrize("shared", [True, False], ids=["the-erasers-lock", "another-process"])
def test_delete_now_while_a_copy_is_written_waits_for_it_and_purges_it(
    database: Database,
    user_dirs: AppPaths,
    eraser: Eraser,
    monkeypatch: pytest.MonkeyPatch,
    waiting_or_done: threading.Event,
    shared: bool,
) -> None:
    memory = MemoryStore(database).add(
        SECRET, embedding=None, source_kind="user_explicit", actor="user"
    )
    folder = user_dirs.snapshots_dir
    take_snapshot(database, folder, EARLIER, skills_dir=None, keep=3)
    copied, rename = threading.Event(), threading.Event()
    real_snapshot_to = Database.snapshot_to

    def copy_then_pause(self: Database, path: Path) -> None:
        real_snapshot_to(self, path)  # written and checked: only its rename is left
        copied.set()
        assert rename.wait(WAIT_S)

    monkeypatch.setattr(Database, "snapshot_to", copy_then_pause)
    # Without the eraser's lock the copy takes the folder's own, as another
    # process's dream would.
    under = {"under": eraser.snapshots_lock} if shared else {}
    dream = threading.Thread(
        target=take_snapshot,
        args=(database, folder, NOW),
        kwargs={"skills_dir": None, "keep": 3, **under},
    )
    erased: list[Erasure] = []

    def delete_now() -> None:
        try:
            erased.append(eraser.erase_memories([memory.id]))
        finally:
            waiting_or_done.set()

    erasure = threading.Thread(target=delete_now)
    dream.start()
    try:
        assert copied.wait(WAIT_S)
        assert [p.name for p in folder.glob(f".{SNAPSHOT_PREFIX}*{NOW}*")]  # in progress
        erasure.start()
        assert waiting_or_done.wait(WAIT_S)
    finally:
        rename.set()
        dream.join(WAIT_S)
        if erasure.ident is not None:
            erasure.join(WAIT_S)

    assert not dream.is_alive() and not erasure.is_alive()
    assert _holding_the_secret(folder) == []
    [done] = erased
    assert (done.memories, done.snapshots) == (1, 2)  # the copy written meanwhile too
    assert [p.name.removesuffix(".sqlite3")[-len(NOW) :] for p in complete_snapshots(folder)] == [
        EARLIER,
        NOW,
    ]
