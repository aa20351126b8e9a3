"""Round 35: SIGKILL at random moments of the chat's own writes, which no
kill loop had covered: a turn (the message, then the reply committed), a
memory edited in the memory browser, the background summary of idle
conversations (``compact_idle``), a rename, a restorable delete.

A child (``chat_kill_child``) does these over one database in a random
stream and is killed a random time after it starts, again and again over
the same files.  After each kill the database must open (as the next start
does, saying nothing of it), pass its checks (``_database_problems``,
foreign keys too), hold every write the child said had committed and each
one cut short whole or not at all, no turn answered twice, no message
archived without the summary made from it, and each memory's vector made
from its words.

The test runs a modest round; a bigger one by hand:

    python -m tests.unit.core.db.test_chat_kills_round35 --trials 60 --seed 3535
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop.core.db import ConversationStore, Database, MemoryStore, open_database
from tests.children import start_ready
from tests.fakes import HashingEmbedder
from tests.unit.core.db.test_kill_loops import (
    CHILD_ROUNDS,
    _database_problems,
    _kill_after,
    _possible_states,
)

CHILD = "tests.unit.core.db.chat_kill_child"
TRIALS = 6
LONGEST_S = 2.0
"""How long after it started a child may live: a kill lands anywhere within."""


def _entries(journal: Path) -> list[tuple[bool, dict[str, Any]]]:
    """Each write begun, in order, and whether it was confirmed (``done``)."""
    writes: list[tuple[bool, dict[str, Any]]] = []
    for line in journal.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        begun = entry.pop("stage") == "begin"
        if not begun and writes and not writes[-1][0] and writes[-1][1] == entry:
            writes[-1] = (True, entry)
        else:
            writes.append((not begun, entry))
    return writes


def chat_problems(database: Database, journal: Path) -> list[str]:
    """What the journal's writes should have left and the database lacks."""
    writes = _entries(journal)
    problems = [
        f"foreign key: {tuple(row)}" for row in database.fetch_all("PRAGMA foreign_key_check")
    ]
    problems += _message_problems(database, writes)
    problems += _memory_problems(database, writes)
    problems += _conversation_problems(database, writes)
    return problems


def _message_problems(database: Database, writes: list[tuple[bool, dict[str, Any]]]) -> list[str]:
    stored = Counter(r[0] for r in database.fetch_all("SELECT content FROM messages"))
    problems = []
    for confirmed, write in writes:
        if write["kind"] == "message":
            times = stored[write["content"]]
            if times > 1 or (confirmed and times != 1):
                problems.append(f"message {write['content'][:14]!r} stored {times} times")
    # Each user message answered at most once; a confirmed reply once.
    replied = {w["after"]: c for c, w in writes if w["kind"] == "reply"}
    rows = database.fetch_all(
        "SELECT conversation_id, role, content FROM messages ORDER BY conversation_id, id"
    )
    answers: Counter[str] = Counter()
    asked = None
    for _, role, content in rows:
        if role == "user":
            asked = content if content in replied else None
        elif role == "assistant" and asked is not None:
            answers[asked] += 1
    for text, confirmed in replied.items():
        if answers[text] > 1 or (confirmed and answers[text] != 1):
            problems.append(f"message {text[:14]!r} answered {answers[text]} times")
    half = database.fetch_all(
        "SELECT DISTINCT c.id FROM conversations c JOIN messages m ON m.conversation_id = c.id"
        " WHERE m.archived_at IS NOT NULL AND c.summary IS NULL"
    )
    problems += [f"conversation {row[0]} archived with no summary" for row in half]
    return problems


def _memory_problems(database: Database, writes: list[tuple[bool, dict[str, Any]]]) -> list[str]:
    problems = []
    memories = {
        row[0]: (row[1], row[2])
        for row in database.fetch_all("SELECT id, content, status FROM memories")
    }
    for memory_id, possible in _possible_states(writes).items():
        if (state := memories.get(memory_id)) not in possible:
            problems.append(f"memory {memory_id} is {state}, not one of {possible}")
    embedder = HashingEmbedder()
    for memory_id, vector in database.fetch_all(
        "SELECT memory_id, embedding FROM memory_embeddings"
    ):
        made = embedder.embed([memories[memory_id][0]])[0].astype(np.float32).tobytes()
        if made != vector:
            problems.append(f"memory {memory_id}'s vector is not of its words")
    return problems


def _conversation_problems(
    database: Database, writes: list[tuple[bool, dict[str, Any]]]
) -> list[str]:
    titles: dict[int, set[str]] = {}
    deleted: dict[int, bool] = {}
    for confirmed, write in writes:
        if write["kind"] == "rename" and confirmed:
            titles[write["id"]] = {write["content"]}
        elif write["kind"] == "rename" and write["id"] in titles:  # cut short: either name
            titles[write["id"]].add(write["content"])
        elif write["kind"] == "conversation_delete" and confirmed:
            deleted[write["id"]] = True
    problems = []
    for row in database.fetch_all("SELECT id, title, deleted_at FROM conversations"):
        if row[0] in titles and row[1] not in titles[row[0]]:
            problems.append(f"conversation {row[0]} is called {row[1]!r}, not {titles[row[0]]}")
        if deleted.get(row[0]) and row[2] is None:
            problems.append(f"conversation {row[0]}'s delete was lost")
    return problems


def kill_round(folder: Path, trials: int, seed: int) -> tuple[Counter[str], list[str]]:
    """Start and kill a chat child *trials* times over one database in
    *folder*: the writes each kill cut short, by kind, and the problems."""
    database_path, journal = folder / "reverie.sqlite3", folder / "journal.jsonl"
    open_database(database_path).close()
    journal.touch()
    chance = random.Random(seed)
    cut: Counter[str] = Counter()
    problems: list[str] = []
    for trial in range(trials):
        number = (seed * 1000 + trial) * CHILD_ROUNDS
        child = start_ready(["-m", CHILD, str(database_path), str(journal), str(number)], "chat")
        _kill_after(child, chance.uniform(0.0, LONGEST_S))
        with open_database(database_path) as database:
            found = _database_problems(database) + chat_problems(database, journal)
            found += [f"said at start: {note}" for note in database.opening_notes]
        writes = _entries(journal)
        if writes and not writes[-1][0]:
            cut[writes[-1][1]["kind"]] += 1
        problems += [f"trial {trial}: {p}" for p in found]
        print(f"trial {trial}: {len(found)} problems", flush=True)  # a long round by hand
    return cut, problems


@pytest.mark.slow
def test_chat_writes_killed_anywhere_lose_nothing_and_count_nothing_twice(
    tmp_path: Path,
) -> None:
    cut, problems = kill_round(tmp_path, TRIALS, seed=3535)

    assert problems == []
    assert sum(cut.values()) > 0  # some kills landed inside a write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A bigger round of chat kills, by hand.")
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        cut, problems = kill_round(Path(folder), args.trials, args.seed)
    print(f"{args.trials} kills, writes cut short: {dict(cut)}, {len(problems)} problems")
    for problem in problems:
        print("  " + problem)
    return 0


if __name__ == "__main__":
    sys.exit(main())


def test_the_checks_see_a_lost_message_a_second_answer_and_a_stale_vector(
    tmp_path: Path,
) -> None:
    # The loop above can fail: what it looks for is found when it is there.
    journal = tmp_path / "journal.jsonl"
    asked, lost = "Message 1: my cousin plays the oboe.", "Message 2: and the flute."
    lines = [
        ("begin", {"kind": "message", "content": asked}),
        ("done", {"kind": "message", "content": asked}),
        ("begin", {"kind": "reply", "after": asked}),
        ("done", {"kind": "reply", "after": asked}),
        ("begin", {"kind": "message", "content": lost}),
        ("done", {"kind": "message", "content": lost}),
    ]
    journal.write_text("".join(json.dumps({"stage": s, **w}) + "\n" for s, w in lines))
    with open_database(tmp_path / "reverie.sqlite3") as database:
        store = ConversationStore(database)
        conversation = store.create("Cousins").id
        store.add_message(conversation, "user", asked)
        store.add_message(conversation, "assistant", "Noted.")
        store.add_message(conversation, "assistant", "Noted again.")
        memory = MemoryStore(database).add(
            "The user's cousin plays the oboe.",
            embedding=HashingEmbedder().embed(["The user's cousin plays the flute."])[0],
            source_kind="user_explicit",
            actor="user",
        )
        with database.transaction() as tx:
            tx.execute("UPDATE messages SET archived_at = 1 WHERE role = 'user'")

        problems = chat_problems(database, journal)

    assert problems == [
        "message 'Message 2: and' stored 0 times",
        "message 'Message 1: my ' answered 2 times",
        f"conversation {conversation} archived with no summary",
        f"memory {memory.id}'s vector is not of its words",
    ]
