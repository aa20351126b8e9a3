"""Round 23's finding in ``ConversationStore.search``: a title is found in
any case of any script, and by a search text with no words.

The title was compared with SQLite's LIKE, which folds ASCII letters alone,
so "ärger" did not find a conversation named "Ärger mit dem Vermieter", nor
"встреча" one named "Встреча в пятницу"; and a search text with no words (an
emoji, "#") found nothing, though a title held it.  Renamed and imported
conversations are found by their title alone."""

from __future__ import annotations

import pytest

from desktop.core.db import ConversationStore


@pytest.mark.parametrize(
    ("title", "query"),
    [
        ("Ärger mit dem Vermieter", "ärger"),
        ("Встреча в пятницу", "встреча"),
        ("Ωραίο ταξίδι", "ωραίο"),
        ("Die Straße nach Hause", "STRASSE"),
        ("🎂 party plans", "🎂"),
        ("C# generics", "#"),
    ],
)
def test_a_title_is_found_in_any_case_and_by_what_has_no_words(
    store: ConversationStore, title: str, query: str
) -> None:
    named = store.create(title)
    store.add_message(named.id, "user", "hello")
    store.create("Something else")

    assert [c.id for c in store.search(query)] == [named.id]


@pytest.mark.parametrize("query", ["\ud800", "\x00", "\u202e", " \u200b "])
def test_a_search_text_of_nothing_a_reader_sees_finds_nothing_without_failing(
    store: ConversationStore, query: str
) -> None:
    store.create("Trip to Lisbon")

    assert store.search(query) == []


def test_a_search_text_typed_with_a_hidden_character_finds_the_title(
    store: ConversationStore,
) -> None:
    named = store.create("Trip to Lisbon")

    assert [c.id for c in store.search("Lis\u200bbon")] == [named.id]
