"""Round 9's attacks on erasing over the snapshots and the erasure's mark.

- A named pipe where the erasure keeps its "unfinished" mark
  (``reverie.sqlite3-erasing``) made "Delete now" wait for good opening it;
  a folder or a link there was reported with a bare exception, or followed.
- A snapshot the dream's rotation removed after an erasure listed it was
  created again, empty, by opening it, and the purge failed on it.
- A snapshot with one damaged page (it still counts as complete) could not
  be purged, so every later erasure failed and the erased text stayed in it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.db import ConversationStore, Database, MemoryStore
from desktop.core.db.purge import Erasable, PurgeStore
from desktop.core.dreaming.erasure import UNFINISHED_SUFFIX, Eraser
from desktop.core.dreaming.snapshots import complete_snapshots, take_snapshot

MARKER = "quillfern"
WAIT_S = 10.0


def _eraser(database: Database, tmp_path: Path) -> Eraser:
    return Eraser(
        database,
        MemoryStore(database),
        snapshots_dir=tmp_path / "snapshots",
        working_set_file=tmp_path / "MEMORIES.md",
        working_set_size=lambda: 50,
        kept_days=lambda: 30,
    )


def _conversation(database: Database, title: str, messages: int = 1) -> int:
    store = ConversationStore(database)
    conversation = store.create(title)
    for n in range(messages):
        store.add_message(conversation.id, "user", f"{MARKER} {title} {n} " + "text " * 50)
    return conversation.id


def _snapshot(database: Database, tmp_path: Path, day: int) -> Path:
    folder = tmp_path / "snapshots"
    return take_snapshot(database, folder, f"202601{day:02d}-000000", skills_dir=None, keep=3)


def _erase_in_a_thread(eraser: Eraser, conversation_id: int, mark: Path) -> BaseException | None:
    """Erase *conversation_id* on a thread; what it raised.  A call still
    waiting after ``WAIT_S`` is freed (a reader opens the pipe) and fails."""
    raised: list[BaseException | None] = []

    def erase() -> None:
        try:
            eraser.erase_conversations([conversation_id])
        except BaseException as error:  # handed to the test's thread
            raised.append(error)
        else:
            raised.append(None)

    worker = threading.Thread(target=erase)
    worker.start()
    worker.join(WAIT_S)
    waited = worker.is_alive()
    if waited:
        os.close(os.open(mark, os.O_RDONLY | os.O_NONBLOCK))  # frees the writer's open
        worker.join()
    assert not waited, "the erasure waited on what stands at its mark"
    return raised[0]


@pytest.mark.parametrize("kind", ["a named pipe", "a folder", "a symbolic link"])
def test_something_odd_at_the_erasures_mark_is_named_and_never_waited_on(
    database: Database, tmp_path: Path, kind: str
) -> None:
    mark = Path(f"{database.path}{UNFINISHED_SUFFIX}")
    elsewhere = tmp_path / "elsewhere"
    if kind == "a named pipe":
        os.mkfifo(mark)
    elif kind == "a folder":
        mark.mkdir()
    else:
        os.symlink(elsewhere, mark)
    conversation_id = _conversation(database, "to erase")
    ConversationStore(database).delete(conversation_id)

    raised = _erase_in_a_thread(_eraser(database, tmp_path), conversation_id, mark)

    assert isinstance(raised, EnvironmentProblem)
    assert f"{mark} is {kind}" in str(raised)
    assert "Errno" not in str(raised)
    assert not elsewhere.exists()  # nothing made through the link
    kept = ConversationStore(database).get(conversation_id)
    assert kept is not None and kept.title == "to erase"


def test_a_snapshot_rotated_away_before_its_purge_is_not_made_again(
    database: Database, tmp_path: Path
) -> None:
    _conversation(database, "live")
    copy = _snapshot(database, tmp_path, 1)
    copy.unlink()  # the dream's rotation, after the erasure listed it

    held = PurgeStore(database).purge_copy(copy, Erasable(conversation_ids=(1,)))

    assert held is False
    assert not copy.exists()


def test_a_damaged_snapshot_is_removed_and_the_erasure_finishes(
    database: Database, tmp_path: Path
) -> None:
    erased = _conversation(database, "erased", messages=10)
    for n in range(29):
        _conversation(database, f"kept {n}", messages=10)
    copy = _snapshot(database, tmp_path, 1)
    data = bytearray(copy.read_bytes())
    data[4096 * 5 : 4096 * 5 + 600] = b"\xab" * 600  # a bad sector; header and size intact
    copy.write_bytes(bytes(data))
    assert complete_snapshots(tmp_path / "snapshots") == [copy]
    eraser = _eraser(database, tmp_path)
    ConversationStore(database).delete(erased)

    said = eraser.erase_conversations([erased]).describe()
    then = eraser.erase_expired().describe()

    assert not copy.exists()
    assert "damaged" in said and copy.name in said
    assert then == "Nothing was due to be erased."
    assert not Path(f"{database.path}{UNFINISHED_SUFFIX}").exists()
