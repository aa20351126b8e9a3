"""Round 17: a deletion was dated by the clock alone, so one made while the
clock ran a year behind (a board with no clock battery, before it syncs)
looked a year old, and the next start, with the right clock, erased it for
good at once.  A deletion is now never dated before what is already stored."""

from __future__ import annotations

from desktop.core.db import ConversationStore, Database, MemoryStore
from desktop.core.db.purge import PurgeStore
from tests.unit.core.db.conftest import FakeClock

DAY = 86_400.0
KEPT = 30 * DAY


def test_a_deletion_while_the_clock_runs_behind_stays_restorable(
    db: Database, memories: MemoryStore, clock: FakeClock
) -> None:
    right = clock.now
    conversations = ConversationStore(db, clock=clock)
    conversations.create("groceries")  # used before, with the right clock

    clock.now = right - 365 * DAY  # booted at an old date, then used
    talk = conversations.create("the spare key")
    conversations.add_message(talk.id, "user", "The spare key is in the blue drawer.")
    memory = memories.add(
        "The user keeps the spare house key in the blue drawer.",
        embedding=None,
        source_kind="user_explicit",
        actor="user",
    )
    memories.set_status(memory.id, "deleted", "user")
    conversations.delete(talk.id)

    clock.now = right + 60  # the next start, with the right clock
    expired = PurgeStore(db).expired(clock.now - KEPT)
    assert (expired.memory_ids, expired.conversation_ids) == ((), ())
    assert PurgeStore(db).deleted_at([memory.id])[memory.id] >= right


def test_a_deletion_with_the_right_clock_is_dated_by_it(
    db: Database, memories: MemoryStore, clock: FakeClock
) -> None:
    memory = memories.add(
        "The user's bike is red.", embedding=None, source_kind="user_explicit", actor="user"
    )
    clock.advance(DAY)
    memories.set_status(memory.id, "deleted", "user")

    assert PurgeStore(db).deleted_at([memory.id]) == {memory.id: clock.now}
    assert PurgeStore(db).expired(clock.now + KEPT + 1).memory_ids == (memory.id,)
