"""Round 31: the purge after the restore window, and "Delete now", killed.

A conversation deleted more than the window ago is erased at the next
start or dream (``erase_expired``), with what was added to a conversation
since the kill tests of ``test_erase_resume`` were written: the vectors and
word index of its messages (recall of past conversations), its summary,
its background workers' objectives, transcripts and results, and a dream's
log quoting it.  Killed (SIGKILL) anywhere in that purge, or in "Delete
now" of that conversation, the database is sound, the conversation is
either all there (still restorable) or gone from every list, and the next
start finishes it: the text is in no file.
The child (``purge_child``) is killed at chosen SQL statements: each commit,
just before and just after it, and sixteen statements inside transactions.

    python -m pytest tests/unit/core/dreaming/test_purge_kills_round31.py -m slow
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from desktop.core.db import ConversationStore, DreamStore, open_database
from desktop.core.db.message_search import MessageSearch, Unembedded
from desktop.core.db.workers import NewWorker, WorkerStore
from desktop.core.dreaming.snapshots import SNAPSHOT_PREFIX
from tests.children import heard, run_child
from tests.unit.core.dreaming.purge_child import LATER, eraser_of
from tests.unit.core.dreaming.test_erase_resume import holding_marker

CHILD = "tests.unit.core.dreaming.purge_child"
MARK = "brindlequay"
SAID = 40
WHOLE = SAID + 1
"""The messages of the conversation erased, and of both."""
INSIDE_KILLS = 16
"""Statements inside a transaction the purge is killed at, evenly spread
(of 797 statements, 4 commits: the database's and each snapshot's)."""


def _world(home: Path) -> int:
    """A conversation whose every copy holds ``MARK``, in three snapshots,
    deleted now; its id."""
    home.mkdir(parents=True)
    with open_database(home / "reverie.sqlite3") as database:
        conversations = ConversationStore(database)
        kept = conversations.create("Tea")
        conversations.add_message(kept.id, "user", "Green tea in the morning.")
        gone = conversations.create(f"The {MARK} plans")
        said = [
            conversations.add_message(gone.id, "user", f"Meet me at {MARK} pier, number {n}.")
            for n in range(SAID)
        ]
        conversations.apply_compaction(gone.id, f"They meet at {MARK} pier.", said[20].id)
        vectors = [(Unembedded(m.id, m.content), np.ones(8, np.float32)) for m in said]
        assert MessageSearch(database).set_vectors(vectors, "test-embedder") == len(said)
        workers = WorkerStore(database)
        with workers.transaction() as tx:
            worker = workers.add(
                NewWorker(gone.id, f"Find the {MARK} ferry times", "minimal", (), 0, 60.0), tx
            )
        workers.add_message(worker, "assistant", f"The {MARK} ferry leaves at nine.")
        dreams = DreamStore(database)
        run = dreams.start("test")
        dreams.log(run.id, "dedup", "rolled_back", "Nothing changed.", f"pier at {MARK}")
        (home / "snapshots").mkdir()
        for n in range(3):
            database.snapshot_to(home / "snapshots" / f"{SNAPSHOT_PREFIX}2027011{n}-010000.sqlite3")
        conversations.delete(gone.id)
        return gone.id


def _next_start(home: Path, ahead: float) -> tuple[str, list[int], list[int], int]:
    """What the next start, its clock *ahead*, finds (its integrity check,
    the deleted conversations, the conversations of the workers listed and
    the messages kept), then its erasure of what expired."""
    with open_database(home / "reverie.sqlite3") as database:
        check = str(database.fetch_value("PRAGMA integrity_check"))
        deleted = [c.id for c in ConversationStore(database).deleted()]
        workers = [w.conversation_id for w in WorkerStore(database).list()]
        messages = int(database.fetch_value("SELECT count(*) FROM messages"))
        eraser_of(database, home, ahead).erase_expired()
    return check, deleted, workers, messages


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("now", [False, True], ids=["after the window", "delete now"])
def test_a_kill_anywhere_in_the_purge_is_finished_by_the_next_start(
    tmp_path: Path, now: bool
) -> None:
    template = tmp_path / "template"
    gone = _world(template)
    assert "reverie.sqlite3" in holding_marker(template, MARK)
    which = [gone] if now else []
    whole = tmp_path / "whole"
    subprocess.run(["cp", "-a", str(template), str(whole)], check=True)
    finished = run_child(CHILD, whole, "0", *which)
    assert finished.returncode == 0, finished.stderr
    assert holding_marker(whole, MARK) == []
    counts = heard(finished.stdout)

    points = [f"{n}+" for n in counts.commits] + [str(n - 1) for n in counts.commits]
    stride = max(1, len(counts.inside) // INSIDE_KILLS)
    points += [str(n) for n in counts.inside[::stride]]
    problems: list[str] = []
    for kill_at in dict.fromkeys(points):
        home = tmp_path / f"kill-{kill_at}"
        subprocess.run(["cp", "-a", str(template), str(home)], check=True)
        killed = run_child(CHILD, home, kill_at, *which)
        assert killed.returncode == -9, (kill_at, killed.stderr)

        check, deleted, workers, messages = _next_start(home, 0.0 if now else LATER)

        said = f"killed at {kill_at} of {counts.count}"
        if check != "ok":
            problems.append(f"{said}: integrity {check}")
        if (gone in workers) != (gone in deleted):  # half erased, and it shows
            problems.append(f"{said}: listed deleted {deleted}, workers of {workers}")
        if gone in deleted and messages != WHOLE:
            problems.append(f"{said}: restorable with {messages} of {WHOLE} messages")
        # "Delete now" killed before its commit leaves the conversation restorable.
        if not (now and gone in deleted) and (left := holding_marker(home, MARK)):
            problems.append(f"{said}: {left}")
    assert problems == []
