"""Round 33: a turn's read of the newest messages costs the same however
long the history before them.

Each page of the read counted every message before and after it, to know
whether more were left: at 50,000 messages eight pages took 480 ms, the
rows themselves 5 ms (helper P's probe, ``ConversationStore.page``).  A
turn asks only whether more are left, and the compaction whether more than
the messages it keeps follow: the counts stop there.  The window, which
says how many earlier messages it can show, still counts them all.
"""

from __future__ import annotations

from desktop.core.chat.tail import live_tail
from desktop.core.db import ConversationStore, Database
from tests.bench.long_history import imported
from tests.reads import steps_of


def _tail_steps(store: ConversationStore, database: Database, conversation_id: int) -> int:
    return steps_of(
        lambda: live_tail(store, conversation_id, lambda read: len(read) >= 100), database
    )


def test_the_newest_messages_cost_the_same_read_after_a_long_history(
    store: ConversationStore, database: Database
) -> None:
    shorter = imported(store, 500)
    longer = imported(store, 5_000)

    # Before: 5,000 messages took about ten times the steps of 500.
    assert _tail_steps(store, database, longer) < 1.5 * _tail_steps(store, database, shorter)


def test_the_window_still_counts_every_earlier_message(store: ConversationStore) -> None:
    conversation = imported(store, 300)

    page = store.page(conversation, 20)
    capped = store.page(conversation, 20, counted=1)

    assert (page.earlier, page.later) == (280, 0)
    assert (capped.earlier, capped.later) == (1, 0)
    assert capped.messages == page.messages
