"""Tests of desktop.core.db.fts: user text becomes a safe FTS5 query."""

from __future__ import annotations

from desktop.core.db.fts import MAX_TERMS, match_query


def test_words_become_quoted_alternatives() -> None:
    assert match_query("dog park") == '"dog" OR "park"'


def test_syntax_characters_and_operators_lose_their_meaning() -> None:
    assert match_query('dog* AND "cat" NEAR(x') == '"dog" OR "AND" OR "cat" OR "NEAR" OR "x"'
    assert match_query("content:dog -cat ^bird") == '"content" OR "dog" OR "cat" OR "bird"'


def test_text_without_words_gives_no_query() -> None:
    for text in ("", "   ", '"', "*", "()", "🙂🙂", "--"):
        assert match_query(text) is None


def test_unicode_words_are_kept_and_repeats_dropped() -> None:
    assert match_query("Café café Zürich Café") == '"Café" OR "café" OR "Zürich"'


def test_long_input_is_capped() -> None:
    query = match_query(" ".join(f"w{n}" for n in range(100)))

    assert query is not None
    assert query.count(" OR ") == MAX_TERMS - 1
