"""An erasure cut short is finished by the next one: a kill after the rows
went but before the file was compacted, the snapshots purged or
``MEMORIES.md`` written again must not leave the text on disk for good
(the next "Delete now" finds no rows to erase, and used to stop there).

The kill loop (slow) kills a real erasure with SIGKILL at random moments:

    python -m pytest tests/unit/core/dreaming/test_erase_resume.py -m slow
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database, DreamStore, MemoryStore, open_database
from desktop.core.dreaming import snapshots
from desktop.core.dreaming.erasure import Eraser
from desktop.core.dreaming.snapshots import SNAPSHOT_PREFIX, complete_snapshots
from desktop.core.dreaming.working_set import write_working_set
from desktop.core.skills.library import SkillLibrary
from tests.children import READY_S, start_ready

MARKER = "glimmerwharf"
TALK_MARKER = "quillobrand"
"""The conversation's own marker: a test erasing only the memory finds
this one still there, as it should be."""
TEXT = "My spare house key is hidden under the Glimmerwharf garden gnome"

# The child erases what the world holds; *how* it dies is its first argument.
CHILD = """
import os, signal, sys
from pathlib import Path
from desktop.core.db import MemoryStore, open_database
from desktop.core.db.purge import PurgeStore
from desktop.core.dreaming.erasure import Eraser

how, home, memory_id, conversation_id = sys.argv[1:5]
home = Path(home)
if how == "after-commit":
    # Dies the moment the rows are gone, before anything else is cleaned.
    PurgeStore.compact = lambda self: os.kill(os.getpid(), signal.SIGKILL)
database = open_database(home / "reverie.sqlite3")
eraser = Eraser(
    database,
    MemoryStore(database),
    snapshots_dir=home / "snapshots",
    working_set_file=home / "MEMORIES.md",
    working_set_size=lambda: 50,
    kept_days=lambda: 30,
)
print("ready", flush=True)
eraser.erase_memories([int(memory_id)])
eraser.erase_conversations([int(conversation_id)])
print("done", flush=True)
"""


def build_world(home: Path) -> tuple[int, int]:
    """A memory and a conversation holding the marker, quoted by a dream,
    in three snapshots and in MEMORIES.md; both deleted (restorable)."""
    home.mkdir(parents=True, exist_ok=True)
    with open_database(home / "reverie.sqlite3") as database:
        memories = MemoryStore(database)
        memory = memories.add(TEXT, embedding=None, source_kind="user_explicit", actor="user")
        memories.add("Likes green tea", embedding=None, source_kind="harvested", actor="harvest")
        conversations = ConversationStore(database)
        conversation = conversations.create(f"Where is the {TALK_MARKER} gnome?")
        conversations.add_message(conversation.id, "user", f"{TALK_MARKER} hides my key.")
        dreams = DreamStore(database)
        run = dreams.start("test")
        dreams.log(run.id, "dedup", "rolled_back", "Nothing changed.", f"key under {MARKER}")
        (home / "snapshots").mkdir()
        for n in range(3):
            database.snapshot_to(home / "snapshots" / f"{SNAPSHOT_PREFIX}2027011{n}-010000.sqlite3")
        write_working_set(memories, home / "MEMORIES.md", 50)
        memories.set_status(memory.id, "deleted", "user")
        conversations.delete(conversation.id)
        return memory.id, conversation.id


def holding_marker(home: Path, marker: str = MARKER) -> list[str]:
    """Every file under *home* whose bytes hold *marker*, in any case."""
    needle = marker.encode()
    return sorted(
        str(path.relative_to(home))
        for path in home.rglob("*")
        if path.is_file() and needle in path.read_bytes().lower()
    )


def eraser_over(
    database: Database,
    home: Path,
    skills: SkillLibrary | None = None,
    clock: Callable[[], float] = time.time,
) -> Eraser:
    return Eraser(
        database,
        MemoryStore(database),
        snapshots_dir=home / "snapshots",
        working_set_file=home / "MEMORIES.md",
        working_set_size=lambda: 50,
        kept_days=lambda: 30,
        clock=clock,
        skills=skills,
    )


def start_child(how: str, home: Path, ids: tuple[int, int]) -> subprocess.Popen[str]:
    return start_ready(["-c", CHILD, how, str(home), *map(str, ids)], "erasing")


def end_child(child: subprocess.Popen[str], within: float = READY_S) -> int:
    """*child*'s exit code, killed if it still runs after *within* seconds."""
    try:
        child.wait(timeout=within)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait(READY_S)
    assert child.stdout is not None
    child.stdout.close()
    return child.returncode


def test_delete_now_again_finishes_an_erasure_killed_after_its_commit(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ids = build_world(home)
    assert end_child(start_child("after-commit", home, ids)) == -signal.SIGKILL
    assert len(holding_marker(home)) >= 4  # the kill left it: database, 3 snapshots, MEMORIES.md

    with open_database(home / "reverie.sqlite3") as database:
        again = eraser_over(database, home).erase_memories([ids[0]])

    assert holding_marker(home) == []
    assert again.snapshots == 3
    assert "Finished" in again.describe()
    assert "Likes green tea" in (home / "MEMORIES.md").read_text()


def test_the_start_of_the_app_finishes_an_erasure_killed_after_its_commit(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ids = build_world(home)
    assert end_child(start_child("after-commit", home, ids)) == -signal.SIGKILL

    with open_database(home / "reverie.sqlite3") as database:
        eraser_over(database, home).erase_expired()  # what the app does at start

    assert holding_marker(home) == []


def test_a_snapshot_whose_purge_was_cut_short_is_purged_again(tmp_path: Path) -> None:
    """A kill during a snapshot's own purge leaves a rollback journal beside
    it holding the old pages: that copy no longer counts as complete, but
    it still holds the text once the journal is rolled back."""
    home = tmp_path / "home"
    ids = build_world(home)
    snapshot = complete_snapshots(home / "snapshots")[0]
    journal = Path(f"{snapshot}-journal")
    # A real interrupted transaction: a child killed inside it, its small
    # cache forcing changed pages into the file and the old ones to the journal
    # (the driver and text index function Reverie writes with, for the triggers).
    code = (
        "import os, signal, sqlean, sys\n"
        "from desktop.core.db.fts import indexed_text\n"
        "c = sqlean.connect(sys.argv[1], isolation_level=None)\n"
        "c.create_function('indexed_text', 1, indexed_text)\n"
        "c.execute('PRAGMA journal_mode=DELETE')\n"
        "c.execute('PRAGMA cache_size=1')\n"
        "c.execute('BEGIN')\n"
        "c.execute(\"UPDATE memories SET content = 'x' || content\")\n"
        "c.execute(\"UPDATE messages SET content = 'x' || content\")\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(snapshot)], check=False)
    assert journal.exists() and snapshot not in complete_snapshots(home / "snapshots")
    with open_database(home / "reverie.sqlite3") as main:
        eraser_over(main, home).erase_memories([ids[0]])
        eraser_over(main, home).erase_conversations([ids[1]])

    assert holding_marker(home) == holding_marker(home, TALK_MARKER) == []
    assert not journal.exists()
    assert snapshot in complete_snapshots(home / "snapshots")


def test_leftovers_of_a_snapshot_being_written_now_are_left_alone_without_flock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the snapshots' lock cannot reach other processes (Windows), one
    may be writing its safety copy while Reverie erases: only leftovers
    older than a copy takes are removed."""
    monkeypatch.setattr(snapshots, "_open_folder", lambda folder: -1)  # no flock, as on Windows
    home = tmp_path / "home"
    ids = build_world(home)
    young = home / "snapshots" / f".{SNAPSHOT_PREFIX}20270120-010000.sqlite3.part"
    old = home / "snapshots" / f".{SNAPSHOT_PREFIX}20270101-010000.sqlite3.part"
    young.write_bytes(b"being written")
    old.write_bytes(f"left by a kill: {MARKER}".encode())
    long_ago = time.time() - 3600
    os.utime(old, (long_ago, long_ago))

    with open_database(home / "reverie.sqlite3") as database:
        eraser_over(database, home).erase_memories([ids[0]])
        eraser_over(database, home).erase_conversations([ids[1]])

    assert young.exists() and not old.exists()
    assert holding_marker(home) == holding_marker(home, TALK_MARKER) == []


@pytest.mark.slow
def test_a_kill_at_any_moment_of_an_erasure_is_finished_by_the_next(tmp_path: Path) -> None:
    template = tmp_path / "template"
    ids = build_world(template)
    rng = random.Random(15)
    problems: list[str] = []
    for trial in range(10):
        home = tmp_path / f"trial{trial}"
        subprocess.run(["cp", "-a", str(template), str(home)], check=True)
        code = end_child(start_child("anywhere", home, ids), within=rng.uniform(0.0, 1.5))
        with open_database(home / "reverie.sqlite3") as database:
            assert database.fetch_value("PRAGMA integrity_check") == "ok"
            eraser = eraser_over(database, home)
            eraser.erase_memories([ids[0]])
            eraser.erase_conversations([ids[1]])
        left = holding_marker(home) + holding_marker(home, TALK_MARKER)
        if left:
            problems.append(f"trial {trial} (child exit {code}): {left}")
    assert problems == []
