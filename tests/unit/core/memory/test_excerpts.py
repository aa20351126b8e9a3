"""``ExcerptRetriever`` on hand-made conversations in a real database: what is
recalled, from where, and what never is."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.db.message_search import MessageSearch
from desktop.core.dreaming.secret_sweep import sweep_stored_secrets
from desktop.core.memory.embedding import Labelled
from desktop.core.memory.excerpts import ExcerptRetriever, RecalledExcerpt, diversified
from desktop.core.memory.message_index import MessageIndexer
from desktop.core.privacy.redaction import Redactor
from models.llama_embedder import LlamaEmbedder
from tests.fakes import HashingEmbedder

FILLER = [
    "Can you suggest a recipe for dinner tonight?",
    "How do I change a bike tyre?",
    "What's a good book about the Roman empire?",
    "The weather has been grey all week.",
]


@pytest.fixture(scope="module")
def minilm(minilm_path: Path) -> Iterator[LlamaEmbedder]:
    embedder = LlamaEmbedder(minilm_path)
    yield embedder
    embedder.close()


def _conversation(
    store: ConversationStore, title: str, *said: str, off_record: bool = False
) -> int:
    conversation = store.create(title, off_record=off_record)
    for number, text in enumerate(said):
        store.add_message(conversation.id, "user" if number % 2 == 0 else "assistant", text)
    return conversation.id


def _retriever(
    database: Database, embed: HashingEmbedder | LlamaEmbedder, **options: object
) -> ExcerptRetriever:
    search = MessageSearch(database)
    MessageIndexer(search, lambda texts: Labelled(embed.embed(texts), None)).index_missing()
    return ExcerptRetriever(search, embed.embed, redactor=Redactor(), **options)  # type: ignore[arg-type]  # test options


def _texts(found: list[RecalledExcerpt]) -> list[str]:
    return [r.excerpt.content for r in found]


def test_a_fact_spread_over_two_sessions_is_found_by_meaning(
    database: Database, minilm: LlamaEmbedder
) -> None:
    store = ConversationStore(database)
    for number, text in enumerate(FILLER):
        _conversation(store, f"chat {number}", text, "Sure, here is an idea.")
    _conversation(
        store, "new pet", "I adopted a rescue puppy and named him Biscuit.", "Congratulations!"
    )
    _conversation(
        store, "training", "Biscuit graduated from obedience school today!", "Well done to him."
    )

    found = _retriever(database, minilm).retrieve(
        "What is my dog called and what did he complete?", k=4
    )

    texts = _texts(found)
    assert "I adopted a rescue puppy and named him Biscuit." in texts
    assert "Biscuit graduated from obedience school today!" in texts
    titles = {r.excerpt.conversation_title for r in found}
    assert {"new pet", "training"} <= titles


def test_off_record_deleted_and_current_conversations_are_never_recalled(
    database: Database,
) -> None:
    store = ConversationStore(database)
    private = _conversation(
        store, "private", "My therapist said the kayak fear is fine", off_record=True
    )
    gone = _conversation(store, "gone", "The kayak trip is cancelled")
    current = _conversation(store, "now", "Tell me about the kayak")
    kept = _conversation(store, "kept", "I bought a red kayak")
    store.delete(gone)
    retriever = _retriever(database, HashingEmbedder())

    found = retriever.retrieve("kayak", k=10, other_than=current)

    assert [r.excerpt.conversation_id for r in found] == [kept]
    assert private not in {
        r.excerpt.conversation_id for r in retriever.retrieve("therapist kayak fear")
    }


def test_an_excerpt_has_its_date_title_role_and_neighbour(database: Database) -> None:
    store = ConversationStore(database, clock=lambda: 1_700_000_000.0)
    conversation = _conversation(
        store, "garden", "Which tomato should I plant?", "Try San Marzano."
    )
    found = _retriever(database, HashingEmbedder()).retrieve("tomato to plant", k=2)

    first = found[0].excerpt
    assert (first.conversation_id, first.conversation_title) == (conversation, "garden")
    assert (first.role, first.created_at) == ("user", 1_700_000_000.0)
    # The reply shares no word with the question: found as the hit's neighbour.
    assert _texts(found) == ["Which tomato should I plant?", "Try San Marzano."]


def test_a_secret_in_an_old_message_is_redacted_in_the_excerpt(database: Database) -> None:
    store = ConversationStore(database)
    conversation = _conversation(store, "router", "the wifi password is hunter2zq for the router")
    # Stored as typed by a version before messages were redacted on write.
    database.fetch_value("UPDATE messages SET secrets_checked = 0 RETURNING 1")
    retriever = _retriever(database, HashingEmbedder())

    before_sweep = retriever.retrieve("router wifi", k=1)
    sweep_stored_secrets(store)
    after_sweep = retriever.retrieve("router wifi", k=1)

    for found in (before_sweep, after_sweep):
        assert found and found[0].excerpt.conversation_id == conversation
        assert "hunter2zq" not in found[0].excerpt.content
        assert "router" in found[0].excerpt.content


def test_diversity_counts_the_nth_excerpt_of_a_conversation_one_nth(database: Database) -> None:
    store = ConversationStore(database)
    _conversation(store, "a", "one", "two")
    _conversation(store, "b", "three")
    search = MessageSearch(database)
    excerpts = search.excerpts([1, 2, 3])
    ranking = [RecalledExcerpt(excerpts[1], 1.0), RecalledExcerpt(excerpts[2], 0.9)]
    ranking.append(RecalledExcerpt(excerpts[3], 0.5))

    assert [(r.excerpt.message_id, r.score) for r in diversified(ranking)] == [
        (1, 1.0),
        (3, 0.5),
        (2, 0.45),
    ]


def test_a_question_naming_a_time_prefers_what_was_said_then(database: Database) -> None:
    """Two conversations about the plumber, a month apart: "last Friday"
    brings the one said that Friday first, words and meaning being equal;
    without a time, or with time-aware ranking off, the order is by id."""
    day = 86_400.0
    now = datetime(2026, 3, 11, 12, 0, tzinfo=UTC)  # a Wednesday
    clock = [now.timestamp() - 40 * day]
    store = ConversationStore(database, clock=lambda: clock[0])
    early = _conversation(store, "early", "The plumber came about the leaking sink.")
    clock[0] = datetime(2026, 3, 6, 15, 0, tzinfo=UTC).timestamp()  # last Friday
    friday = _conversation(store, "friday", "The plumber came about the leaking sink.")

    def first(question: str, **options: object) -> int:
        retriever = _retriever(
            database, HashingEmbedder(), clock=now.timestamp, zone=lambda: UTC, **options
        )
        return retriever.retrieve(question, k=2)[0].excerpt.conversation_id

    assert first("What did the plumber say last Friday?") == friday
    assert first("What did the plumber say about the sink 5 days ago?") == friday
    assert first("What did the plumber say in January?") == early
    assert first("What did the plumber say?") == early
    assert first("What did the plumber say last Friday?", timed=False) == early


def test_the_user_s_own_words_outrank_reverie_s_saying_the_same(database: Database) -> None:
    """The same words said by Reverie in an older conversation and by the
    user in a newer one: the user's come first, Reverie's still recalled;
    with Reverie's words weighing as much, the order is by id."""
    store = ConversationStore(database)
    said = "You need 120 stars to reach the gold level."
    reverie = store.create("stars")
    store.add_message(reverie.id, "assistant", said)
    user = _conversation(store, "rewards", said)

    def order(**options: object) -> list[int]:
        found = _retriever(database, HashingEmbedder(), **options).retrieve("gold level stars")
        return [r.excerpt.conversation_id for r in found]

    assert order() == [user, reverie.id]
    assert order(own_words_weight=1.0) == [reverie.id, user]


def test_asked_what_reverie_said_its_words_count_as_much_as_the_user_s(
    database: Database,
) -> None:
    store = ConversationStore(database)
    said = "You need 120 stars to reach the gold level."
    reverie = store.create("stars")
    store.add_message(reverie.id, "assistant", said)
    user = _conversation(store, "rewards", said)
    retriever = _retriever(database, HashingEmbedder())

    def first(question: str) -> int:
        return retriever.retrieve(question)[0].excerpt.conversation_id

    assert first("how many gold level stars do I need?") == user
    assert first("how many gold level stars did you say I need?") == reverie.id
    assert first("In our last conversation, how many gold level stars?") == reverie.id
