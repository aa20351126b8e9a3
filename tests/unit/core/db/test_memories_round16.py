"""A value named a secret after a dream quoted the memories holding it is
taken out of the dream tables too, with the memories (``rewrite_holding``)."""

from __future__ import annotations

import json

from desktop.core.db.connection import Database
from desktop.core.db.dreams import DreamStore
from desktop.core.db.memories import MemoryStore
from desktop.core.privacy.redaction import without

VALUE = 'Qv7#lu"men9'
"""With a quote, so it is written escaped inside the JSON columns."""
FIRST = f"The user's old friend {VALUE} moved to Porto in 2019."
SECOND = f"{VALUE}, the user's old friend, moved to Porto in 2019."


def _rows_holding(db: Database, value: str) -> list[str]:
    """Every row of every table with a text holding *value*, as typed or escaped as in JSON."""
    forms = (value, json.dumps(value)[1:-1])
    found = []
    for (table,) in db.fetch_all("SELECT name FROM sqlite_master WHERE type = 'table'"):
        if table.startswith(("memories_fts", "messages_fts")):
            continue  # the index's segments: what 'optimize' is for, tested elsewhere
        for row in db.fetch_all(f'SELECT * FROM "{table}"'):
            if any(isinstance(c, str) and any(f in c for f in forms) for c in row):
                found.append(f"{table}: {tuple(row)}")
    return found


def test_a_value_named_later_leaves_the_dream_changes_and_logs_that_quoted_it(
    db: Database, memories: MemoryStore
) -> None:
    first = memories.add(FIRST, embedding=None, source_kind="user_explicit", actor="user")
    second = memories.add(SECOND, embedding=None, source_kind="user_explicit", actor="user")
    dreams = DreamStore(db)
    run = dreams.start("manual")
    with db.transaction() as tx:
        change_id = DreamStore.add_change(
            tx,
            run.id,
            "dedup",
            "merge",
            f"Merged 2 memories into one: {FIRST}",
            {"sources": [first.id, second.id], "content": FIRST},
            status="pending",
            risky=False,
            now=0.0,
            before={"memories": {str(first.id): FIRST, str(second.id): SECOND}},
        )
    dreams.log(run.id, "dedup", "rolled_back", "Nothing changed.", json.dumps({"content": SECOND}))
    assert len(_rows_holding(db, VALUE)) >= 4  # the memories, their history, the change, the log

    with db.transaction() as tx:
        changed = memories.rewrite_holding([VALUE], lambda text: without(text, [VALUE]), tx)

    assert changed == [first.id, second.id]
    assert _rows_holding(db, VALUE) == []
    change = dreams.change(change_id)
    assert change.summary == f"Merged 2 memories into one: {without(FIRST, [VALUE])}"
    assert change.payload == {"sources": [first.id, second.id], "content": without(FIRST, [VALUE])}
    # What the change recorded still matches the memories: it can be approved as it was.
    now = memories.get_many([first.id, second.id])
    assert change.before == {"memories": {str(i): m.content for i, m in now.items()}}
