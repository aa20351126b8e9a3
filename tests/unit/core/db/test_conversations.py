"""Tests of desktop.core.db.conversations: conversations, messages and message search."""

from __future__ import annotations

import pytest

from desktop.core.db.connection import Database
from desktop.core.db.conversations import ConversationStore
from desktop.core.db.errors import QueryFailed, RowNotFound
from tests.unit.core.db.conftest import START, FakeClock


def test_create_and_get(conversations: ConversationStore) -> None:
    created = conversations.create("Planning the trip", off_record=True)

    assert conversations.get(created.id) == created
    assert (created.title, created.off_record) == ("Planning the trip", True)
    assert created.created_at == created.updated_at == START
    assert (created.summary, created.summary_updated_at) == (None, None)
    assert (created.harvested_through_message_id, created.deleted_at) == (None, None)
    assert conversations.create().off_record is False
    assert conversations.get(999) is None


def test_list_shows_the_most_recently_active_first(
    conversations: ConversationStore, clock: FakeClock
) -> None:
    first = conversations.create("first")
    clock.advance(10)
    second = conversations.create("second")
    clock.advance(10)
    conversations.add_message(first.id, "user", "back to this one")

    assert [c.title for c in conversations.list()] == ["first", "second"]
    assert conversations.list()[0].updated_at == START + 20
    assert second.id > first.id


def test_rename(conversations: ConversationStore, clock: FakeClock) -> None:
    conversation = conversations.create("Untitled")
    clock.advance(5)

    renamed = conversations.rename(conversation.id, "Cooking")

    assert (renamed.title, renamed.updated_at) == ("Cooking", START + 5)
    assert conversations.get(conversation.id) == renamed
    with pytest.raises(RowNotFound):
        conversations.rename(999, "nothing")


def test_delete_is_soft_and_final(conversations: ConversationStore, clock: FakeClock) -> None:
    kept = conversations.create("kept")
    gone = conversations.create("gone")
    message = conversations.add_message(gone.id, "user", "remember this")
    clock.advance(1)

    conversations.delete(gone.id)

    assert conversations.list() == [kept]
    deleted = conversations.get(gone.id)
    assert deleted is not None
    assert deleted.deleted_at == START + 1
    assert conversations.messages(gone.id) == [message]  # provenance still resolves
    for change in (
        lambda: conversations.delete(gone.id),
        lambda: conversations.rename(gone.id, "again"),
        lambda: conversations.add_message(gone.id, "user", "hello?"),
    ):
        with pytest.raises(RowNotFound):
            change()


def test_add_message_bumps_the_conversation(
    conversations: ConversationStore, clock: FakeClock
) -> None:
    conversation = conversations.create("chat")
    clock.advance(30)

    message = conversations.add_message(
        conversation.id, "assistant", "Hello!", token_count=3, metadata={"model": "tiny"}
    )

    assert (message.conversation_id, message.role, message.content) == (
        conversation.id,
        "assistant",
        "Hello!",
    )
    assert (message.token_count, message.metadata) == (3, {"model": "tiny"})
    assert (message.created_at, message.archived_at) == (START + 30, None)
    refreshed = conversations.get(conversation.id)
    assert refreshed is not None
    assert refreshed.updated_at == START + 30
    with pytest.raises(RowNotFound):
        conversations.add_message(999, "user", "nobody home")


def test_a_bad_role_is_refused_and_nothing_changes(
    conversations: ConversationStore, clock: FakeClock
) -> None:
    conversation = conversations.create("chat")
    clock.advance(1)

    with pytest.raises(QueryFailed, match="role"):
        conversations.add_message(conversation.id, "robot", "beep")  # type: ignore[arg-type]  # the wrong role is the point

    assert conversations.messages(conversation.id) == []
    assert conversations.get(conversation.id) == conversation  # updated_at rolled back too


def test_messages_come_in_order_and_hide_archived_ones(
    conversations: ConversationStore, db: Database
) -> None:
    conversation = conversations.create("long chat")
    texts = ["one", "two", "three", "four"]
    added = [conversations.add_message(conversation.id, "user", text) for text in texts]
    with db.transaction() as tx:  # what compaction does to old messages
        tx.execute(
            "UPDATE messages SET archived_at = 1 WHERE id IN (?, ?)", (added[0].id, added[1].id)
        )

    assert [m.content for m in conversations.messages(conversation.id)] == ["three", "four"]
    everything = conversations.messages(conversation.id, include_archived=True)
    assert [m.content for m in everything] == texts
    assert everything[0].archived_at == 1


def test_apply_compaction_sets_the_summary_and_archives_together(
    conversations: ConversationStore, clock: FakeClock
) -> None:
    conversation = conversations.create("long chat")
    added = [conversations.add_message(conversation.id, "user", str(n)) for n in range(5)]
    clock.advance(60)

    archived = conversations.apply_compaction(conversation.id, "They counted.", added[2].id)

    assert archived == 3
    assert [m.content for m in conversations.messages(conversation.id)] == ["3", "4"]
    stored = conversations.get(conversation.id)
    assert stored is not None and stored.summary == "They counted."
    assert stored.summary_updated_at == START + 60
    assert conversations.apply_compaction(conversation.id, "Again.", added[2].id) == 0


def test_apply_compaction_on_a_deleted_conversation_changes_nothing(
    conversations: ConversationStore,
) -> None:
    conversation = conversations.create("gone")
    message = conversations.add_message(conversation.id, "user", "hi")
    conversations.delete(conversation.id)

    with pytest.raises(RowNotFound):
        conversations.apply_compaction(conversation.id, "summary", message.id)
    assert conversations.messages(conversation.id) == [message]


def test_purge_archived_deletes_only_messages_archived_before_the_cutoff(
    conversations: ConversationStore, clock: FakeClock
) -> None:
    conversation = conversations.create("chat")
    old = conversations.add_message(conversation.id, "user", "old")
    conversations.apply_compaction(conversation.id, "s1", old.id)
    clock.advance(100)
    recent = conversations.add_message(conversation.id, "user", "recent")
    conversations.apply_compaction(conversation.id, "s2", recent.id)
    conversations.add_message(conversation.id, "user", "live")
    conversations.mark_harvested(conversation.id, recent.id)

    assert conversations.purge_archived(START + 50) == 1

    everything = conversations.messages(conversation.id, include_archived=True)
    assert [m.content for m in everything] == ["recent", "live"]


def test_archived_messages_wait_for_the_harvest_unless_off_the_record(
    conversations: ConversationStore, clock: FakeClock
) -> None:
    kept = conversations.create("on the record")
    private = conversations.create("private", off_record=True)
    for conversation in (kept, private):
        message = conversations.add_message(conversation.id, "user", "old")
        conversations.apply_compaction(conversation.id, "s", message.id)
    clock.advance(100)

    assert conversations.purge_archived(START + 50) == 1  # only the off-the-record one
    assert conversations.messages(private.id, include_archived=True) == []
    assert len(conversations.messages(kept.id, include_archived=True)) == 1


def test_harvest_backlog_and_watermark(conversations: ConversationStore, clock: FakeClock) -> None:
    busy = conversations.create("busy")
    private = conversations.create("private", off_record=True)
    first = conversations.add_message(busy.id, "user", "one")
    conversations.add_message(busy.id, "assistant", "reply")
    clock.advance(10)
    last = conversations.add_message(busy.id, "user", "two")
    conversations.add_message(private.id, "user", "secret")

    [backlog] = conversations.harvest_backlog()
    assert (backlog.conversation_id, backlog.new_user_messages) == (busy.id, 2)
    assert backlog.last_message_at == last.created_at

    conversations.mark_harvested(busy.id, last.id)
    conversations.mark_harvested(busy.id, first.id)  # never moves back
    assert conversations.get(busy.id).harvested_through_message_id == last.id  # type: ignore[union-attr]
    assert conversations.harvest_backlog() == []


def test_idle_with_live_messages(conversations: ConversationStore, clock: FakeClock) -> None:
    quiet = conversations.create("quiet")
    for n in range(4):
        conversations.add_message(quiet.id, "user", str(n))
    short = conversations.create("short")
    conversations.add_message(short.id, "user", "only one")
    clock.advance(3600)
    busy = conversations.create("busy")
    for n in range(4):
        conversations.add_message(busy.id, "user", str(n))

    found = conversations.idle_with_live_messages(START + 1800, min_live_messages=4)

    assert [c.id for c in found] == [quiet.id]


def test_search_messages_skips_deleted_conversations(
    conversations: ConversationStore,
) -> None:
    live = conversations.create("live")
    gone = conversations.create("gone")
    strong = conversations.add_message(live.id, "user", "my sister Ana visits in June")
    weak = conversations.add_message(live.id, "assistant", "June is lovely")
    conversations.add_message(gone.id, "user", "Ana called in June")
    conversations.delete(gone.id)

    found = conversations.search_messages("Ana June")

    assert [m.id for m in found] == [strong.id, weak.id]
    assert conversations.search_messages("Ana June", limit=1) == [strong]
    for nasty in ('"', "*", "AND (", "🙂", ""):
        assert conversations.search_messages(nasty) == []


def test_search_finds_titles_and_messages_with_every_word(
    conversations: ConversationStore, clock: FakeClock
) -> None:
    trip = conversations.create("Trip to Lisbon")
    clock.advance(1)
    cooking = conversations.create("Dinner")
    conversations.add_message(cooking.id, "user", "How long do I roast a pumpkin?")
    clock.advance(1)
    other = conversations.create("Misc")
    conversations.add_message(other.id, "user", "Pumpkin spice is overrated")

    assert [c.id for c in conversations.search("lisbon")] == [trip.id]
    assert [c.id for c in conversations.search("roast pumpkin")] == [cooking.id]
    assert [c.id for c in conversations.search("pumpkin")] == [other.id, cooking.id]
    assert conversations.search("   ") == []


def test_search_treats_like_and_fts_syntax_as_text(conversations: ConversationStore) -> None:
    percent = conversations.create("100% done")
    conversations.create("1000 things")
    assert [c.id for c in conversations.search("100%")] == [percent.id]
    assert conversations.search('"AND" NEAR( * _') == []


def test_search_skips_deleted_conversations(conversations: ConversationStore) -> None:
    gone = conversations.create("Secret plans")
    conversations.delete(gone.id)
    assert conversations.search("secret") == []


def test_messages_by_ids_finds_archived_and_deleted_ones_and_skips_purged(
    conversations: ConversationStore, clock: FakeClock
) -> None:
    live = conversations.create("Live")
    first = conversations.add_message(live.id, "user", "I keep bees")
    second = conversations.add_message(live.id, "assistant", "How many hives?")
    conversations.apply_compaction(live.id, "Bees.", first.id)
    gone = conversations.create("Gone")
    third = conversations.add_message(gone.id, "user", "Ana is my sister")
    conversations.delete(gone.id)

    found = conversations.messages_by_ids([third.id, first.id, second.id, first.id, 999])

    assert [(m.id, m.conversation_id) for m in found] == [
        (first.id, live.id),
        (second.id, live.id),
        (third.id, gone.id),
    ]
    assert found[0].archived_at is not None
    assert conversations.messages_by_ids([]) == []
    assert len(conversations.messages_by_ids(range(1, 2000))) == 3  # more ids than one query binds


def test_a_title_keeps_no_character_that_reorders_or_hides_what_the_list_shows(
    conversations: ConversationStore,
) -> None:
    # "Bank\u202etxt.exe" shows as "Bankexe.txt": a title is shown in the list,
    # typed, made from a first message, or brought in from another assistant.
    made = conversations.create("Bank\u202etxt.exe")
    assert made.title == "Banktxt.exe"
    renamed = conversations.rename(made.id, "Re\u200bport\u2066 x\u2069")
    assert renamed.title == "Report x"
    with conversations.transaction() as tx:
        imported = conversations.create_imported(
            "\u202b\u062d\u0633\u0627\u0628\u202c",
            imported_from="claude",
            external_id="c-1",
            created_at=START,
            updated_at=START,
            tx=tx,
        )
    assert imported is not None and imported.title == "\u062d\u0633\u0627\u0628"
    i_want = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # Persian: the joiner shapes it
    assert conversations.rename(made.id, i_want).title == i_want
